// SPDX-License-Identifier: GPL-2.0-only
/* The period grid: the kernel's traced timer firings, else a search over phases (throttle ends among them). */
#include "promise.h"
#include "json_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Work per grid search: phases tried x periods in the window. */
#define GRID_EVALS_MAX 4000000.0
#define GRID_PHASES_MAX 4000
#define GRID_PHASES_MIN 50
/* A throttle gap that ends this close to a boundary confirms the grid (timer wake-up + switch). */
#define ON_GRID_NS 1000000ull
/* A window of two fair-server periods may come out a little short of them. */
#define FS_WINDOW_SLACK_NS 20000000ull

void promise_terms_for(const struct kernel_model *km, const struct limiter *l, int64_t runtime_us,
		       int64_t period_us, bool cfs_task, struct promise_terms *t)
{
	memset(t, 0, sizeof(*t));
	t->others_count = -1;
	t->runtime_us = runtime_us;
	t->period_us = period_us;
	t->fs_runtime_us = km->fs_runtime_us;
	t->fs_period_us = km->fs_period_us;
	t->tick_us = km->tick_us;
	switch (l->regime) {
	case REGIME_CLASSIC:
		t->rt_limit = true;
		t->cfs_rest = cfs_task;
		t->fair_server = km->fair_server && cfs_task;
		snprintf(t->why, sizeof(t->why), "RT at most %lld us in every %lld us%s%s", (long long)runtime_us,
			 (long long)period_us, cfs_task ? ", the CFS task the rest" : "",
			 t->fair_server ? ", and the fair server's runtime in every one of its periods" : "");
		break;
	case REGIME_FAIR_SERVER_ONLY:
		t->fair_server = cfs_task;
		snprintf(t->why, sizeof(t->why), "no RT limit; %s", cfs_task ? "the fair server's runtime for the CFS task in every one of its periods"
										: "no CFS task for the fair server to serve");
		break;
	case REGIME_RUNTIME_SHARE:
		snprintf(t->why, sizeof(t->why), "RT may borrow other CPUs' runtime (RT_RUNTIME_SHARE): no per-CPU promise");
		break;
	case REGIME_TIMERS_STARVED:
		snprintf(t->why, sizeof(t->why), "CFS tasks wake only through an RT timer thread that is throttled with RT: no CFS promise; RT time not judged per period");
		break;
	case REGIME_NO_LIMIT:
		snprintf(t->why, sizeof(t->why), "no limit: nothing is promised");
		break;
	}
	if (t->rt_limit)
		t->cfs_rest &= runtime_us < period_us;
}

bool promise_metric(const char *metric)
{
	static const char *const names[] = {
		"rt_budget_excess_us", "rt_period_max_us", "rt_period_top_us", "cfs_period_min_us", "fs_period_min_us",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(metric, names[i]))
			return true;
	return false;
}

struct grid_eval {
	int periods;
	int censored;		/* periods left out, whole or part */
	struct disturbance censored_at[CENSORED_LISTED];
	double rt_max_us, rt_excess_us, worst_at_ns, cfs_min_us;
	double rt_top_us;	/* the most RT ran in a whole period, with its start boundary's shift */
	/* Where other CFS tasks and kernel threads ran, placed by the trace: they share CFS's rest. */
	const struct others_span *others;
	int others_count;
};

/*
 * Period boundaries within [0, end]: the kernel's (its RT period timer's firings, from the trace)
 * or those of a grid phase + kP. Whole periods lie between two boundaries.
 */
struct bounds {
	int n;
	const uint64_t *at;
};

/* The boundaries phase + kP within [0, end] into buf (end / period + 2 long). */
static struct bounds bounds_of_grid(uint64_t phase, uint64_t period, uint64_t end, uint64_t *buf)
{
	struct bounds b = { 0, buf };

	for (uint64_t t = phase; t <= end; t += period)
		buf[b.n++] = t;
	return b;
}

/*
 * One period's RT time into the Kadane run and the figures. `shift_us`: RT time at the
 * period's end boundary the kernel counts in the next period (boundary_run_us), which a
 * run of periods ending here may hold beyond its budget.
 */
static void eval_period(const struct cpu_timeline *rt, const struct cpu_timeline *cfs, uint64_t from, uint64_t to,
			double runtime_us, double shift_us, bool whole, double *run, struct grid_eval *e)
{
	double used = rt ? cpu_timeline_between(rt, from, to) / 1000.0 : 0, over = used - runtime_us;

	/* Kadane: the most RT ran beyond its budget over any run of consecutive periods. */
	*run = fmax(over, *run + over);
	e->rt_excess_us = fmax(e->rt_excess_us, *run - shift_us);
	if (!whole)
		return;
	if (used > e->rt_max_us || !e->periods) {
		e->rt_max_us = used;
		e->worst_at_ns = (double)from;
	}
	/* CFS's rest is the CFS task's and the other CFS tasks' there: what they ran in it counts. */
	if (cfs)
		e->cfs_min_us = fmin(e->cfs_min_us, cpu_timeline_between(cfs, from, to) / 1000.0 +
							(e->others ? others_between_us(e->others, e->others_count, from, to) : 0));
	e->periods++;
}

