// SPDX-License-Identifier: GPL-2.0-only
/* Checks evaluated with this case's model quantities; a pass whose tolerance could not fail is unjudged. */
#include "judge.h"
#include "expr.h"
#include "scenario_task.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

/* What one expression may name, and what it is evaluated against. */
struct lookup_ctx {
	const struct judge_context *jc;
	const struct scenario *s;
	int task;		/* the check's task */
	const char *used_metric;	/* the metric the check ended up judging */
	bool validating;	/* load time: names are checked, values are placeholders */
};

static const char *const quantities[] = {
	"rt_share", "cfs_share", "slot_us", "limit_interval_us", "rt_run_us", "slots_in_window", "limited",
	"rt_share_alone", "policy_runtime_us", "policy_period_us", "window_us", "window_s", "tick_us", "time_tol",
	"share_tol", "max_slot_us", "share_band", "noise_gap_max_us", "noise_loss", "steal_us", "cgroup_rt_share", "cgroup_rt_runtime_us",
	"fair_server", "fs_runtime_us", "fs_period_us", "fs_interleaves", "tick_coarse", "cfs_wait_bound_us",
	"tick_stretch", "fs_periods_in_window", "others_us", "few_intervals", "noise_loss_wall",
	"fs_others_us", "fs_band",
};

/* The trace block's figures an expression may name as `trace.NAME` (results/README.md, `trace`). */
static const char *const trace_figures[] = {
	"events", "events_lost", "gaps_unresolved", "gap_count", "gap_total_us", "gap_max_us", "throttle_events",
	"gap_share.cfs", "gap_share.idle", "gap_share.kthread", "gap_share.rt",
};

static bool is_trace_figure(const char *name)
{
	if (strncmp(name, "trace.", 6))
		return false;
	for (size_t i = 0; i < sizeof(trace_figures) / sizeof(trace_figures[0]); i++)
		if (!strcmp(name + 6, trace_figures[i]))
			return true;
	return false;
}

/*
 * CPU time other tasks took on the measured CPU during the window (they share CFS's rest with
 * the victim); where the kernel does not report it, the noise floor's wall-time loss over the
 * window, which counts interrupts too and so errs wide.
 */
static double others_us(const struct judge_context *jc)
{
	return jc->others_us >= 0 ? jc->others_us : jc->noise->loss_share * jc->window_s * 1e6;
}

static double window_share_tol(const struct judge_context *jc)
{
	const double window_us = jc->window_s * 1e6, tick = jc->model->tick_us;
	const struct limiter *l = jc->limiter;
	/* The machine's noise and the steal during the window, plus accounting rounding. */
	double tol = jc->noise->cpu_loss_share + (jc->steal_us + others_us(jc)) / window_us + 0.002;

	/* A tick of accounting at each edge; a window in arbitrary phase may hold a slot more or less at each end. */
	return tol + 2 * tick / window_us + (l->limited ? 2 * l->gap_us / window_us : 0);
}

/* A CFS task on the measured CPU: what the fair server serves. */
static bool has_cfs_task(const struct scenario *s)
{
	for (int i = 0; i < s->task_count; i++)
		if (s->tasks[i].sched_policy == SCHED_OTHER && s->tasks[i].cpu == CPU_MEASURED)
			return true;
	return false;
}

/*
 * Whether the fair server may cut in between RT throttling's slots, so that event counts,
 * intervals and medians depend on how the two phases meet (measured on 6.18: at 475000/500000
 * one 52 ms slot a second replaced two 25 ms ones). It stays out only when RT throttling alone
 * gives CFS the server's runtime within any span the server defers for (its period less its
 * runtime), counting each slot a tick short (the throttle lands on a tick).
 */
