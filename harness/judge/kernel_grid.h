/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's own RT period boundaries in a window, from the trace's record of its period
 * timer's firings (the case's `trace.rt_timer` block): the instants RT's account is refilled.
 * Judging periods between them needs no search for a favourable phase, which could lay its
 * grid across a late throttle's gap and hide the overrun.
 */
#ifndef RTT_KERNEL_GRID_H
#define RTT_KERNEL_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * Fills *out (malloc'ed, ascending, ns from the window start, within (0, window_ns]) and
 * returns how many, from the trace block `trace`. A period the timer did not fire in (it
 * stops while RT is idle and restarts on the same grid) gets its boundary on that grid:
 * one budget over several periods promises no more per period; a window cut less than 1 ms
 * before a firing (aligned end) ends on a boundary. Returns 0 and says why in
 * `why` when the trace cannot give the grid: not recorded, not exactly one timer, no firing
 * in the window, or firings off each other's grid (the period changed, or a timer restarted
 * on another grid).
 */
int kernel_grid_bounds(json_object *trace, uint64_t period_ns, uint64_t window_ns, uint64_t **out, char *why,
		       size_t why_len);

/*
 * How far the RT period timer's firings in the window stray from one grid at the policy's
 * period (us): the spread of their offsets from the first one's grid, and in *intervals how
 * many intervals between firings it spans. The kernel refills RT's runtime on that timer: a
 * timer on another period drifts by the difference every interval, while a healthy one fires
 * on its grid, late only where the machine delivered it late. -1 and why when the trace has
 * not exactly one timer or fewer than two firings in the window.
 */
double kernel_grid_drift_us(json_object *trace, uint64_t period_ns, uint64_t window_ns, int *intervals, char *why,
			    size_t why_len);

/*
 * Why the trace says a period cannot be judged: the machine held the CPU (the tick came late),
 * the trace itself lost the switches (who ran is unknown: always left out), or the CFS spinner
 * slept while the CPU idled (a rest nobody asked for).
 */
enum disturbance_kind { DISTURBANCE_HELD, DISTURBANCE_LOST, DISTURBANCE_CFS_ASLEEP };

/* A span the trace saw disturbed. */
struct disturbance {
	uint64_t from_ns, to_ns;	/* from the window start */
	double late_us;			/* how late the tick came; the other kinds: the span's length */
	enum disturbance_kind kind;
};

/* Why a period touching `d` is left out, for the results: "the trace saw ..." */
void disturbance_why(const struct disturbance *d, char *why, size_t len);

/*
 * The spans in which the trace saw the measured CPU's tick held back by at least its listing
 * threshold (trace.tick.late, *listed_from_us): a held-back tick ending at A, L late, lies in
 * [A - tick - L, A]. The tick runs in hard interrupt context above every task, so no
 * scheduling decision delays it: the machine (steal, a host interrupt) did. Fills *out
 * (malloc'ed) and returns how many; -1 when the trace has no such list (not traced, an older
 * result, or more late ticks than it lists): then no period can be censored.
 */
int kernel_grid_disturbed(json_object *trace, uint64_t tick_ns, struct disturbance **out, double *listed_from_us);
/*
 * Appends to *list (count *n, realloc'ed) the spans after a switch the trace did not record
 * (trace.others.unrecorded), as lost disturbances: a period touching one is left out whatever
 * the threshold, since neither the window's tasks' time there nor others' is known. Returns
 * how many it added, -1 when the trace does not list them (older result, too many).
 */
int kernel_grid_add_unrecorded(json_object *trace, struct disturbance **list, int *n);
/*
 * Likewise the spans in which the CFS spinner slept and the CPU idled (trace.cfs_blocked), as
 * CFS-asleep disturbances: left out, as a held-back tick is, from the censoring threshold up.
 * 0 when the window has no such spinner; -1 when the trace does not list them.
 */
int kernel_grid_add_cfs_asleep(json_object *trace, struct disturbance **list, int *n);

/* A span in which tasks not of the window ran on the measured CPU, as the trace saw them. */
struct others_span {
	uint64_t from_ns, to_ns;	/* from the window start */
	double ran_us;			/* what they ran in it */
};

/*
 * The spans of trace.others (CFS tasks and kernel threads not of the window, placed by the
 * trace's sched_switch events): fills *out (malloc'ed) and returns how many; -1 when the trace
 * did not list them all (not traced, events lost, more than it lists).
 */
int kernel_grid_others(json_object *trace, struct others_span **out);
/* What they ran in [from, to): each span's time in proportion to its overlap. */
double others_between_us(const struct others_span *s, int n, uint64_t from, uint64_t to);

#endif