/*
 * RT time in the tick before boundary `at`. The period timer takes runtime off RT's account
 * without charging the running task first, so what RT ran since its last tick lands in the
 * next period's account: a run of periods measured up to a firing may hold that much more
 * than the kernel counted in it. 0 where RT was throttled at the firing, as it is when it
 * used its runtime; 0 off the kernel's grid (tick_ns 0).
 */
static double boundary_shift_us(const struct cpu_timeline *rt, uint64_t at, uint64_t tick_ns)
{
	if (!rt || !tick_ns || at < tick_ns || at > rt->end_ns)
		return 0;
	return cpu_timeline_between(rt, at - tick_ns, at) / 1000.0;
}

/*
 * The worst disturbance in [from, to) that censors its period: a tick held back, or the CFS
 * spinner asleep beside an idle CPU, at least the threshold `from_us`, or a span the trace lost
 * (always); NULL when none.
 */
static const struct disturbance *worst_disturbance(const struct disturbance *d, int n, double from_us, uint64_t from,
						   uint64_t to)
{
	const struct disturbance *worst = NULL;

	for (int i = 0; i < n; i++)
		if (d[i].from_ns < to && d[i].to_ns > from &&
		    (d[i].kind == DISTURBANCE_LOST || d[i].late_us >= from_us) && (!worst || d[i].late_us > worst->late_us))
			worst = &d[i];
	return worst;
}

/* What the listed holds below the censoring threshold took in [from, to): a clean span's. */
static double held_us(const struct promise_terms *t, uint64_t from, uint64_t to)
{
	double sum = 0;

	for (int i = 0; t->disturbed && i < t->disturbed_count; i++)
		if (t->disturbed[i].kind != DISTURBANCE_LOST && t->disturbed[i].from_ns < to && t->disturbed[i].to_ns > from)
			sum += t->disturbed[i].late_us;
	return sum;
}

/*
 * The figures on boundaries b within [0, end). `tick_ns` > 0 (the kernel's grid): each run
 * of periods may hold its end boundary's shift; a searched grid (0) has none. `partial`: the
 * part periods before the first boundary and after the last count towards RT's budget too
 * (RT may run at most its runtime there as well); else whole periods only. A period touching
 * one of `dist` (ndist of them) is left out and listed in e->censored_at.
 */

