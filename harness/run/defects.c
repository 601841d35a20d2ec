// SPDX-License-Identifier: GPL-2.0-only
/* Defects put into a recorded window, period by period on the kernel's grid (defects.h). */
#include "defects.h"
#include "cpu_timeline.h"
#include "kernel_grid.h"
#include "kernel_model.h"
#include "policy.h"
#include "timeline_shift.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static const struct defect defects[] = {
	{ "rt-short-5pct", DEFECT_RT_SHORT, 0.05, "hog.rt_period_top_us",
	  "RT throttled 5% of the period early in every period (a 90% app under 95% gets 90%)" },
	{ "late-2-ticks", DEFECT_LATE, 2, "hog.rt_budget_excess_us", "the throttle 2 ticks late in every period" },
	{ "late-3-ticks", DEFECT_LATE, 3, "hog.rt_budget_excess_us", "the throttle 3 ticks late in every period" },
	{ "late-5-ticks", DEFECT_LATE, 5, "hog.rt_budget_excess_us", "the throttle 5 ticks late in every period" },
	{ "late-2-ticks-carried", DEFECT_LATE_CARRIED, 2, "hog.rt_budget_excess_us",
	  "the throttle 2 ticks late, the overrun charged to the next period (late, early, late, ...)" },
	{ "late-3-ticks-carried", DEFECT_LATE_CARRIED, 3, "hog.rt_budget_excess_us",
	  "the throttle 3 ticks late, the overrun charged to the next period" },
	{ "late-5-ticks-carried", DEFECT_LATE_CARRIED, 5, "hog.rt_budget_excess_us",
	  "the throttle 5 ticks late, the overrun charged to the next period" },
	{ "missed-throttle", DEFECT_MISSED, 0, "hog.rt_budget_excess_us,victim.cfs_period_min_us",
	  "no throttle in one period: RT runs through CFS's slot" },
	{ "slot-withheld-20ms", DEFECT_SLOT_WITHHELD, 20, "hog.rt_budget_excess_us,victim.cfs_period_min_us",
	  "one period's CFS slot 20 ms short: RT runs into it" },
	{ "cfs-slot-halved", DEFECT_SLOT_HALVED, 0, "victim.cfs_period_min_us",
	  "CFS's slot in every period half as long (the fair server's where it serves first)" },
	{ "period-5pct-long", DEFECT_WRONG_PERIOD, 0.05, "hog.rt_timer_drift_us",
	  "RT refilled every 1.05 periods: the period timer, and RT's runtime, on a wrong period" },
	{ "fair-server-halved", DEFECT_FS_SHORT, 0.5, "victim.fs_period_min_us",
	  "RT unthrottled (-1): the fair server serves CFS half its runtime" },
};

#define DEFECT_COUNT (sizeof(defects) / sizeof(defects[0]))

const struct defect *defect_table(size_t *count)
{
	*count = DEFECT_COUNT;
	return defects;
}

const struct defect *defect_find(const char *name)
{
	for (size_t i = 0; i < DEFECT_COUNT; i++)
		if (!strcmp(defects[i].name, name))
			return &defects[i];
	return NULL;
}

void defect_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < DEFECT_COUNT && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", defects[i].name);
}

void defect_list(FILE *out)
{
	for (size_t i = 0; i < DEFECT_COUNT; i++)
		fprintf(out, "%-22s %s\n%-22s caught by: %s\n", defects[i].name, defects[i].doc, "", defects[i].catches);
}

/* The first task of a role on the CPU, RT or CFS as asked; -1 when none. */
static int task_on(const struct window_shm *shm, enum task_role role, int cpu, bool rt)
{
	for (int i = 0; i < shm->task_count && i < TASKS_MAX; i++) {
		const struct task_config *c = &shm->task[i].config;

		if (c->role == role && c->cpu == cpu && task_config_is_rt(c) == rt && !c->cgroup[0])
			return i;
	}
	return -1;
}

