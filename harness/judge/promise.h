/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bandwidth promise, judged period by period. The settings promise that RT runs at most
 * `runtime` in every period and everything else gets the rest; a fair server promises CFS its
 * runtime in every one of its periods. Neither depends on how the kernel interleaves the two,
 * so, unlike event counts or medians, these hold on every correct kernel whatever the phase.
 *
 * The periods are the kernel's own where the trace recorded its RT period timer's firings
 * (kernel_grid.h): no phase is searched, and the part periods at the window's ends are judged
 * too. Without that record the grid judged is the one, among all phases, on which the kernel
 * comes closest to keeping its promise (with the ends of the throttle gaps among the phases
 * tried, since a throttle ends on a boundary): a kernel that breaks the promise on every grid
 * fails, but a late throttle carried over may hide in a phase that splits it off.
 */
#ifndef RTT_PROMISE_H
#define RTT_PROMISE_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cpu_timeline.h"
#include "expect.h"
#include "kernel_grid.h"

/* Periods left out listed one by one, the first of them. */
#define CENSORED_LISTED 16

/* Which promises apply to a window, from the model's regime and the policy. */
struct promise_terms {
	bool rt_limit;		/* RT at most runtime per period (classic throttling, no borrowing) */
	bool cfs_rest;		/* the CFS task gets the rest of each RT period */
	bool fair_server;	/* the fair server's runtime per its period for the CFS task */
	int64_t runtime_us, period_us;
	int64_t fs_runtime_us, fs_period_us;
	double tick_us;
	/*
	 * > 0: the kernel's RT periods end by here (us from the window start) at the latest: a
	 * window ended before a timer firing that came off the foretold grid (aligned_end) holds
	 * only part of its last period. 0: periods may end at the window's end.
	 */
	double periods_end_us;
	/*
	 * The kernel's RT period boundaries within the window (ns from its start, ascending): its
	 * period timer's firings as traced. NULL: the grid is searched. `partial_periods`: the
	 * part periods at the window's ends are judged too (RT ran only the result's policy there).
	 */
	const uint64_t *kernel_bounds_ns;
	int kernel_bounds;
	bool partial_periods;
	char grid_why[200];	/* where the grid came from, or why it was searched */
	/*
	 * On the kernel's grid: spans the trace's tick saw the machine hold the CPU. A period
	 * touching one held back disturbed_from_us or more is censored, left out with its reason,
	 * and the rest are judged at the model's tolerance; the shorter holds in a share's span
	 * are its periods_held_us. disturbed_count < 0: not known.
	 */
	const struct disturbance *disturbed;
	int disturbed_count;
	double disturbed_from_us;
	/*
	 * Where tasks not of the window ran on the measured CPU (kernel_grid_others): each period's
	 * CFS figure holds what they ran in it. others_count < 0: not placed (the checks allow
	 * what they took in the whole window instead).
	 */
	const struct others_span *others;
	int others_count;
	char why[200];		/* which promises, and why the others do not apply */
};

