/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace ground truth: sched_switch on the measured CPUs during each case's window, in the run's
 * own tracefs instance (rtthrottle-<pid>), turned into the hog's gaps (harness/measure/trace_gaps.c).
 * tracefs is mounted when it is not, and unmounted at the end; a run that dies leaves both to
 * its guardian or the next run, like its knobs and cgroups.
 */
#ifndef RTT_TRACE_H
#define RTT_TRACE_H

#include <stdbool.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "task_shm.h"

struct trace_session;

/*
 * The run's session. Never NULL: a session that cannot record keeps the reason (e.g. --no-trace,
 * built without libtracefs, tracefs cannot be mounted) for every case's block.
 */
struct trace_session *trace_open(bool wanted, const int *cpus, int ncpus);
/* Removes the instance and unmounts tracefs if the session mounted it. */
void trace_close(struct trace_session *t);
/*
 * Before a case's window: starts recording when one of its tasks on cpu is a hog or realtime.
 * Returns the task whose gaps are followed: the first hog there, else the first periodic RT
 * task (its waits), or -1 (no gaps analysed; the witnesses still recorded).
 */
int trace_arm(struct trace_session *t, const struct task_config *tasks, int count, int cpu, double window_s);
/* Right after the window: stops recording (nothing when not armed). */
void trace_window_end(struct trace_session *t);
/*
 * The case's `trace` block: gaps of task `followed` (trace_arm's answer; none for -1) in the
 * window of shm, how late the RT period timers (period_ns apart; on time within a tick,
 * tick_ns) fired in it, and how late the measured CPU got its timer interrupts (its tick's
 * gaps while busy).
 */
json_object *trace_case_json(struct trace_session *t, const struct window_shm *shm, int followed,
			     double throttle_threshold_us, uint64_t period_ns, uint64_t tick_ns);
/*
 * Removes instances of runs that are gone (`dead`, or any rtthrottle-<pid> without its process)
 * and unmounts tracefs when such a run mounted it. The guardian and each new run call it.
 */
void trace_remove_stale(pid_t dead);

#endif