/* When the task's CPU since `from` reached `amount` (ns), searched up to `to`; `to` when it never did. */
static uint64_t reaches(const struct cpu_timeline *tl, uint64_t from, uint64_t to, double amount)
{
	uint64_t lo = from, hi = to;

	if (cpu_timeline_between(tl, from, to) < amount)
		return to;
	while (hi - lo > 1000) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (cpu_timeline_between(tl, from, mid) >= amount)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

struct defect_spans {
	struct shift_span on[SHIFT_SPANS_MAX], off[SHIFT_SPANS_MAX];	/* the hog's: on runs, off does not */
	int on_count, off_count;
};

static void span_push(struct shift_span *list, int *count, uint64_t from, uint64_t to)
{
	if (to > from && *count < SHIFT_SPANS_MAX)
		list[(*count)++] = (struct shift_span){ from, to };
}

/* obj[key]: [from_ms, to_ms] of each span. */
static void spans_json(json_object *obj, const char *key, const struct shift_span *s, int n)
{
	json_object *arr = json_object_new_array();

	json_object_object_add(obj, key, arr);
	for (int i = 0; i < n; i++) {
		json_object *pair = json_object_new_array();

		json_object_array_add(pair, json_object_new_double(s[i].from_ns / 1e6));
		json_object_array_add(pair, json_object_new_double(s[i].to_ns / 1e6));
		json_object_array_add(arr, pair);
	}
}

/* One period of the kernel's grid, as the hog ran it. */
struct grid_period {
	uint64_t from, to;
	double ran_ns;		/* the hog's CPU in it */
	uint64_t slot_from, slot_to;	/* its longest gap in the period (clipped), 0 0: none */
};

static void longest_gap_in(const struct gap_stats *g, struct grid_period *p)
{
	for (uint32_t i = 0; i < g->long_stored; i++) {
		uint64_t from = g->long_gaps[i].start_ns, to = from + g->long_gaps[i].len_ns;

		from = from > p->from ? from : p->from;
		to = to < p->to ? to : p->to;
		if (to > from && to - from > p->slot_to - p->slot_from)
			p->slot_from = from, p->slot_to = to;
	}
}

/* min(a + len, cap) */
static uint64_t capped(uint64_t a, double len, uint64_t cap)
{
	return a + (uint64_t)len < cap ? a + (uint64_t)len : cap;
}

/*
 * What the defect changes in period p (the k-th it applies to, of n). A throttle slot is the
 * hog's longest gap when it ends at the period's end (within a tick): where the fair server's
 * slot came first, RT reached its runtime only at the boundary and no throttle acted, so a
 * defect of the throttle has nothing to change there. False: the defect does not apply here.
 */
static bool defect_period(const struct defect *d, const struct grid_period *p, int k, int n,
			  const struct cpu_timeline *tl, double period_ns, double tick_ns, struct defect_spans *sp)
{
	bool throttled = p->slot_to > p->slot_from && p->slot_to + tick_ns >= p->to;

	switch (d->kind) {
	case DEFECT_RT_SHORT:
		span_push(sp->off, &sp->off_count, reaches(tl, p->from, p->to, p->ran_ns - d->size * period_ns), p->to);
		return true;
	case DEFECT_SLOT_HALVED:
		if (p->slot_to - p->slot_from < 2 * tick_ns)
			return false;
		span_push(sp->on, &sp->on_count, p->slot_from, p->slot_from + (p->slot_to - p->slot_from) / 2);
		return true;
	case DEFECT_LATE_CARRIED:
		if (!throttled)
			return false;
		if (k % 2) {
			span_push(sp->off, &sp->off_count, reaches(tl, p->from, p->to, p->ran_ns - d->size * tick_ns),
				  p->slot_from);
			return true;
		}
		__attribute__((fallthrough));	/* the even periods overrun */
	case DEFECT_LATE:
		if (!throttled)
			return false;
		span_push(sp->on, &sp->on_count, p->slot_from, capped(p->slot_from, d->size * tick_ns, p->to));
		return true;
	case DEFECT_WRONG_PERIOD:
	case DEFECT_FS_SHORT:
		return false;	/* of the whole window: wrong_period(), fair_server_short() */
	case DEFECT_MISSED:
	case DEFECT_SLOT_WITHHELD:
		if (!throttled)
			return false;
		if (k == n / 2)
			span_push(sp->on, &sp->on_count, p->slot_from,
				  d->kind == DEFECT_MISSED ? p->to : capped(p->slot_from, d->size * 1e6, p->to));
		return true;
	}
	return false;
}

/*
 * RT refilled on a (1 + size) period grid from the first firing in the window: the hog runs its
 * runtime after each refill and waits for the next; the traced firings move onto that grid.
 */
static bool wrong_period(const struct defect *d, struct record_window_view *w, const struct cpu_timeline *tl,
			 double runtime_ns, double period_ns, struct defect_spans *sp, char *why, size_t why_len)
{
	json_object *timer, *fired, *at, *moved;
	double first = -1, last = 0, every = (1 + d->size) * period_ns;

	if (!json_object_object_get_ex(w->trace, "rt_timer", &timer) ||
	    !json_object_object_get_ex(timer, "fired_at_ms", &fired) || json_object_array_length(fired) != 1) {
		snprintf(why, why_len, "the trace holds no one RT period timer to move");
		return false;
	}
	at = json_object_array_get_idx(fired, 0);
	moved = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(at); i++) {
		double ns = json_object_get_double(json_object_array_get_idx(at, i)) * 1e6;

		if (ns <= 0)
			json_object_array_add(moved, json_object_new_double(ns / 1e6));
		else if (first < 0)
			first = ns;
		last = ns;
	}
	if (first < 0 || first + every >= (double)tl->end_ns) {
		json_object_put(moved);
		snprintf(why, why_len, "no refill of RT a whole period before the window's end to move");
		return false;
	}
	for (double at_ns = first; at_ns <= fmax(last, (double)tl->end_ns); at_ns += every) {
		uint64_t from = (uint64_t)at_ns, ran = capped(from, runtime_ns, tl->end_ns);

		json_object_array_add(moved, json_object_new_double(at_ns / 1e6));
		span_push(sp->on, &sp->on_count, from, ran);
		span_push(sp->off, &sp->off_count, ran, capped(from, every, tl->end_ns));
	}
	json_object_array_put_idx(fired, 0, moved);
	return true;
}

