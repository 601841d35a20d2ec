#include "expect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void limiter_for(const struct kernel_model *km, const struct policy *p, struct limiter *l)
{
	double fs_share = 1.0 - (double)km->fs_runtime_us / km->fs_period_us;

	memset(l, 0, sizeof(*l));
	l->regime = regime_for(km, p->runtime_us, p->period_us);
	switch (l->regime) {
	case REGIME_CLASSIC:
	case REGIME_RUNTIME_SHARE:
		l->limited = true;
		l->at_least_only = l->regime == REGIME_RUNTIME_SHARE;
		l->hog_share = (double)p->runtime_us / p->period_us;
		l->gap_us = (double)(p->period_us - p->runtime_us);
		l->interval_us = (double)p->period_us;
		snprintf(l->why, sizeof(l->why), "%s: RT gets runtime/period = %lld/%lld",
			 regime_name(l->regime), (long long)p->runtime_us, (long long)p->period_us);
		/* The fair server cuts in first when it leaves RT less than the policy does. */
		if (km->fair_server && fs_share < l->hog_share - 1e-9) {
			l->hog_share = fs_share;
			l->gap_us = (double)km->fs_runtime_us;
			l->interval_us = (double)km->fs_period_us;
			snprintf(l->why, sizeof(l->why), "%s, but the fair server (%lld/%lld us) leaves RT less",
				 regime_name(l->regime), (long long)km->fs_runtime_us, (long long)km->fs_period_us);
		}
		break;
	case REGIME_FAIR_SERVER_ONLY:
		l->limited = true;
		l->hog_share = fs_share;
		l->gap_us = (double)km->fs_runtime_us;
		l->interval_us = (double)km->fs_period_us;
		snprintf(l->why, sizeof(l->why), "fair-server-only: CFS gets %lld us every %lld us",
			 (long long)km->fs_runtime_us, (long long)km->fs_period_us);
		break;
	case REGIME_NO_LIMIT:
		l->hog_share = 1.0;
		snprintf(l->why, sizeof(l->why), "no-limit: nothing preempts a FIFO hog; CFS on its CPU starves");
		break;
	}
}

double throttle_threshold_us(const struct limiter *l, const struct noise_floor *noise, double tick_us)
{
	/* A throttle gap lasts the promised slot: half of it separates it from any preemption. */
	if (l->limited && l->gap_us > 0)
		return l->gap_us / 2;
	/* No slot promised: anything well beyond the machine's own noise counts. */
	return fmax(2 * noise->gap_max_us, 10 * tick_us);
}

double starvation_threshold_us(const struct limiter *l, const struct noise_floor *noise, double tick_us)
{
	/* A CFS task starves while RT runs: for interval - gap. */
	if (l->limited && l->interval_us > l->gap_us)
		return (l->interval_us - l->gap_us) / 2;
	return fmax(2 * noise->gap_max_us, 10 * tick_us);
}

static void add(struct check *checks, int *n, int max, const char *task, const char *metric,
		const char *unit, enum check_kind kind, double measured, double expected,
		double tolerance, const char *rule)
{
	struct check *c;

	if (*n >= max)
		return;
	c = &checks[(*n)++];
	memset(c, 0, sizeof(*c));
	snprintf(c->task, sizeof(c->task), "%s", task);
	snprintf(c->metric, sizeof(c->metric), "%s", metric);
	snprintf(c->rule, sizeof(c->rule), "%s", rule);
	c->unit = unit;
	c->kind = kind;
	c->measured = measured;
	c->expected = expected;
	c->tolerance = tolerance;
	switch (kind) {
	case CHECK_APPROX:
		c->passed = fabs(measured - expected) <= tolerance;
		break;
	case CHECK_AT_LEAST:
		c->passed = measured >= expected - tolerance;
		break;
	case CHECK_AT_MOST:
		c->passed = measured <= expected + tolerance;
		break;
	}
}

