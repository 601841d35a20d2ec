/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A spinning task's CPU time as a function of wall time within its window, from the kernel's
 * own accounting (CLOCK_THREAD_CPUTIME_ID) read at each long gap's end and every sampling step
 * while it ran. It does not run inside a long gap; between two readings it is interpolated.
 * Between readings the CPU rate need not be uniform (near the end of a throttled period the
 * fair server or a CFS task cut in every millisecond), so the error at any instant is at most
 * the CPU time between the two readings around it: one sampling step, and twice that for a
 * span. Long gaps alone, read only where they end, could be 6 ms off at a period boundary.
 */
#ifndef RTT_CPU_TIMELINE_H
#define RTT_CPU_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "task_shm.h"

#define CPU_TIMELINE_POINTS (2 * LONG_GAPS_MAX + CPU_SAMPLES_MAX + 2)

struct cpu_timeline {
	int count;
	uint64_t step_ns;	/* the sampling step between readings while it ran; 0: gap ends only */
	uint64_t end_ns;	/* how far the timeline is known, from the window start */
	/*
	 * A task kept off its loop from the window start until first_gap_end_ns was charged up to
	 * before_first_ns there that the timeline cannot place (task_record.cpu_before_first_ns).
	 */
	uint64_t first_gap_end_ns, before_first_ns;
	uint64_t t_ns[CPU_TIMELINE_POINTS];	/* wall time from the window start, non-decreasing */
	uint64_t cpu_ns[CPU_TIMELINE_POINTS];	/* the task's CPU time by then, non-decreasing */
};

/* False when the record holds no usable span (not a spinner, or an empty window). */
bool cpu_timeline_build(const struct task_record *rec, struct cpu_timeline *tl);
/* CPU time used in [from_ns, to_ns), both within [0, end_ns]. */
double cpu_timeline_between(const struct cpu_timeline *tl, uint64_t from_ns, uint64_t to_ns);
/*
 * The CPU time (ns) between the two readings around `t`: how much of it may lie on either side
 * of t, interpolation notwithstanding. A sampling step's CPU while the task ran; inside a long
 * gap, what the kernel charged it there without its running its loop (a wake-up's interrupt
 * taken in its context, a stall): the task cannot say when; inside a gap from the window start,
 * also what it was charged before its first reading (before_first_ns). 0 outside the timeline.
 */
double cpu_timeline_unplaced_at(const struct cpu_timeline *tl, uint64_t t);

#endif