static bool fair_server_interleaves(const struct judge_context *jc)
{
	const struct kernel_model *km = jc->model;
	double P = (double)jc->policy->period_us, R = (double)jc->policy->runtime_us, tick = km->tick_us;
	double span = (double)(km->fs_period_us - km->fs_runtime_us), cfs;

	if (!km->fair_server || !has_cfs_task(jc->scenario))
		return false;
	if (jc->limiter->regime != REGIME_CLASSIC)
		return false;	/* alone, the fair server's slots are regular */
	cfs = floor(span / P) * fmax(0, P - R - tick) + fmax(0, fmod(span, P) - R - tick);
	return cfs < (double)km->fs_runtime_us;
}

/*
 * Where the fair server interleaves with classic throttling, RT's share lies in a band: at most
 * what the lower of the two limits leaves it, at least the policy's ratio less the fair server's
 * share, when the server's slots miss the throttle's (its period runs out of phase with the RT
 * timer; measured on 6.18: an 83 ms gap, the 50 ms throttle slot then 33 ms of the server's).
 * The band's width is the smaller of the two limits' CFS shares; 0 where no band applies or
 * the limiter already spreads one (share_band).
 */
static double fs_band(const struct judge_context *jc)
{
	const struct kernel_model *km = jc->model;
	const struct policy *p = jc->policy;

	if (!fair_server_interleaves(jc) || jc->limiter->share_band > 0 || km->fs_period_us <= 0 || p->period_us <= 0)
		return 0;
	return fmin((double)km->fs_runtime_us / km->fs_period_us, 1.0 - (double)p->runtime_us / p->period_us);
}