static void eval_bounds(const struct cpu_timeline *rt, const struct cpu_timeline *cfs, const struct bounds *b,
			uint64_t end, double runtime_us, uint64_t tick_ns, bool partial, const struct disturbance *dist,
			int ndist, const struct promise_terms *t, struct grid_eval *e)
{
	double run = 0;

	memset(e, 0, sizeof(*e));
	if (t && t->others_count >= 0) {
		e->others = t->others;
		e->others_count = t->others_count;
	}
	e->rt_excess_us = -INFINITY;
	e->cfs_min_us = INFINITY;
	/* Segment -1: the part period before the first boundary; b->n - 1: the one after the last. */
	for (int k = -1; k < b->n; k++) {
		bool whole = k >= 0 && k + 1 < b->n;
		uint64_t from = k < 0 ? 0 : b->at[k], to = k + 1 < b->n ? b->at[k + 1] : end;
		const struct disturbance *worst;

		if (!b->n || from >= to || (!whole && !partial))
			continue;
		/* A period the machine held the CPU in, or the trace lost, is left out: no run of periods spans it. */
		worst = worst_disturbance(dist, ndist, t ? t->disturbed_from_us : 0, from, to);
		if (worst) {
			run = 0;
			if (e->censored < CENSORED_LISTED)
				e->censored_at[e->censored] = (struct disturbance){ from, to, worst->late_us, worst->kind };
			e->censored++;
			continue;
		}
		eval_period(rt, whole ? cfs : NULL, from, to, runtime_us,
			    k + 1 < b->n ? boundary_shift_us(rt, to, tick_ns) : 0, whole, &run, e);
		/*
		 * The kernel counted in this period at most what ran in it plus what ran in the tick
		 * before its start (counted on after the firing): the most it could have let RT run.
		 */
		if (rt && whole)
			e->rt_top_us = fmax(e->rt_top_us, cpu_timeline_between(rt, from, to) / 1000.0 +
								  boundary_shift_us(rt, from, tick_ns));
	}
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/*
 * The longest span [*from, *to] of the kernel's periods that is a whole number of `unit_us`
 * and starts at `earliest` or later; `undisturbed`: touching no span the trace saw disturbed.
 * Returns its length in us (0: none).
 */
static double longest_whole(const struct bounds *b, const struct promise_terms *t, int64_t unit_us, uint64_t earliest,
			    bool undisturbed, int *from, int *to)
{
	double best = 0;

	*from = *to = -1;
	for (int i = 0; i + 1 < b->n; i++)
		for (int j = b->n - 1; j > i && b->at[i] + (uint64_t)(t->tick_us * 1000) >= earliest; j--) {
			double span = (double)(b->at[j] - b->at[i]) / 1000.0, units = round(span / (double)unit_us);

			if (span <= best || units < 1 || fabs(span - units * (double)unit_us) > t->tick_us ||
			    (undisturbed && t->disturbed_count > 0 &&
			     worst_disturbance(t->disturbed, t->disturbed_count, t->disturbed_from_us, b->at[i], b->at[j])))
				continue;
			best = span;
			*from = i;
			*to = j;
			break;
		}
	return best;
}

/*
 * The longest span of the kernel's periods, undisturbed, that also holds whole periods of the
 * fair server where it acts: a share is only the limits' over such a span (over three 50 ms
 * periods a 1 s server's slot falls in or not). Into p->whole_*; none (0) when the window has
 * no such span, and p->whole_disturbed when it has one only where the trace saw the machine
 * disturb it.
 */
static void whole_span(const struct cpu_timeline *rt, const struct cpu_timeline *cfs, const struct bounds *b,
		       const struct promise_terms *t, struct promise *p)
{
	int64_t unit_us = t->period_us;
	uint64_t earliest = 0;
	double best;
	int from, to;

	/* The server's period straddling the window start may have been spent before it: after it only. */
	if (t->fair_server && t->fs_period_us > 0) {
		unit_us = t->period_us / gcd64(t->period_us, t->fs_period_us) * t->fs_period_us;
		earliest = (uint64_t)t->fs_period_us * 1000;
	}
	p->whole_us = p->whole_rt_us = p->whole_cfs_us = p->whole_held_us = 0;
	best = longest_whole(b, t, unit_us, earliest, true, &from, &to);
	if (from < 0) {
		p->whole_disturbed = longest_whole(b, t, unit_us, earliest, false, &from, &to) > 0;
		return;
	}
	p->whole_us = best;
	p->whole_held_us = held_us(t, b->at[from], b->at[to]);
	p->whole_rt_us = rt ? cpu_timeline_between(rt, b->at[from], b->at[to]) / 1000.0 : 0;
	p->whole_cfs_us = cfs ? cpu_timeline_between(cfs, b->at[from], b->at[to]) / 1000.0 : 0;
}

/* Phases to try: an even comb plus the given exact candidates (throttle ends). */
static int phase_count(uint64_t period, uint64_t end)
{
	double periods = fmax(1.0, (double)end / (double)period);
	int n = (int)fmin(GRID_PHASES_MAX, GRID_EVALS_MAX / periods);

	return n < GRID_PHASES_MIN ? GRID_PHASES_MIN : n;
}

/*
 * The grid on which the kernel comes closest to its promise: the lowest worst violation of
 * "RT <= runtime" (with an RT timeline) and "CFS >= period - runtime" (with a CFS one).
 */
static void best_grid(const struct cpu_timeline *rt, const struct cpu_timeline *cfs, uint64_t period, uint64_t end,
		      double runtime_us, const struct gap_stats *gaps, double gap_threshold_us, double slack_us,
		      const struct promise_terms *t, struct grid_eval *best, double *phase_ns, double *step_ns)
{
	int n = phase_count(period, end), extra = gaps ? (int)gaps->long_stored : 0;
	double best_score = INFINITY, end_score = INFINITY, end_phase = 0;
	struct grid_eval at_end = { 0 };
	uint64_t *buf = malloc((size_t)(end / period + 2) * sizeof(uint64_t));

	*step_ns = (double)period / n;
	best->periods = 0;
	if (!buf)
		return;
	for (int i = 0; i < n + extra; i++) {
		uint64_t phase;
		struct grid_eval e;
		double score;

		if (i < n) {
			phase = (uint64_t)(i * *step_ns);
		} else {
			const struct gap_event *g = &gaps->long_gaps[i - n];

			if (g->len_ns / 1000.0 < gap_threshold_us)
				continue;
			phase = (g->start_ns + g->len_ns) % period;
		}
		struct bounds b = bounds_of_grid(phase, period, end, buf);

		eval_bounds(rt, cfs, &b, end, runtime_us, 0, false, NULL, 0, t, &e);
		if (!e.periods)
			continue;
		score = rt ? e.rt_excess_us : -INFINITY;
		if (cfs)
			score = fmax(score, (double)period / 1000.0 - runtime_us - e.cfs_min_us);
		if (i >= n && score < end_score) {
			end_score = score;
			at_end = e;
			end_phase = (double)phase;
		}
		if (score < best_score) {
			best_score = score;
			*best = e;
			*phase_ns = (double)phase;
		}
	}
	/*
	 * A throttle ends on the kernel's boundary: where a grid through a throttle's end is as
	 * good as the best (within a tick of accounting), it is the kernel's grid, and judged.
	 */
	if (end_score <= best_score + slack_us) {
		*best = at_end;
		*phase_ns = end_phase;
	}
	free(buf);
}

/* The longest span within both a gap of `a` and a gap of `b` (two sorted gap lists). */
static double common_gap_max_us(const struct gap_stats *a, const struct gap_stats *b)
{
	uint64_t best = 0;
	uint32_t j = 0;

	for (uint32_t i = 0; i < a->long_stored; i++) {
		uint64_t s = a->long_gaps[i].start_ns, e = s + a->long_gaps[i].len_ns;

		while (j < b->long_stored && b->long_gaps[j].start_ns + b->long_gaps[j].len_ns <= s)
			j++;
		for (uint32_t k = j; k < b->long_stored && b->long_gaps[k].start_ns < e; k++) {
			uint64_t s2 = b->long_gaps[k].start_ns, e2 = s2 + b->long_gaps[k].len_ns;
			uint64_t lo = s > s2 ? s : s2, hi = e < e2 ? e : e2;

			if (hi > lo && hi - lo > best)
				best = hi - lo;
		}
	}
	return best / 1000.0;
}

static double stall_max_us(const struct gap_stats *rt_gaps, const struct gap_stats *cfs_gaps, double threshold_us)
{
	double longest = 0;

	for (uint32_t i = 0; rt_gaps && i < rt_gaps->long_stored; i++)
		if (rt_gaps->long_gaps[i].len_ns / 1000.0 < threshold_us)
			longest = fmax(longest, rt_gaps->long_gaps[i].len_ns / 1000.0);
	if (rt_gaps && cfs_gaps)
		longest = fmax(longest, common_gap_max_us(rt_gaps, cfs_gaps));
	return longest;
}

/*
 * The most CPU time of `tl` in one period of the grid that may belong to the periods beside it:
 * at each boundary that between the readings around it, at least a sampling step's (the
 * interpolation's own error). A task kept off user space charged for a gap's interrupts (the
 * RT app's wake-ups under an emulator: ~28 ms in 1.7 s) cannot say in which period.
 */
static double placement_us(const struct cpu_timeline *tl, const struct bounds *b)
{
	double worst = 0, step = (double)tl->step_ns;

	for (int k = 0; k + 1 < b->n; k++)
		worst = fmax(worst, fmax(step, cpu_timeline_unplaced_at(tl, b->at[k])) +
					    fmax(step, cpu_timeline_unplaced_at(tl, b->at[k + 1])));
	return worst / 1000.0;
}

static double placement_on_grid(const struct cpu_timeline *tl, uint64_t phase, uint64_t period, uint64_t end)
{
	uint64_t *buf = malloc((size_t)(end / period + 2) * sizeof(uint64_t));
	struct bounds b;
	double worst;

	if (!buf)
		return INFINITY;	/* unknown: no check may lean on it */
	b = bounds_of_grid(phase, period, end, buf);
	worst = placement_us(tl, &b);
	free(buf);
	return worst;
}

/* The most RT ran in the tick before one of the kernel's boundaries (boundary_shift_us). */
static double boundary_run_us(const struct cpu_timeline *rt, const struct bounds *b, double tick_us)
{
	double worst = 0;

	for (int k = 0; k < b->n; k++)
		worst = fmax(worst, boundary_shift_us(rt, b->at[k], (uint64_t)(tick_us * 1000)));
	return worst;
}

/* Each whole period's RT and CFS time on the grid judged, for a reader to see where it broke. */
static json_object *periods_json(const struct cpu_timeline *rt, const struct cpu_timeline *cfs, const struct bounds *b)
{
	json_object *arr = json_object_new_array();

	for (int k = 0; k + 1 < b->n; k++) {
		json_object *o = json_object_new_object();

		json_add_double(o, "at_ms", round(b->at[k] / 1e3) / 1e3);
		if (rt)
			json_add_double(o, "rt_us", round(cpu_timeline_between(rt, b->at[k], b->at[k + 1]) / 100.0) / 10.0);
		if (cfs)
			json_add_double(o, "cfs_us", round(cpu_timeline_between(cfs, b->at[k], b->at[k + 1]) / 100.0) / 10.0);
		json_object_array_add(arr, o);
	}
	return arr;
}

static int ends_on_grid(const struct gap_stats *gaps, double threshold_us, uint64_t end, double phase_ns,
			uint64_t period, int *total)
{
	int on = 0;

	*total = 0;
	for (uint32_t i = 0; gaps && i < gaps->long_stored; i++) {
		const struct gap_event *g = &gaps->long_gaps[i];
		uint64_t at = g->start_ns + g->len_ns, off;

		if (g->len_ns / 1000.0 < threshold_us || !g->start_ns || at >= end)
			continue;
		off = (at + period - (uint64_t)phase_ns % period) % period;
		(*total)++;
		on += off <= ON_GRID_NS || period - off <= ON_GRID_NS;
	}
	return on;
}

void promise_measure(const struct promise_terms *t, const struct cpu_timeline *rt, const struct cpu_timeline *cfs,
		     const struct gap_stats *rt_gaps, const struct gap_stats *cfs_gaps, double throttle_threshold_us,
		     struct promise *p)
{
	uint64_t end = rt ? rt->end_ns : cfs ? cfs->end_ns : 0;
	struct grid_eval e;

	memset(p, 0, sizeof(*p));
	if (cfs && cfs->end_ns < end)
		end = cfs->end_ns;
	p->stall_max_us = stall_max_us(rt_gaps, cfs_gaps, throttle_threshold_us);
	p->rt_sample_us = rt ? rt->step_ns / 1000.0 : 0;
	p->cfs_sample_us = cfs ? cfs->step_ns / 1000.0 : 0;
	p->cfs_wait_max_us = cfs_gaps ? cfs_gaps->max_ns / 1000.0 : -1;
	p->cfs_timeline = cfs != NULL;
	if (t->rt_limit && (rt || (cfs && t->cfs_rest))) {
		uint64_t period = (uint64_t)t->period_us * 1000, whole_end = end;
		uint64_t *buf = NULL;
		struct bounds b;

		if (t->periods_end_us > 0 && t->periods_end_us * 1000 < (double)end)
			whole_end = (uint64_t)(t->periods_end_us * 1000);
		p->rt_measured = rt != NULL;
		if (t->kernel_bounds && t->kernel_bounds_ns[0] <= end) {
			/* The kernel's own boundaries: no search, and the part periods judged too. */
			b = (struct bounds){ t->kernel_bounds, t->kernel_bounds_ns };
			while (b.n && b.at[b.n - 1] > end)	/* past what the timelines know */
				b.n--;
			whole_end = end;
			eval_bounds(rt, t->cfs_rest ? cfs : NULL, &b, end, (double)t->runtime_us, (uint64_t)(t->tick_us * 1000),
				    t->partial_periods, t->disturbed, t->disturbed_count > 0 ? t->disturbed_count : 0, t, &e);
			p->censoring = t->disturbed_count >= 0;
			p->censored = e.censored;
			memcpy(p->censored_at, e.censored_at, sizeof(p->censored_at));
			p->kernel_grid = true;
			whole_span(rt, t->cfs_rest ? cfs : NULL, &b, t, p);
			p->phase_us = b.at[0] / 1000.0;
			p->boundary_run_us = rt ? boundary_run_us(rt, &b, t->tick_us) : 0;
		} else {
			best_grid(rt, t->cfs_rest ? cfs : NULL, period, whole_end, (double)t->runtime_us, rt ? rt_gaps : NULL,
				  throttle_threshold_us, t->tick_us, t, &e, &p->phase_us, &p->grid_step_us);
			buf = malloc((size_t)(whole_end / period + 2) * sizeof(uint64_t));
			b = buf ? bounds_of_grid((uint64_t)p->phase_us, period, whole_end, buf) : (struct bounds){ 0, NULL };
			p->phase_us /= 1000.0;
			p->grid_step_us /= 1000.0;
		}
		p->periods = e.periods;
		p->rt_period_max_us = e.rt_max_us;
		p->rt_period_top_us = e.rt_top_us;
		p->rt_budget_excess_us = e.rt_excess_us;
		p->worst_period_at_ms = e.worst_at_ns / 1e6;
		p->cfs_measured = t->cfs_rest && e.periods;
		p->cfs_period_min_us = p->cfs_measured ? e.cfs_min_us : 0;
		p->cfs_placement_us = p->cfs_measured && cfs ? placement_us(cfs, &b) : 0;
		p->throttle_ends_on_grid = ends_on_grid(rt_gaps, throttle_threshold_us, whole_end, p->phase_us * 1000.0, period,
							&p->throttle_ends);
		p->per_period = periods_json(rt, t->cfs_rest ? cfs : NULL, &b);
		free(buf);
		/* ... plus the tick that finds the overrun. */
		p->cfs_wait_bound_us = throttle_wait_bound_us((double)t->period_us, (double)(t->period_us - t->runtime_us),
							      t->tick_us) + t->tick_us;
	}
	/*
	 * The server's own period straddling the window start may have been spent before it (CFS
	 * ran freely while the tasks set up): only a window of two of its periods holds a whole one
	 * after a replenishment, whatever its phase.
	 */
	if (t->fair_server && cfs && t->fs_period_us > 0 && end >= 2 * (uint64_t)t->fs_period_us * 1000 - FS_WINDOW_SLACK_NS) {
		double bound = 2.0 * (double)(t->fs_period_us - t->fs_runtime_us) + t->tick_us;

		best_grid(NULL, cfs, (uint64_t)t->fs_period_us * 1000, end, (double)t->fs_runtime_us, NULL, 0, 0, t, &e,
			  &p->fs_phase_us, &p->fs_grid_step_us);
		p->fs_periods = e.periods;
		p->fs_phase_us /= 1000.0;
		p->fs_grid_step_us /= 1000.0;
		p->fs_cfs_period_min_us = e.periods ? e.cfs_min_us : 0;
		p->fs_placement_us = e.periods ? placement_on_grid(cfs, (uint64_t)(p->fs_phase_us * 1000.0),
								   (uint64_t)t->fs_period_us * 1000, end) : 0;
		if (!p->cfs_wait_bound_us || bound < p->cfs_wait_bound_us)
			p->cfs_wait_bound_us = bound;
	}
}

/*
 * A figure the censored periods took away: its stand-in (the share between the task's own
 * throttle ends, say) is dropped too, and `<metric>_unmeasured` says why, so no check falls
 * back on a span the trace saw disturbed.
 */
static void censored_away(json_object *metrics, const char *metric, const struct promise *p, const char *what)
{
	char key[80], why[200];

	if (!metrics)
		return;
	json_object_object_del(metrics, metric);
	snprintf(key, sizeof(key), "%s_unmeasured", metric);
	snprintf(why, sizeof(why), "censored: %s touches a period the trace saw disturbed (%d left out)", what,
		 p->censored);
	json_add_str(metrics, key, why);
}

/*
 * The task's own span of periods (between its throttle ends, metrics.c: the stand-in where the
 * kernel's grid holds no whole span), from the window start; false when it has none.
 */
static bool own_span(json_object *metrics, uint64_t *from, uint64_t *to)
{
	json_object *at, *span;

	if (!metrics || !json_object_object_get_ex(metrics, "periods_from_s", &at) ||
	    !json_object_object_get_ex(metrics, "periods_span_s", &span))
		return false;
	*from = (uint64_t)(json_object_get_double(at) * 1e9);
	*to = *from + (uint64_t)(json_object_get_double(span) * 1e9);
	return true;
}

/* Whether that span touches a period the trace saw disturbed. */
static bool own_span_disturbed(const struct promise_terms *t, json_object *metrics)
{
	uint64_t from, to;

	return t->disturbed_count > 0 && own_span(metrics, &from, &to) &&
	       worst_disturbance(t->disturbed, t->disturbed_count, t->disturbed_from_us, from, to);
}

/* The holds below the threshold in a share's span: its tolerance allows what they took. */
static void add_held(const struct promise_terms *t, const struct promise *p, json_object *metrics)
{
	uint64_t from, to;

	if (!metrics || !json_object_object_get_ex(metrics, "cpu_share_periods", NULL))
		return;
	if (p->kernel_grid && p->whole_us > 0)
		json_add_double(metrics, "periods_held_us", p->whole_held_us);
	else if (t->disturbed_count > 0 && own_span(metrics, &from, &to))
		json_add_double(metrics, "periods_held_us", held_us(t, from, to));
}

/*
 * The lowest censoring threshold (how late a held-back tick must be to leave its period out)
 * that keeps the window judged: at least half its periods, and a span of whole periods where
 * the window holds one. An emulator holds the tick back 0.5-4 ms several times a second: a
 * 1 ms hold in a 1 s period is judged (the threshold enters the tolerances as
 * tick_late_judged_us, and a share's span allows its shorter holds, periods_held_us) rather
 * than every period censored.
 */
void promise_measure_censored(struct promise_terms *terms, const struct cpu_timeline *rt, const struct cpu_timeline *cfs,
			      const struct gap_stats *rt_gaps, const struct gap_stats *cfs_gaps,
			      double throttle_threshold_us, json_object *rt_metrics, json_object *cfs_metrics,
			      struct promise *out)
{
	const double most = terms->tick_us / 2, steps[] = { 1000, 2000, most };
	double ladder[4] = { terms->disturbed_from_us };
	size_t n = 1;

	/*
	 * Ascending, above the listing threshold, at most half a tick (a budget over two periods
	 * allows a tick and the threshold: past half a tick it would allow the two ticks an
	 * overrun in each period is); only where something was listed.
	 */
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && terms->disturbed_count > 0; i++)
		if (steps[i] > ladder[n - 1] && steps[i] <= most)
			ladder[n++] = steps[i];
	for (size_t i = 0; i < n; i++) {
		terms->disturbed_from_us = ladder[i];
		promise_measure(terms, rt, cfs, rt_gaps, cfs_gaps, throttle_threshold_us, out);
		if (i + 1 == n || (!out->whole_disturbed && out->periods * 2 >= out->periods + out->censored &&
				   !(out->kernel_grid && out->whole_us <= 0 &&
				     (own_span_disturbed(terms, rt_metrics) || own_span_disturbed(terms, cfs_metrics)))))
			return;
		promise_release(out);
	}
}