/* The fair server's slots (the hog's gaps of two ticks or more) `size` as long: RT runs the rest. */
static bool fair_server_short(const struct defect *d, struct record_window_view *w, const struct gap_stats *g,
			      double tick_ns, struct defect_spans *sp, char *why, size_t why_len)
{
	if (!w->model->fair_server || w->model->fs_runtime_us <= 0 || w->model->fs_runtime_us >= w->model->fs_period_us) {
		snprintf(why, why_len, "no fair server serves CFS here");
		return false;
	}
	for (uint32_t i = 0; i < g->long_stored; i++) {
		uint64_t from = g->long_gaps[i].start_ns, len = g->long_gaps[i].len_ns;

		if ((double)len >= 2 * tick_ns)
			span_push(sp->on, &sp->on_count, from, from + (uint64_t)((double)len * (1 - d->size)));
	}
	if (!sp->on_count)
		snprintf(why, why_len, "the hog has no gap of two ticks: no fair-server slot to shorten");
	return sp->on_count > 0;
}

bool defect_apply(struct record_window_view *w, const void *arg, char *why, size_t why_len)
{
	const struct defect *d = arg;
	int hog = task_on(w->shm, ROLE_HOG, w->cpu, true), victim = task_on(w->shm, ROLE_VICTIM, w->cpu, false);
	struct cpu_timeline *tl = malloc(sizeof(*tl));
	struct defect_spans *sp = calloc(1, sizeof(*sp));
	struct grid_period *periods = NULL;
	uint64_t *bounds = NULL;
	double runtime_ns = (double)w->policy->runtime_us * 1000, period_ns = (double)w->policy->period_us * 1000;
	double tick_ns = w->model->tick_us * 1000;
	int n = 0, whole = 0, applied = 0;
	bool ok = false;

	if (!tl || !sp) {
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	if (hog < 0) {
		snprintf(why, why_len, "no FIFO hog on the measured CPU");
		goto out;
	}
	if (d->kind == DEFECT_FS_SHORT) {
		if (w->policy->runtime_us >= 0 && w->policy->runtime_us < w->policy->period_us) {
			snprintf(why, why_len, "the policy throttles RT: the fair server is not the only limit");
			goto out;
		}
		if (!fair_server_short(d, w, &w->shm->task[hog].gaps, tick_ns, sp, why, why_len))
			goto out;
		goto shift;
	}
	if (w->policy->runtime_us < 0 || w->policy->runtime_us >= w->policy->period_us) {
		snprintf(why, why_len, "the policy leaves RT unthrottled: no throttle to move");
		goto out;
	}
	if (!cpu_timeline_build(&w->shm->task[hog], tl)) {
		snprintf(why, why_len, "the hog has no CPU-clock timeline");
		goto out;
	}
	if (d->kind == DEFECT_WRONG_PERIOD) {
		if (!wrong_period(d, w, tl, runtime_ns, period_ns, sp, why, why_len))
			goto out;
		goto shift;
	}
	if ((n = kernel_grid_bounds(w->trace, (uint64_t)period_ns, tl->end_ns, &bounds, why, why_len)) < 2) {
		if (n == 1)
			snprintf(why, why_len, "no whole period of the kernel's grid in the window");
		goto out;
	}
	/* The periods in which RT ran its runtime (to two ticks): a spinning hog, held by the limit. */
	periods = calloc((size_t)n, sizeof(*periods));
	for (int i = 0; periods && i + 1 < n; i++) {
		struct grid_period p = { bounds[i], bounds[i + 1], cpu_timeline_between(tl, bounds[i], bounds[i + 1]), 0, 0 };

		if (p.ran_ns < runtime_ns - 2 * tick_ns)
			continue;
		longest_gap_in(&w->shm->task[hog].gaps, &p);
		periods[whole++] = p;
	}
	for (int k = 0; k < whole; k++)
		applied += defect_period(d, &periods[k], applied, whole, tl, period_ns, tick_ns, sp);
	if (!applied || (!sp->on_count && !sp->off_count)) {
		snprintf(why, why_len, "%d whole periods with RT at its runtime, none with %s", whole,
			 d->kind == DEFECT_SLOT_HALVED ? "a CFS slot" : "RT throttled before the period's end");
		goto out;
	}
shift:
	spans_json(w->changed, "rt_runs", sp->on, sp->on_count);
	spans_json(w->changed, "rt_idle", sp->off, sp->off_count);
	/* What the hog gains the CFS task loses, and the other way round. */
	if (!timeline_shift(&w->shm->task[hog], sp->on, sp->on_count, sp->off, sp->off_count) ||
	    (victim >= 0 && !timeline_shift(&w->shm->task[victim], sp->off, sp->off_count, sp->on, sp->on_count))) {
		snprintf(why, why_len, "the changed timeline does not fit the record");
		goto out;
	}
	ok = true;
out:
	free(periods);
	free(bounds);
	free(tl);
	free(sp);
	return ok;
}
