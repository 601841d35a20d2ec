/*
 * A spinning task's CPU time as a function of wall time within its window, rebuilt from its
 * long gaps: it does not run inside a gap, and between gaps it runs but for short stalls, so
 * its CPU clock grows linearly there. The kernel's own accounting (CLOCK_THREAD_CPUTIME_ID at
 * each long gap's end) fixes every point, so the error in any span is at most the short
 * stalls of the runs at its two edges.
 */
#ifndef RTT_CPU_TIMELINE_H
#define RTT_CPU_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "task_shm.h"

#define CPU_TIMELINE_POINTS (2 * LONG_GAPS_MAX + 2)

struct cpu_timeline {
	int count;
	uint64_t end_ns;	/* how far the timeline is known, from the window start */
	uint64_t t_ns[CPU_TIMELINE_POINTS];	/* wall time from the window start, non-decreasing */
	uint64_t cpu_ns[CPU_TIMELINE_POINTS];	/* the task's CPU time by then, non-decreasing */
};

/* False when the record holds no usable span (not a spinner, or an empty window). */
bool cpu_timeline_build(const struct task_record *rec, struct cpu_timeline *tl);
/* CPU time used in [from_ns, to_ns), both within [0, end_ns]. */
double cpu_timeline_between(const struct cpu_timeline *tl, uint64_t from_ns, uint64_t to_ns);

#endif