void promise_add_metrics(const struct promise_terms *t, const struct promise *p, json_object *rt_metrics,
			 json_object *cfs_metrics)
{
	bool share_censored = p->kernel_grid && p->whole_us <= 0 &&
			      (p->whole_disturbed || own_span_disturbed(t, rt_metrics) || own_span_disturbed(t, cfs_metrics));

	/*
	 * Only what was measured over at least one whole period, or on the kernel's grid a part
	 * one: no check judges a placeholder.
	 */
	if (t->rt_limit && p->rt_measured && (p->periods || (p->kernel_grid && t->partial_periods)) && rt_metrics) {
		json_add_int(rt_metrics, "rt_periods", p->periods);
		json_add_double(rt_metrics, "rt_period_max_us", p->rt_period_max_us);
		/* A floor on the most RT got needs a whole period. */
		if (p->periods)
			json_add_double(rt_metrics, "rt_period_top_us", p->rt_period_top_us);
		if (isfinite(p->rt_budget_excess_us))
			json_add_double(rt_metrics, "rt_budget_excess_us", p->rt_budget_excess_us);
		else if (p->censored)
			censored_away(rt_metrics, "rt_budget_excess_us", p, "every period, whole or part,");
		/*
		 * The share over whole periods, on the kernel's grid: the periods the kernel refilled
		 * RT in, not the span between throttle ends, which a fair server's slot (on its own,
		 * longer period) moves off the period boundaries.
		 */
		if (p->kernel_grid && p->whole_us > 0 && rt_metrics) {
			json_add_double(rt_metrics, "cpu_share_periods", p->whole_rt_us / p->whole_us);
			json_add_double(rt_metrics, "periods_span_s", p->whole_us / 1e6);
			json_add_str(rt_metrics, "cpu_share_periods_from", "the kernel's period grid");
		} else if (share_censored) {
			censored_away(rt_metrics, "cpu_share_periods", p, "the span of periods it is taken over");
			json_object_object_del(rt_metrics, "periods_span_s");
			json_object_object_del(rt_metrics, "periods_from_s");
		}
		json_add_double(rt_metrics, "grid_phase_us", p->phase_us);
		json_add_double(rt_metrics, "grid_step_us", p->grid_step_us);
		json_add_int(rt_metrics, "grid_searched", !p->kernel_grid);
		json_add_int(rt_metrics, "censored_periods", p->censored);
		/*
		 * How late the tick may have come in the periods judged: below the listing threshold
		 * where the disturbed ones were left out, else the window's worst (-1: the caller's).
		 */
		json_add_double(rt_metrics, "tick_late_judged_us", p->censoring ? t->disturbed_from_us : -1);
		json_add_double(rt_metrics, "boundary_run_us", p->boundary_run_us);
		json_add_double(rt_metrics, "stall_max_us", p->stall_max_us);
		json_add_int(rt_metrics, "throttle_ends_on_grid", p->throttle_ends_on_grid);
		/* Not sampled (a record of gap ends only): no bound on the error, so no figure to name. */
		if (p->rt_sample_us > 0)
			json_add_double(rt_metrics, "cpu_sample_us", p->rt_sample_us);
	}
	/* Every period the checks could judge was censored: say so, so no check reads a blank. */
	if (t->rt_limit && p->rt_measured && !p->periods && !(p->kernel_grid && t->partial_periods) && p->censored &&
	    rt_metrics) {
		censored_away(rt_metrics, "rt_budget_excess_us", p, "every whole period");
		censored_away(rt_metrics, "rt_period_top_us", p, "every whole period");
	}
	if (t->rt_limit && t->cfs_rest && p->cfs_timeline && !p->periods && p->censored && cfs_metrics)
		censored_away(cfs_metrics, "cfs_period_min_us", p, "every whole period");
	if ((p->cfs_measured || p->fs_periods) && cfs_metrics) {
		json_add_double(cfs_metrics, "stall_max_us", p->stall_max_us);
		if (p->cfs_sample_us > 0)
			json_add_double(cfs_metrics, "cpu_sample_us", p->cfs_sample_us);
	}
	if (p->cfs_measured && cfs_metrics && p->kernel_grid && p->whole_us > 0) {
		json_add_double(cfs_metrics, "cpu_share_periods", p->whole_cfs_us / p->whole_us);
		json_add_double(cfs_metrics, "periods_span_s", p->whole_us / 1e6);
		json_add_str(cfs_metrics, "cpu_share_periods_from", "the kernel's period grid");
	} else if (share_censored && p->cfs_timeline && cfs_metrics) {
		censored_away(cfs_metrics, "cpu_share_periods", p, "the span of periods it is taken over");
		json_object_object_del(cfs_metrics, "periods_span_s");
		json_object_object_del(cfs_metrics, "periods_from_s");
	}
	/* How many whole periods the CFS task's rest was judged over (0: none on the kernel's grid). */
	if (t->rt_limit && t->cfs_rest && cfs_metrics && p->cfs_timeline)
		json_add_int(cfs_metrics, "cfs_periods", p->cfs_measured ? p->periods : 0);
	if (p->cfs_measured && cfs_metrics)
	{
		json_add_double(cfs_metrics, "cfs_period_min_us", p->cfs_period_min_us);
		json_add_double(cfs_metrics, "cfs_grid_step_us", p->grid_step_us);
		json_add_double(cfs_metrics, "cfs_placement_us", p->cfs_placement_us);
		/* Its rest, too, is judged only in the periods the trace saw no held-back tick in. */
		json_add_double(cfs_metrics, "tick_late_judged_us", p->censoring ? t->disturbed_from_us : -1);
	}
	/* The other CFS tasks' time was counted in each period where the trace placed it. */
	if ((p->cfs_measured || p->fs_periods) && cfs_metrics) {
		json_add_int(cfs_metrics, "others_placed", t->others_count >= 0);
	}
	if (t->fair_server && p->fs_periods && cfs_metrics) {
		json_add_int(cfs_metrics, "fs_periods", p->fs_periods);
		json_add_double(cfs_metrics, "fs_period_min_us", p->fs_cfs_period_min_us);
		json_add_double(cfs_metrics, "fs_grid_step_us", p->fs_grid_step_us);
		json_add_double(cfs_metrics, "fs_placement_us", p->fs_placement_us);
	}
	add_held(t, p, rt_metrics);
	add_held(t, p, cfs_metrics);
}

