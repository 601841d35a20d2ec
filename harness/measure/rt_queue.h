/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's own account of a CPU's RT run queue (the root group's), from the scheduler's
 * debug file: the RT time run up and not yet forgiven, and whether the queue is throttled.
 * What a window inherits from before it, read instead of inferred from the period timer.
 */
#ifndef RTT_RT_QUEUE_H
#define RTT_RT_QUEUE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct rt_queue_state {
	int cpu;
	int nr_running;
	bool throttled;
	double rt_time_us;	/* run up in the current period, not yet forgiven by the period timer */
	double runtime_us;	/* what the queue may run a period; -1 when unlimited */
};

/*
 * Reads the block "rt_rq[CPU]:/" (with RT group scheduling) or "rt_rq[CPU]:" from f, in the
 * format of /sys/kernel/debug/sched/debug. false when there is no such block or it lacks
 * .rt_time or .rt_throttled.
 */
bool rt_queue_parse(FILE *f, int cpu, struct rt_queue_state *out);

/*
 * Mounts debugfs for the run when it is not mounted (rt_queue_close unmounts it); false, with
 * why, when the file cannot be read (no debugfs, no CONFIG_SCHED_DEBUG, lockdown).
 */
bool rt_queue_open(int cpu, char *why, size_t len);
void rt_queue_close(void);
/* Unmounts the debugfs a dead run mounted (see pseudo_fs_remove_stale). */
void rt_queue_remove_stale(pid_t dead);
/* rt_queue_parse of the debug file; false with why. */
bool rt_queue_read(int cpu, struct rt_queue_state *out, char *why, size_t len);

#endif