int expect_hog_with_cfs(const struct expect_input *in, const struct task_metrics *hog,
			const struct task_metrics *victim, struct check *checks, int max)
{
	const struct limiter *l = in->limiter;
	const double tick = in->km->tick_us, window_us = in->window_s * 1e6;
	/*
	 * Accounting is per tick and carried to the next period: at most a tick at each edge. The
	 * machine's own noise (interrupts, steal) comes on top. A window in arbitrary phase may hold
	 * one throttle gap more or less than the average at each end: 2 gaps over the window.
	 */
	const double base_tol = in->noise->loss_share + in->steal_us / window_us + 0.002;
	const double window_tol = base_tol + 2 * tick / window_us + (l->limited ? 2 * l->gap_us / window_us : 0);
	const double time_tol = 2 * tick + in->noise->gap_max_us;
	char rule[240];
	int n = 0;

	if (!l->limited) {
		add(checks, &n, max, "hog", "cpu_share", "ratio", CHECK_APPROX, hog->cpu_share, 1.0,
		    window_tol, l->why);
		add(checks, &n, max, "hog", "throttle_events", "count", CHECK_AT_MOST,
		    (double)hog->throttle_events, 0, 0, l->why);
		add(checks, &n, max, "victim", "cpu_share", "ratio", CHECK_AT_MOST, victim->cpu_share, 0,
		    window_tol, l->why);
		add(checks, &n, max, "victim", "starvation_max_us", "us", CHECK_AT_LEAST, victim->gap_max_us,
		    window_us, time_tol, l->why);
		return n;
	}
	if (l->at_least_only) {
		add(checks, &n, max, "hog", "cpu_share", "ratio", CHECK_AT_LEAST, hog->cpu_share,
		    l->hog_share, window_tol, l->why);
		add(checks, &n, max, "victim", "cpu_share", "ratio", CHECK_AT_MOST, victim->cpu_share,
		    1 - l->hog_share, window_tol, l->why);
		return n;
	}
	/* Whole periods when two throttle gaps bound them; else the window, phase error included. */
	if (hog->periods_span_s > 0)
		add(checks, &n, max, "hog", "cpu_share_periods", "ratio", CHECK_APPROX, hog->cpu_share_periods,
		    l->hog_share, base_tol + 2 * tick / (hog->periods_span_s * 1e6), l->why);
	else
		add(checks, &n, max, "hog", "cpu_share", "ratio", CHECK_APPROX, hog->cpu_share, l->hog_share,
		    window_tol, l->why);
	snprintf(rule, sizeof(rule), "%s; CFS keeps the rest", l->why);
	if (victim->periods_span_s > 0)
		add(checks, &n, max, "victim", "cpu_share_periods", "ratio", CHECK_AT_LEAST,
		    victim->cpu_share_periods, 1 - l->hog_share,
		    base_tol + 2 * tick / (victim->periods_span_s * 1e6), rule);
	else
		add(checks, &n, max, "victim", "cpu_share", "ratio", CHECK_AT_LEAST, victim->cpu_share,
		    1 - l->hog_share, window_tol, rule);
	snprintf(rule, sizeof(rule), "%s; each throttle gap lasts %.0f us", l->why, l->gap_us);
	add(checks, &n, max, "hog", "gap_max_us", "us", CHECK_APPROX, hog->gap_max_us, l->gap_us,
	    time_tol, rule);
	snprintf(rule, sizeof(rule), "%s; one throttle gap every %.0f us", l->why, l->interval_us);
	add(checks, &n, max, "hog", "throttle_events", "count", CHECK_APPROX, (double)hog->throttle_events,
	    round(window_us / l->interval_us), 1, rule);
	if (hog->throttle_events >= 2)
		add(checks, &n, max, "hog", "throttle_interval_us", "us", CHECK_APPROX,
		    hog->throttle_interval_us, l->interval_us, time_tol, rule);
	/*
	 * In steady state RT runs `interval - gap`, then CFS gets its slot. The period a window
	 * starts in may leave RT's runtime unused, so the first starvation can reach twice that.
	 */
	snprintf(rule, sizeof(rule), "%s; CFS waits %.0f us a period once RT has used its runtime", l->why,
		 l->interval_us - l->gap_us);
	if (victim->throttle_gap_median_us > 0)
		add(checks, &n, max, "victim", "starvation_median_us", "us", CHECK_APPROX,
		    victim->throttle_gap_median_us, l->interval_us - l->gap_us, time_tol, rule);
	snprintf(rule, sizeof(rule), "%s; the first period may add its unused runtime: at most 2 x %.0f us",
		 l->why, l->interval_us - l->gap_us);
	add(checks, &n, max, "victim", "starvation_max_us", "us", CHECK_AT_MOST, victim->gap_max_us,
	    2 * (l->interval_us - l->gap_us), time_tol, rule);
	return n;
}

const char *check_kind_name(enum check_kind k)
{
	return k == CHECK_APPROX ? "approx" : k == CHECK_AT_LEAST ? "at_least" : "at_most";
}

json_object *check_to_json(const struct check *c)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "task", json_object_new_string(c->task));
	json_object_object_add(obj, "metric", json_object_new_string(c->metric));
	json_object_object_add(obj, "unit", json_object_new_string(c->unit));
	json_object_object_add(obj, "measured", json_object_new_double(c->measured));
	json_object_object_add(obj, "expected", json_object_new_double(c->expected));
	json_object_object_add(obj, "tolerance", json_object_new_double(c->tolerance));
	json_object_object_add(obj, "kind", json_object_new_string(check_kind_name(c->kind)));
	json_object_object_add(obj, "rule", json_object_new_string(c->rule));
	json_object_object_add(obj, "verdict", json_object_new_string(c->passed ? "pass" : "fail"));
	return obj;
}