struct promise {
	/* On the RT period grid */
	int periods;			/* whole periods in the window */
	bool rt_measured;		/* the RT task is a spinner whose timeline is known */
	double phase_us, grid_step_us;	/* the grid judged: first boundary after the window start */
	bool kernel_grid;		/* the kernel's own boundaries (grid_step_us 0), not a searched phase */
	/*
	 * On the kernel's grid, the longest undisturbed span of whole periods that also holds whole
	 * fair-server periods where the server acts: its length, RT's and the CFS task's CPU time
	 * (0: no such span in the window).
	 */
	double whole_us, whole_rt_us, whole_cfs_us;
	/* What the trace saw the machine hold the tick back in that span, each time below the threshold. */
	double whole_held_us;
	/* The window holds such a span, but each one touches a period the trace saw disturbed. */
	bool whole_disturbed;
	double boundary_run_us;		/* the most RT ran in the tick before a kernel boundary */
	bool censoring;			/* disturbed periods were looked for (the kernel's grid, a tick list) */
	int censored;			/* periods left out, whole or part */
	/* Each one's span, and how late the tick came in it. */
	struct disturbance censored_at[CENSORED_LISTED];
	double rt_period_max_us;	/* the most RT CPU time in one period */
	/*
	 * The most RT time the kernel may have counted in one whole period: its CPU time there
	 * plus what it ran in the tick before the period's firing (the kernel counts that on).
	 * A kernel that lets RT run its runtime shows it in some period; one that throttles RT
	 * short of it (or a fair server larger than its setting) cannot.
	 */
	double rt_period_top_us;
	double rt_budget_excess_us;	/* the most RT ran beyond n x runtime in any n consecutive periods */
	double worst_period_at_ms;	/* start of the period with the most RT */
	bool cfs_timeline;		/* the CFS task's timeline was known */
	bool cfs_measured;
	double cfs_period_min_us;	/* the least the CFS task got in one period */
	/*
	 * The most CFS CPU time of one period on that grid whose side of a boundary is unknown:
	 * at each end, a sampling step's, or what was charged to the task inside a gap around it.
	 */
	double cfs_placement_us;
	int throttle_ends, throttle_ends_on_grid;
	/*
	 * The longest the machine took the CPU from both tasks in this window: a hog's gap too short
	 * for a throttle, or a span in which neither the hog nor the CFS task ran (a late period timer
	 * shifts RT's budget by as much).
	 */
	double stall_max_us;
	/* Each timeline's sampling step: the error of its CPU time at an instant (0: not sampled). */
	double rt_sample_us, cfs_sample_us;
	json_object *per_period;	/* [{at_ms, rt_us, cfs_us}] on the grid judged (owned; NULL when none) */
	/* On the fair server's grid */
	int fs_periods;
	double fs_phase_us, fs_grid_step_us, fs_cfs_period_min_us;
	double fs_placement_us;		/* as cfs_placement_us, on the fair server's grid */
	double cfs_wait_bound_us;	/* the longest CFS wait the promises allow (0: none promised) */
	double cfs_wait_max_us;		/* the CFS task's longest wait (its longest gap), -1: no CFS task */
};

void promise_terms_for(const struct kernel_model *km, const struct limiter *l, int64_t runtime_us,
		       int64_t period_us, bool cfs_task, struct promise_terms *out);
/*
 * Measures the figures the terms ask for. `rt` is the RT task's timeline, `cfs` the CFS
 * task's; either may be NULL (an RT task that sleeps between jobs has no timeline: then the
 * CFS task's rest is judged on the grid where it fares best). `rt_gaps`: the RT task's gaps
 * (their ends help find the grid), or NULL; `cfs_gaps` the CFS task's, or NULL (with the RT
 * task's, they show the machine's stalls).
 */
void promise_measure(const struct promise_terms *t, const struct cpu_timeline *rt, const struct cpu_timeline *cfs,
		     const struct gap_stats *rt_gaps, const struct gap_stats *cfs_gaps, double throttle_threshold_us,
		     struct promise *out);
/*
 * promise_measure with the lowest censoring threshold, from terms->disturbed_from_us (the
 * trace's listing threshold) up to half a tick, that keeps at least half the window's periods and
 * a span of whole periods where it holds one (else the metrics' own span between throttle
 * ends, undisturbed); terms->disturbed_from_us is left at it.
 */
void promise_measure_censored(struct promise_terms *terms, const struct cpu_timeline *rt, const struct cpu_timeline *cfs,
			      const struct gap_stats *rt_gaps, const struct gap_stats *cfs_gaps,
			      double throttle_threshold_us, json_object *rt_metrics, json_object *cfs_metrics,
			      struct promise *out);

/* Adds the figures as metrics of the RT and the CFS task, so checks can name them. */
void promise_add_metrics(const struct promise_terms *t, const struct promise *p, json_object *rt_metrics,
			 json_object *cfs_metrics);
/*
 * The result's `promise` block; `kept` is the verdict of the checks on these figures, or null.
 * Hands the per-period figures over to the block.
 */
json_object *promise_to_json(const struct promise_terms *t, struct promise *p, int kept);
/* Frees what a promise holds that promise_to_json did not take. */
void promise_release(struct promise *p);
/* True for a metric name this module writes (its checks decide `kept`). */
bool promise_metric(const char *metric);

#endif
