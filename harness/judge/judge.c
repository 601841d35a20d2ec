// SPDX-License-Identifier: GPL-2.0-only
/* Checks evaluated with this case's model quantities; a pass whose tolerance could not fail is unjudged. */
#include "judge.h"
#include "json_util.h"
#include "expr.h"
#include "quantity.h"
#include "scenario_task.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* judge_hollow's words before a check's rule: the figures, the detects and its reason. */
#define HOLLOW_PREFIX_MAX 400

/* What one expression may name, and what it is evaluated against. */
struct lookup_ctx {
	const struct judge_context *jc;
	const struct scenario *s;
	int task;		/* the check's task */
	const char *used_metric;	/* the metric the check ended up judging */
	bool validating;	/* load time: names are checked, values are placeholders */
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

/* The quantity of that name for the check's case. */
static bool quantity(const struct lookup_ctx *lc, const char *name, double *v)
{
	const struct quantity_ctx qc = { .jc = lc->jc, .s = lc->s, .task = lc->task, .used_metric = lc->used_metric };

	return quantity_value(&qc, name, v);
}

/* A check's tolerance expression: "share" names share_tol. */
static const char *tolerance_expr(const struct scenario_check *sc)
{
	return !strcmp(sc->tolerance, "share") ? "share_tol" : sc->tolerance;
}

static bool lookup(void *ctx, const char *name, double *v)
{
	const struct lookup_ctx *lc = ctx;
	const struct scenario *s = lc->s;
	const char *dot = strchr(name, '.');

	if (lc->validating) {
		*v = 0.37;	/* a placeholder that is no pole of a sensible expression */
		const struct quantity_info *q = quantity_find(name);

		if (q)
			return !q->needs_cgroup || s->tasks[lc->task].cgroup[0];
		if (is_trace_figure(name))
			return true;
		if (dot) {
			char task[32];

			snprintf(task, sizeof(task), "%.*s", (int)(dot - name), name);
			return scenario_task_index(s, task) >= 0;
		}
		if (s->sweep_count && !strcmp(name, s->sweep_param) && !strcmp(s->tasks[lc->task].name, s->sweep_task))
			return true;
		return json_object_object_get_ex(s->tasks[lc->task].params, name, NULL) ||
		       role_param_find(s->tasks[lc->task].role, name);
	}
	if (quantity(lc, name, v))
		return true;
	if (is_trace_figure(name)) {
		bool found;

		*v = metric_at(lc->jc->trace, name + 6, &found);
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
		*v = metric_at(lc->jc->metrics[t], dot + 1, &found);
		return found;
	}
	/* The check's task parameters (the sweep's value in force): given by the scenario or the role's default. */
	if (sweep_sets(s, lc->task, name) || json_object_object_get_ex(s->tasks[lc->task].params, name, NULL) || role_param_find(s->tasks[lc->task].role, name)) {
		*v = task_param_in_force(lc->jc, s, lc->task, name);
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

static const char share_regression[] =
	"a share 5% off (the default policy's reserve: a dead throttle gives RT 1.0, a reservation twice it 0.90)";

/* The metrics whose checks catch a regression of a known size by default, and what it is. */
static const struct {
	const char *metric, *why;
} default_regressions[] = {
	{ "cpu_share", share_regression },
	{ "cpu_share_periods", share_regression },
	{ "rt_budget_excess_us", "a throttle a tick late in every period: n ticks in n whole periods (one tick once is an overrun carried)" },
	{ "cfs_period_min_us", "half of CFS's rest of an RT period withheld" },
	{ "fs_period_min_us", "half the fair server's runtime in its period withheld" },
};

const char *judge_default_detects_why(const char *metric)
{
	for (size_t i = 0; i < sizeof(default_regressions) / sizeof(default_regressions[0]); i++)
		if (!strcmp(metric, default_regressions[i].metric))
			return default_regressions[i].why;
	return NULL;
}

/*
 * The size of the regression a check of this metric exists to catch where its scenario does
 * not say (default_regressions says which); 0: none known, or none in this window (fewer than
 * two whole RT periods), so its tolerance is not held against one.
 */
static double default_detects(const struct lookup_ctx *lc, const char *metric)
{
	const struct judge_context *jc = lc->jc;
	bool found;
	double periods;

	if (!strcmp(metric, "cpu_share") || !strcmp(metric, "cpu_share_periods"))
		return 0.05;
	if (!strcmp(metric, "rt_budget_excess_us")) {
		periods = metric_at(jc->metrics[lc->task], "rt_periods", &found);
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
	char err[160], prefix[HOLLOW_PREFIX_MAX];
	size_t n;

	if (sc->detects[0]) {
		if (!expr_eval(sc->detects, lookup, lc, &c->detects, err, sizeof(err)))
			c->detects = 0;
		c->detects_why = sc->detects_why;
	} else {
		c->detects = default_detects(lc, c->metric);
		c->detects_why = judge_default_detects_why(c->metric);
	}
	/* A wide tolerance makes a pass worthless, not a failure: outside even it, the kernel is wrong. */
	if (c->detects <= 0 || c->tolerance < c->detects || !c->passed)
		return;
	c->hollow = true;
	c->was_measured = false;
	c->passed = false;
	snprintf(prefix, sizeof(prefix), "unjudged: tolerance %.4g is at least %.4g, the smallest regression it exists "
		 "to catch (%.60s: %.159s); ", c->tolerance, c->detects, sc->detects[0] ? sc->detects : "the metric's default",
		 c->detects_why ? c->detects_why : "");
	/* The reason first, then the rule (CHECK_RULE_MAX has room for both). */
	n = strlen(prefix);
	memmove(c->rule + n, c->rule, strlen(c->rule) + 1);
	memcpy(c->rule, prefix, n);
}

/* Every part judge_one and judge_hollow compose, at its longest, with room for their own words. */
_Static_assert(CHECK_RULE_MAX >= HOLLOW_PREFIX_MAX + sizeof(((struct scenario_check *)0)->why) +
				 sizeof(((struct limiter *)0)->why) + 2 * EXPR_MAX + 96 + 160,
	       "a check's rule could be cut: raise CHECK_RULE_MAX");

/*
 * Why a task's metric was taken away (`<metric>_unmeasured`, e.g. every span it needs was
 * censored), or NULL: then a check may fall back on its other metric.
 */
static const char *unmeasured_why(json_object *metrics, const char *metric)
{
	char key[80];
	json_object *why;

	snprintf(key, sizeof(key), "%s_unmeasured", metric);
	if (!metrics || !json_object_object_get_ex(metrics, key, &why))
		return NULL;
	return json_object_get_string(why);
}

/* Whether the expression names a figure of that task ("NAME." not inside a longer name). */
static bool names_task(const char *expr, const char *task)
{
	size_t n = strlen(task);

	for (const char *p = strstr(expr, task); p; p = strstr(p + 1, task))
		if ((p == expr || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-' || p[-1] == '.')) && p[n] == '.')
			return true;
	return false;
}

/*
 * Why the check cannot be measured here through no fault of the run: its task, or a task its
 * expressions name, was not run and says why (`skipped`: a tool or a tracer this kernel lacks).
 * NULL when every task it needs ran.
 */
static const char *skipped_why(const struct judge_context *jc, const struct scenario_check *sc, int task,
			       const char **skipped_task)
{
	const struct scenario *s = jc->scenario;

	for (int t = 0; t < s->task_count; t++) {
		json_object *why;

		if (!jc->metrics[t] || !json_object_object_get_ex(jc->metrics[t], "skipped", &why))
			continue;
		if (t == task || names_task(sc->expect, s->tasks[t].name) || names_task(sc->tolerance, s->tasks[t].name) ||
		    names_task(sc->condition, s->tasks[t].name) || names_task(sc->detects, s->tasks[t].name)) {
			*skipped_task = s->tasks[t].name;
			return json_object_get_string(why);
		}
	}
	return NULL;
}

/*
 * The check's figures and, where found, pass or fail. `applies`: its condition holds, so
 * whether the pass could have failed is asked too (a check that does not apply is not judged).
 */
static void judge_one(const struct judge_context *jc, const struct scenario_check *sc, int task, bool applies,
		      struct check *c)
{
	struct lookup_ctx lc = { .jc = jc, .s = jc->scenario, .task = task };
	char err[160] = "", regimes[96];
	const char *unmeasured, *skipped, *skipped_task = "";
	bool found;

	memset(c, 0, sizeof(*c));
	snprintf(c->task, sizeof(c->task), "%s", sc->task);
	snprintf(c->metric, sizeof(c->metric), "%s", sc->metric);
	snprintf(c->label, sizeof(c->label), "%s", sc->label);
	c->kind = sc->kind;
	c->tolerance_why = sc->tolerance_why;
	skipped = skipped_why(jc, sc, task, &skipped_task);
	if (skipped) {
		c->skipped = true;
		c->unit = judge_metric_unit(c->metric);
		snprintf(c->rule, sizeof(c->rule), "not measured: %s was skipped: %.300s", skipped_task, skipped);
		return;
	}
	c->measured = metric_at(jc->metrics[task], sc->metric, &found);
	unmeasured = found ? NULL : unmeasured_why(jc->metrics[task], sc->metric);
	if (!found && !unmeasured && sc->fallback[0]) {
		snprintf(c->metric, sizeof(c->metric), "%s", sc->fallback);
		c->measured = metric_at(jc->metrics[task], sc->fallback, &found);
	}
	c->unit = judge_metric_unit(c->metric);
	lc.used_metric = c->metric;
	c->was_measured = found;
	if (!expr_eval(sc->expect, lookup, &lc, &c->expected, err, sizeof(err)) ||
	    !expr_eval(tolerance_expr(sc), lookup, &lc, &c->tolerance,
		       err, sizeof(err))) {
		json_object *reason;

		c->was_measured = false;
		/* A check on the trace's figures in a result without a trace: say why there is none. */
		if (unmeasured) {
			snprintf(c->rule, sizeof(c->rule), "not measured: %.300s", unmeasured);
		} else if (strstr(err, "trace.") && json_object_object_get_ex(jc->trace, "reason", &reason)) {
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
	if (unmeasured)
		snprintf(c->rule, sizeof(c->rule), "not measured: %.300s", unmeasured);
	/* A figure only the trace gives (`<metric>_unmeasured` "not traced ..."), in a result without one. */
	if (unmeasured && !strncmp(unmeasured, "not traced", 10) && strcmp(json_get_str(jc->trace, "status", ""), "recorded")) {
		c->no_trace = true;
		snprintf(c->rule, sizeof(c->rule), "not measured: no trace (%.200s)",
			 json_get_str(jc->trace, "reason", unmeasured));
	}
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
	if (applies)
		judge_hollow(sc, &lc, c);
}

/* A check whose condition is false here: kept with its figures and why, judged as neither. */
static void not_applicable(const struct scenario_check *sc, struct check *c)
{
	char prefix[CHECK_RULE_MAX];
	int n = snprintf(prefix, sizeof(prefix), "not applicable: its condition (%s) does not hold here; ", sc->condition);

	c->not_applicable = true;
	c->was_measured = c->passed = false;
	if (n > 0 && (size_t)n < sizeof(c->rule)) {
		size_t kept = strnlen(c->rule, sizeof(c->rule) - (size_t)n - 1);

		memmove(c->rule + n, c->rule, kept);
		c->rule[(size_t)n + kept] = '\0';
		memcpy(c->rule, prefix, (size_t)n);
	}
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
		judge_one(jc, sc, task, applies, &out[n]);
		if (!applies)
			not_applicable(sc, &out[n]);
		n++;
	}
	return n;
}

bool judge_is_quantity(const char *name)
{
	return quantity_find(name) != NULL;
}

bool judge_validate(const struct scenario *s, char *err, size_t len)
{
	struct lookup_ctx lc = { .s = s, .validating = true };
	double v;
	bool b;

	for (int i = 0; i < s->check_count; i++) {
		const struct scenario_check *sc = &s->checks[i];
		const char *tol = tolerance_expr(sc);
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

enum verdict judge_verdict(const struct check *checks, int n, char *why, size_t len)
{
	int applies = 0, unjudged = 0, at;

	why[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (checks[i].was_measured && !checks[i].passed)
			return VERDICT_FAIL;
		/*
		 * A cross-check on the trace needs one: without it (--no-trace, a build without
		 * libtracefs, tracefs out of reach) it does not apply; the rest judge the result.
		 */
		/* A check on a task this system could not run (skipped) does not apply either. */
		applies += !checks[i].no_trace && !checks[i].not_applicable && !checks[i].skipped;
		unjudged += !checks[i].no_trace && !checks[i].not_applicable && !checks[i].skipped && !checks[i].was_measured;
	}
	if (applies == 0) {
		snprintf(why, len, "no check applies to this result");
		return VERDICT_UNJUDGED;
	}
	if (!unjudged)
		return VERDICT_PASS;
	at = snprintf(why, len, "%d of %d checks that apply were not judged:", unjudged, applies);
	for (int i = 0; i < n && at > 0 && (size_t)at < len; i++)
		if (!checks[i].was_measured && !checks[i].no_trace && !checks[i].not_applicable && !checks[i].skipped)
			at += snprintf(why + at, len - at, " %s.%s%s%s (%s);", checks[i].task, checks[i].metric,
				       checks[i].label[0] ? "." : "", checks[i].label, checks[i].rule);
	if (at > 0 && (size_t)at < len)
		why[at - 1] = '\0';
	return VERDICT_UNJUDGED;
}