void promise_release(struct promise *p)
{
	json_object_put(p->per_period);
	p->per_period = NULL;
}

/* The `censored` block: periods left out and why, or why none could be. */
static json_object *censored_json(const struct promise_terms *t, const struct promise *p)
{
	json_object *obj = json_object_new_object(), *arr;
	char why[120];

	if (!p->censoring) {
		json_add_str(obj, "none_because", "the trace lists no held-back ticks (not traced, or more than it lists)");
		return obj;
	}
	arr = json_object_new_array();
	json_add_int(obj, "periods", p->censored);
	json_add_double(obj, "tick_late_from_us", t->disturbed_from_us);
	for (int i = 0; i < p->censored && i < CENSORED_LISTED; i++) {
		json_object *o = json_object_new_object();

		json_add_double(o, "from_ms", round(p->censored_at[i].from_ns / 1e3) / 1e3);
		json_add_double(o, "to_ms", round(p->censored_at[i].to_ns / 1e3) / 1e3);
		disturbance_why(&p->censored_at[i], why, sizeof(why));
		json_add_str(o, "why", why);
		json_object_array_add(arr, o);
	}
	json_object_object_add(obj, "at", arr);
	return obj;
}

json_object *promise_to_json(const struct promise_terms *t, struct promise *p, int kept)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "promised", t->why);
	json_object_object_add(obj, "kept", kept < 0 ? NULL : json_object_new_boolean(kept));
	json_add_int64(obj, "runtime_us", t->runtime_us);
	json_add_int64(obj, "period_us", t->period_us);
	if (t->rt_limit && t->periods_end_us > 0) {
		json_add_double(obj, "periods_end_ms", t->periods_end_us / 1000);
		json_add_str(obj, "periods_end_why", "the RT period timer's grid after the window lay more than a tick off "
			     "the firing its end was cut before (aligned_end): the kernel's last period ran past the end, so "
			     "whole periods end at its last boundary inside the window");
	}
	if (t->rt_limit) {
		json_add_int(obj, "periods", p->periods);
		json_add_str(obj, "grid", p->kernel_grid ? "kernel" : "searched");
		if (t->grid_why[0])
			json_add_str(obj, "grid_why", t->grid_why);
		json_add_double(obj, "grid_phase_us", p->phase_us);
		json_add_double(obj, "grid_step_us", p->grid_step_us);
		if (p->kernel_grid) {
			json_add_bool(obj, "partial_periods_judged", t->partial_periods);
			json_add_double(obj, "boundary_run_us", p->boundary_run_us);
			json_object_object_add(obj, "censored", censored_json(t, p));
		}
	}
	if (t->rt_limit && p->rt_measured) {
		json_add_int(obj, "throttle_ends", p->throttle_ends);
		json_add_int(obj, "throttle_ends_on_grid", p->throttle_ends_on_grid);
		json_add_double(obj, "rt_period_max_us", p->rt_period_max_us);
		json_add_double(obj, "rt_period_top_us", p->rt_period_top_us);
		json_add_double(obj, "rt_budget_excess_us", p->rt_budget_excess_us);
		json_add_double(obj, "worst_period_at_ms", p->worst_period_at_ms);
		json_add_double(obj, "stall_max_us", p->stall_max_us);
		json_add_double(obj, "rt_cpu_sample_us", p->rt_sample_us);
	}
	if (p->per_period) {
		json_object_object_add(obj, "per_period", p->per_period);
		p->per_period = NULL;
	}
	if (p->cfs_measured) {
		json_add_double(obj, "cfs_period_min_us", p->cfs_period_min_us);
		json_add_double(obj, "cfs_period_floor_us", (double)(t->period_us - t->runtime_us));
	}
	if (t->fair_server) {
		json_object *fs = json_object_new_object();

		json_add_int64(fs, "runtime_us", t->fs_runtime_us);
		json_add_int64(fs, "period_us", t->fs_period_us);
		json_add_int(fs, "periods", p->fs_periods);
		json_add_double(fs, "grid_phase_us", p->fs_phase_us);
		json_add_double(fs, "cfs_period_min_us", p->fs_cfs_period_min_us);
		json_object_object_add(obj, "fair_server", fs);
	}
	if (p->cfs_wait_bound_us > 0)
		json_add_double(obj, "cfs_wait_bound_us", p->cfs_wait_bound_us);
	if (p->cfs_wait_max_us >= 0)
		json_add_double(obj, "cfs_wait_max_us", p->cfs_wait_max_us);
	return obj;
}
