/* SPDX-License-Identifier: GPL-2.0-only */
/* One measuring window: fork the tasks, release them together, wait, reap. */
#ifndef RTT_WINDOW_H
#define RTT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include "rt_timer.h"
#include "task_shm.h"

enum window_status {
	WINDOW_OK,
	WINDOW_TASK_FAILED,	/* a task could not set itself up: why says which and how */
	WINDOW_INTERRUPTED,	/* a signal asked the run to stop */
	WINDOW_OVERRUN,		/* a task outlived its window and was killed */
};

/* One shared mapping for the whole run (tasks write their records into it). */
struct window_shm *window_shm_create(void);
void window_shm_destroy(struct window_shm *shm);

/*
 * Knob changes while the tasks already run, before the measured window: the spinners start
 * span_ns early and apply(ctx, k) is called at at_ns[k] from their start (a scenario's
 * lead-in: a policy written on a live system). applied_ns[k] is when it was done.
 */
#define WINDOW_LEAD_STEPS_MAX 5
struct window_lead {
	uint64_t span_ns;
	int steps;
	uint64_t at_ns[WINDOW_LEAD_STEPS_MAX];
	bool (*apply)(void *ctx, int step, char *why, size_t why_len);
	void *ctx;
	uint64_t applied_ns[WINDOW_LEAD_STEPS_MAX];	/* CLOCK_MONOTONIC */
};

/*
 * The measured CPU's busy time (cpuacct) read as the window starts and as it ends: what
 * tasks other than the window's took on it is that less the tasks' own time in the window,
 * free of what ran there during set-up and after the end (PREEMPT_RT's starved kernel
 * threads catch up then).
 */
struct window_busy {
	int cpu;
	bool known;
	uint64_t at_start_ns, at_end_ns;	/* cpuacct busy time of the CPU */
	/* The CPU time of the window's tasks placed on that CPU, read beside it at each edge. */
	uint64_t tasks_at_start_ns, tasks_at_end_ns;
};

/* A reaped task's CPU time over its whole life, as wait4 reported it. */
uint64_t task_life_cpu_ns(const struct task_record *t);

/*
 * A window that may end a little early, as the kernel's RT period timer fires: the timer,
 * still armed from the window before, keeps that window's phase, and a window that ended
 * between two firings leaves RT time run up that only the next firing forgives (the settle
 * waits for it, up to a period). period_ns: the window's RT period (0: end as asked); the
 * cut is at most a tenth of the window and 0.4 of a period (a period's fraction that cannot
 * change how many periods the window holds). cut_ns is how much earlier it ended.
 */
struct window_align {
	uint64_t period_ns;
	uint64_t cut_ns;
	uint64_t firing_ns;	/* the firing it ends just before, as /proc/timer_list foretold it */
	struct rt_timer_state after;	/* /proc/timer_list once the tasks are gone (after.armed false: unread) */
};

/*
 * Runs `count` tasks for `duration_ns`; they must be at the start barrier within 3 s and
 * period_ns, the longest RT period in force (an RT task cannot set itself up while its CPU's
 * RT queue is throttled), and end within a period and 2 s of the window end; an RT task
 * still there a period and 0.5 s after it is moved to SCHED_OTHER (the kernel never gave it
 * its runtime back). Tasks share one process group, which is given to the guardian so it can
 * kill them if the harness dies. busy (may be NULL) is read at the window's edges; align (may
 * be NULL) lets it end early (struct window_align).
 */
enum window_status window_run(struct window_shm *shm, const struct task_config *tasks, int count,
			      uint64_t duration_ns, uint64_t setup_timeout_ns, struct window_lead *lead,
			      struct window_align *align, struct window_busy *busy, char *why, size_t why_len);

#endif
