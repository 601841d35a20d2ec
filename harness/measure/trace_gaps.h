/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A task's gaps from sched_switch events: when it was switched out while runnable (throttled or
 * preempted), or made runnable while off the CPU (sched_wakeup), and what ran on its CPU
 * meanwhile. The task is the hog, or a periodic RT task beside no hog. Pure: takes events, no kernel.
 */
#ifndef RTT_TRACE_GAPS_H
#define RTT_TRACE_GAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define TRACE_COMM_LEN 16
#define TRACE_RAN_MAX 4		/* tasks named per gap, longest first; the rest is other_ns */
#define TRACE_TOP_MAX 8		/* tasks named over all gaps */
#define TRACE_GAPS_LISTED 32	/* gaps listed one by one (the longest, in time order) */

enum trace_kind { TRACE_CFS, TRACE_IDLE, TRACE_KTHREAD, TRACE_RT, TRACE_KINDS };

/* One sched_switch, as the trace recorded it. */
struct trace_switch {
	uint64_t ts_ns;		/* CLOCK_MONOTONIC (trace clock "mono") */
	int cpu;
	int prev_pid;
	int64_t prev_state;	/* TASK_REPORT bits; 0 or only the preempted bit (0x100): runnable */
	int next_pid, next_prio;	/* kernel prio: below 100 RT or deadline */
	char next_comm[TRACE_COMM_LEN];
	enum trace_kind next_kind;	/* filled in by the caller's classifier */
	char next_task[24];		/* the scenario task's name when it is one of ours, else empty */
	/*
	 * Not a switch: the RT period timer hrtimer (its address), a measured CPU's tick, or a
	 * sleeper's wake-up timer on a measured CPU, fired at ts_ns on cpu.
	 */
	bool rt_timer, tick, wake_timer;
	uint64_t hrtimer;
	/* Not a switch: task woken_pid made runnable on a traced CPU at ts_ns (recorded on the waker's cpu). */
	bool woken;
	int woken_pid;
	/* Not a switch: a wake-up interrupt of ipi_kind (enum ipi_kind) sent to ipi_target, or taken on cpu. */
	bool ipi_sent, ipi_taken;
	int ipi_kind, ipi_target;
};

struct trace_ran {
	int pid;
	char comm[TRACE_COMM_LEN], task[24];
	enum trace_kind kind;
	uint64_t ns;
};

struct trace_gap {
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	bool cut_at_start;	/* the task was off the CPU when the window opened */
	bool open_at_end;	/* it got the CPU back only after the window end */
	uint64_t by_kind_ns[TRACE_KINDS];
	struct trace_ran ran[TRACE_RAN_MAX];
	int ran_count;
	uint64_t other_ns;	/* time of tasks beyond ran[] */
	uint64_t unrecorded_ns;	/* time around a switch the trace did not record: who ran is unsure */
};

struct trace_input {
	const struct trace_switch *ev;	/* in time order */
	size_t count;
	int task_pid, cpu;	/* the task followed: the hog, or a periodic RT task beside no hog */
	/* When the followed task was made runnable, in time order (NULL: not traced): its waits after a sleep. */
	const uint64_t *woken_ns;
	size_t woken_count;
	uint64_t start_ns, end_ns;	/* the measuring window */
	double throttle_threshold_us;	/* the hog's: gaps at least this long are throttle events */
};

struct trace_summary {
	uint64_t events;	/* sched_switch events inside the window, on every traced CPU */
	bool task_seen;		/* the followed task (a hog or a periodic RT task) appears in the events */
	uint64_t gap_count, total_ns, max_ns, throttle_events;
	/*
	 * Gaps whose end the trace did not record: the hog's switch-in shows only through its next
	 * switch-out. Some kernels never record a switch away from the idle task.
	 */
	uint64_t unresolved;
	uint64_t by_kind_ns[TRACE_KINDS], unrecorded_ns;
	struct trace_ran top[TRACE_TOP_MAX];
	int top_count;
	uint64_t other_ns;
};

bool trace_state_runnable(int64_t prev_state);
const char *trace_kind_name(enum trace_kind kind);
/*
 * The task's gaps that start inside the window (a gap open at the window start starts there),
 * each followed to its next switch-in; gaps whose end was not recorded are only counted
 * (summary.unresolved). Returns the count and a malloc'ed array in *gaps
 * (NULL when none), or (size_t)-1 when out of memory.
 */
size_t trace_gaps_find(const struct trace_input *in, struct trace_gap **gaps, struct trace_summary *sum);
/* The figures of the trace block (results/README.md, `trace`), added to obj. */
void trace_gaps_to_json(json_object *obj, const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			const struct trace_summary *sum);

#endif