static double metric_value(json_object *metrics, const char *path, bool *found)
{
	char key[64];
	const char *dot = strchr(path, '.');
	json_object *v;

	*found = false;
	if (!metrics)
		return 0;
	if (dot) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		if (!json_object_object_get_ex(metrics, key, &v))
			return 0;
		return metric_value(v, dot + 1, found);
	}
	if (!json_object_object_get_ex(metrics, path, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return 0;
	*found = true;
	return json_object_get_double(v);
}

static bool quantity(const struct lookup_ctx *lc, const char *name, double *v)
{
	const struct judge_context *jc = lc->jc;
	const struct limiter *l = jc->limiter;
	const double window_us = jc->window_s * 1e6;

	if (!strcmp(name, "rt_share"))
		*v = l->hog_share;
	else if (!strcmp(name, "cfs_share"))
		*v = 1 - l->hog_share;
	else if (!strcmp(name, "slot_us"))
		*v = l->gap_us;
	else if (!strcmp(name, "max_slot_us"))
		*v = l->max_slot_us;
	else if (!strcmp(name, "share_band"))
		*v = l->share_band;
	else if (!strcmp(name, "limit_interval_us"))
		*v = l->interval_us;
	else if (!strcmp(name, "rt_run_us"))
		*v = l->interval_us - l->gap_us;
	else if (!strcmp(name, "slots_in_window"))
		*v = l->interval_us > 0 ? round(window_us / l->interval_us) : 0;
	else if (!strcmp(name, "limited"))
		*v = l->limited;
	else if (!strcmp(name, "rt_share_alone"))
		/* Alone, RT throttling idles the CPU; a fair server has no CFS task to serve. */
		*v = l->regime == REGIME_CLASSIC || l->regime == REGIME_TIMERS_STARVED
			     ? (double)jc->policy->runtime_us / jc->policy->period_us
			     : 1.0;
	else if (!strcmp(name, "policy_runtime_us"))
		*v = (double)jc->policy->runtime_us;
	else if (!strcmp(name, "policy_period_us"))
		*v = (double)jc->policy->period_us;
	else if (!strcmp(name, "window_us"))
		*v = window_us;
	else if (!strcmp(name, "window_s"))
		*v = jc->window_s;
	else if (!strcmp(name, "tick_us"))
		*v = jc->model->tick_us;
	else if (!strcmp(name, "time_tol"))
		/* Two ticks of accounting, the machine's own longest gap, and what the VM stole. */
		*v = 2 * jc->model->tick_us + jc->noise->gap_max_us + jc->steal_us;
	else if (!strcmp(name, "noise_gap_max_us"))
		*v = jc->noise->gap_max_us;
	else if (!strcmp(name, "noise_loss"))
		*v = jc->noise->cpu_loss_share;
	else if (!strcmp(name, "noise_loss_wall"))
		/*
		 * The wall time the machine took from a lone spinner, most of it charged to it all the
		 * same (interrupts, an emulator's stalls): charged to an RT task, it spends RT runtime.
		 */
		*v = jc->noise->loss_share;
	else if (!strcmp(name, "steal_us"))
		*v = jc->steal_us;
	else if (!strcmp(name, "tick_stretch"))
		*v = jc->tick_stretch > 1 ? jc->tick_stretch : 1;
	else if (!strcmp(name, "share_tol")) {
		bool found;
		double span = metric_value(jc->metrics[lc->task], "periods_span_s", &found);

		/* Whole periods: only the noise and a tick at each end of the span. */
		if (lc->used_metric && strstr(lc->used_metric, "_periods") && found && span > 0)
			*v = jc->noise->cpu_loss_share + (jc->steal_us + others_us(jc)) / window_us + 0.002 +
			     2 * jc->model->tick_us / (span * 1e6);
		else
			*v = window_share_tol(jc);
		*v += l->share_band;
	} else if (!strcmp(name, "fair_server"))
		*v = jc->model->fair_server && has_cfs_task(lc->s);
	else if (!strcmp(name, "fs_runtime_us"))
		*v = (double)jc->model->fs_runtime_us;
	else if (!strcmp(name, "fs_period_us"))
		*v = (double)jc->model->fs_period_us;
	else if (!strcmp(name, "few_intervals"))
		/* Fewer than two throttles can end inside: nothing to measure between two ends. */
		*v = l->interval_us > 0 && window_us < 2 * l->interval_us + l->max_slot_us;
	else if (!strcmp(name, "others_us"))
		*v = others_us(jc);
	else if (!strcmp(name, "fs_others_us"))
		/*
		 * A fair server runs above RT: what other CFS tasks took on the CPU in the window,
		 * served by it, an RT task may have waited in one piece (its runtime at most).
		 */
		*v = jc->model->fair_server ? fmin(others_us(jc), (double)jc->model->fs_runtime_us) : 0;
	else if (!strcmp(name, "fs_periods_in_window"))
		/* The fair server's promise is measured only over two of its periods (promise.c). */
		*v = jc->model->fs_period_us > 0 ? window_us / (double)jc->model->fs_period_us : 0;
	else if (!strcmp(name, "fs_interleaves"))
		*v = fair_server_interleaves(jc);
	else if (!strcmp(name, "fs_band"))
		*v = fs_band(jc);
	else if (!strcmp(name, "tick_coarse"))
		/*
		 * The throttle lands on a tick: where the slot or the run is under a few ticks, gap
		 * lengths, counts and the span between throttles follow the tick's phase, not the
		 * policy (the promise still holds: the kernel carries the overrun).
		 */
		*v = l->limited && l->interval_us > 0 &&
		     (l->gap_us < 4 * jc->model->tick_us || l->interval_us - l->gap_us < 4 * jc->model->tick_us);
	else if (!strcmp(name, "cfs_wait_bound_us"))
		*v = throttle_wait_bound_us(l->interval_us, l->gap_us, jc->model->tick_us);
	else if (!strcmp(name, "cgroup_rt_share") || !strcmp(name, "cgroup_rt_runtime_us")) {
		const char *group = lc->s->tasks[lc->task].cgroup;

		*v = 0;
		for (int i = 0; i < lc->s->cgroup_count; i++)
			if (!strcmp(lc->s->cgroups[i].name, group))
				*v = !strcmp(name, "cgroup_rt_share")
					     ? (double)lc->s->cgroups[i].rt_runtime_us / lc->s->cgroups[i].rt_period_us
					     : (double)lc->s->cgroups[i].rt_runtime_us;
		return group[0] != '\0';
	} else
		return false;
	return true;
}

static bool lookup(void *ctx, const char *name, double *v)
{
	const struct lookup_ctx *lc = ctx;
	const struct scenario *s = lc->s;
	const char *dot = strchr(name, '.');

	if (lc->validating) {
		*v = 0.37;	/* a placeholder that is no pole of a sensible expression */
		for (size_t i = 0; i < sizeof(quantities) / sizeof(quantities[0]); i++)
			if (!strcmp(name, quantities[i]))
				return strncmp(name, "cgroup_", 7) || s->tasks[lc->task].cgroup[0];
		if (is_trace_figure(name))
			return true;
		if (dot) {
			char task[32];

			snprintf(task, sizeof(task), "%.*s", (int)(dot - name), name);
			return scenario_task_index(s, task) >= 0;
		}
		if (s->sweep_count && !strcmp(name, s->sweep_param) && !strcmp(s->tasks[lc->task].name, s->sweep_task))
			return true;
		return json_object_object_get_ex(s->tasks[lc->task].params, name, NULL);
	}
	if (quantity(lc, name, v))
		return true;
	if (is_trace_figure(name)) {
		bool found;

		*v = metric_value(lc->jc->trace, name + 6, &found);
		return found;
	}
	if (dot) {
		char task[32];
		bool found;
		int t;

		snprintf(task, sizeof(task), "%.*s", (int)(dot - name), name);
		t = scenario_task_index(s, task);
		if (t < 0)
			return false;
		*v = metric_value(lc->jc->metrics[t], dot + 1, &found);
		return found;
	}
	/* The check's task parameters, with the sweep's value in force. */
	if (s->sweep_count && !strcmp(name, s->sweep_param) && !strcmp(s->tasks[lc->task].name, s->sweep_task)) {
		*v = lc->jc->sweep_value;
		return true;
	}
	if (json_object_object_get_ex(s->tasks[lc->task].params, name, NULL)) {
		*v = scenario_param(&s->tasks[lc->task], name, 0);
		return true;
	}
	return false;
}

bool judge_quantity(const struct judge_context *jc, const char *name, double *value)
{
	struct lookup_ctx lc = { .jc = jc, .s = jc->scenario };

	return quantity(&lc, name, value);
}

const char *judge_metric_unit(const char *metric)
{
	size_t n = strlen(metric);

	if (n > 3 && !strcmp(metric + n - 3, "_us"))
		return "us";
	if (n > 3 && !strcmp(metric + n - 3, "_ms"))
		return "ms";
	if (strstr(metric, "_us."))
		return "us";
	if (strstr(metric, "share"))
		return "ratio";
	return "count";
}

/*
 * The smallest regression a check of this metric exists to catch, where its scenario does not
 * say; 0: none known, so its tolerance is not held against one.
 *  - a share: the 5% the default policy keeps for everything else (a dead throttle gives RT
 *    1.0, a reservation twice the default 0.90);
 *  - RT's excess over n x runtime in n whole periods: a throttle a tick late in every period,
 *    n ticks (one tick in one period is the overrun the kernel may carry);
 *  - CFS's rest of an RT period, or the fair server's runtime in its period: half of it withheld.
 */
static double default_detects(const struct lookup_ctx *lc, const char *metric)
{
	const struct judge_context *jc = lc->jc;
	bool found;
	double periods;

	if (!strcmp(metric, "cpu_share") || !strcmp(metric, "cpu_share_periods"))
		return 0.05;
	if (!strcmp(metric, "rt_budget_excess_us")) {
		periods = metric_value(jc->metrics[lc->task], "rt_periods", &found);
		return found && periods >= 2 ? periods * jc->model->tick_us : 0;
	}
	if (!strcmp(metric, "cfs_period_min_us"))
		return (double)(jc->policy->period_us - jc->policy->runtime_us) / 2;
	if (!strcmp(metric, "fs_period_min_us"))
		return (double)jc->model->fs_runtime_us / 2;
	return 0;
}

/* A pass within a tolerance at least as wide as the regression the check exists to catch: it could not have failed. */
static void judge_hollow(const struct scenario_check *sc, struct lookup_ctx *lc, struct check *c)
{
	char err[160], prefix[200];
	size_t n;

	if (sc->detects[0]) {
		if (!expr_eval(sc->detects, lookup, lc, &c->detects, err, sizeof(err)))
			c->detects = 0;
	} else {
		c->detects = default_detects(lc, c->metric);
	}
	/* A wide tolerance makes a pass worthless, not a failure: outside even it, the kernel is wrong. */
	if (c->detects <= 0 || c->tolerance < c->detects || !c->passed)
		return;
	c->hollow = true;
	c->was_measured = false;
	c->passed = false;
	snprintf(prefix, sizeof(prefix), "unjudged: tolerance %.4g is at least %.4g, the smallest regression it exists "
		 "to catch (%.60s); ", c->tolerance, c->detects, sc->detects[0] ? sc->detects : "the metric's default");
	/* The reason first, then the rule (CHECK_RULE_MAX has room for both). */
	n = strlen(prefix);
	memmove(c->rule + n, c->rule, strlen(c->rule) + 1);
	memcpy(c->rule, prefix, n);
}

/* Every part judge_one and judge_hollow compose, at its longest, with room for their own words. */
_Static_assert(CHECK_RULE_MAX >= 200 + sizeof(((struct scenario_check *)0)->why) +
				 sizeof(((struct limiter *)0)->why) + 2 * EXPR_MAX + 96 + 160,
	       "a check's rule could be cut: raise CHECK_RULE_MAX");

static void judge_one(const struct judge_context *jc, const struct scenario_check *sc, int task, struct check *c)
{
	struct lookup_ctx lc = { .jc = jc, .s = jc->scenario, .task = task };
	char err[160] = "", regimes[96];
	bool found;

	memset(c, 0, sizeof(*c));
	snprintf(c->task, sizeof(c->task), "%s", sc->task);
	snprintf(c->metric, sizeof(c->metric), "%s", sc->metric);
	snprintf(c->label, sizeof(c->label), "%s", sc->label);
	c->kind = sc->kind;
	c->tolerance_why = sc->tolerance_why;
	c->measured = metric_value(jc->metrics[task], sc->metric, &found);
	if (!found && sc->fallback[0]) {
		snprintf(c->metric, sizeof(c->metric), "%s", sc->fallback);
		c->measured = metric_value(jc->metrics[task], sc->fallback, &found);
	}
	c->unit = judge_metric_unit(c->metric);
	lc.used_metric = c->metric;
	c->was_measured = found;
	if (!expr_eval(sc->expect, lookup, &lc, &c->expected, err, sizeof(err)) ||
	    !expr_eval(!strcmp(sc->tolerance, "share") ? "share_tol" : sc->tolerance, lookup, &lc, &c->tolerance,
		       err, sizeof(err))) {
		json_object *reason;

		c->was_measured = false;
		/* A check on the trace's figures in a result without a trace: say why there is none. */
		if (strstr(err, "trace.") && json_object_object_get_ex(jc->trace, "reason", &reason)) {
			c->no_trace = true;
			snprintf(c->rule, sizeof(c->rule), "not measured: no trace (%.200s)", json_object_get_string(reason));
		}
		else
			snprintf(c->rule, sizeof(c->rule), "cannot evaluate: %s", err);
		return;
	}
	snprintf(c->rule, sizeof(c->rule), "%s%s%s [expect %s, tolerance %s; %s; regimes %s]", sc->why,
		 sc->why[0] ? "; " : "", jc->limiter->why, sc->expect, sc->tolerance, regime_name(jc->limiter->regime),
		 regime_mask_names(sc->regimes, regimes, sizeof(regimes)));
	if (!found)
		return;
	switch (c->kind) {
	case CHECK_APPROX:
		c->passed = fabs(c->measured - c->expected) <= c->tolerance;
		break;
	case CHECK_AT_LEAST:
		c->passed = c->measured >= c->expected - c->tolerance;
		break;
	case CHECK_AT_MOST:
		c->passed = c->measured <= c->expected + c->tolerance;
		break;
	}
	judge_hollow(sc, &lc, c);
}

int judge_result(const struct judge_context *jc, struct check *out, int max)
{
	const struct scenario *s = jc->scenario;
	int n = 0;

	for (int i = 0; i < s->check_count && n < max; i++) {
		const struct scenario_check *sc = &s->checks[i];
		int task = scenario_task_index(s, sc->task);
		struct lookup_ctx lc = { .jc = jc, .s = s, .task = task };
		char err[160];
		bool applies = true;

		if (!(sc->regimes & 1u << jc->limiter->regime))
			continue;
		if (sc->condition[0] && !expr_condition(sc->condition, lookup, &lc, &applies, err, sizeof(err)))
			applies = true;	/* an unevaluable condition judges rather than hides */
		if (!applies)
			continue;
		judge_one(jc, sc, task, &out[n++]);
	}
	return n;
}

bool judge_is_quantity(const char *name)
{
	for (size_t i = 0; i < sizeof(quantities) / sizeof(quantities[0]); i++)
		if (!strcmp(name, quantities[i]))
			return true;
	return false;
}

bool judge_validate(const struct scenario *s, char *err, size_t len)
{
	struct lookup_ctx lc = { .s = s, .validating = true };
	double v;
	bool b;

	for (int i = 0; i < s->check_count; i++) {
		const struct scenario_check *sc = &s->checks[i];
		const char *tol = !strcmp(sc->tolerance, "share") ? "share_tol" : sc->tolerance;
		char why[160];

		lc.task = scenario_task_index(s, sc->task);
		if (!expr_eval(sc->expect, lookup, &lc, &v, why, sizeof(why)) ||
		    !expr_eval(tol, lookup, &lc, &v, why, sizeof(why)) ||
		    (sc->detects[0] && !expr_eval(sc->detects, lookup, &lc, &v, why, sizeof(why))) ||
		    (sc->condition[0] && !expr_condition(sc->condition, lookup, &lc, &b, why, sizeof(why)))) {
			snprintf(err, len, "checks[%d]: %s", i, why);
			return false;
		}
	}
	return true;
}

const char *judge_verdict(const struct check *checks, int n, char *why, size_t len)
{
	int applies = 0, unjudged = 0, at;

	why[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (checks[i].was_measured && !checks[i].passed)
			return "fail";
		/*
		 * A cross-check on the trace needs one: without it (--no-trace, a build without
		 * libtracefs, tracefs out of reach) it does not apply; the rest judge the result.
		 */
		applies += !checks[i].no_trace;
		unjudged += !checks[i].no_trace && !checks[i].was_measured;
	}
	if (applies == 0) {
		snprintf(why, len, "no check applies to this result");
		return "unjudged";
	}
	if (!unjudged)
		return "pass";
	at = snprintf(why, len, "%d of %d checks that apply were not judged:", unjudged, applies);
	for (int i = 0; i < n && at > 0 && (size_t)at < len; i++)
		if (!checks[i].was_measured && !checks[i].no_trace)
			at += snprintf(why + at, len - at, " %s.%s%s%s (%s);", checks[i].task, checks[i].metric,
				       checks[i].label[0] ? "." : "", checks[i].label, checks[i].rule);
	if (at > 0 && (size_t)at < len)
		why[at - 1] = '\0';
	return "unjudged";
}
