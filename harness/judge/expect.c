// SPDX-License-Identifier: GPL-2.0-only
/* What limits a FIFO hog in each regime under a policy, the thresholds its gaps count by, a check as JSON. */
#include "expect.h"
#include "json_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void limiter_for(const struct kernel_model *km, const struct policy *p, struct limiter *l)
{
	double fs_share = 1.0 - (double)km->fs_runtime_us / km->fs_period_us;

	memset(l, 0, sizeof(*l));
	l->regime = regime_for(km, p->runtime_us, p->period_us);
	switch (l->regime) {
	case REGIME_TIMERS_STARVED:
		/* The hog is throttled as under classic throttling; no CFS task wakes to use the slots. */
		l->limited = true;
		l->hog_share = (double)p->runtime_us / p->period_us;
		l->gap_us = (double)(p->period_us - p->runtime_us);
		l->interval_us = (double)p->period_us;
		snprintf(l->why, sizeof(l->why), "timers-starved: RT gets runtime/period = %lld/%lld; CFS tasks "
			 "sleeping on timers wait for RT thread ktimers (FIFO %d), starved with RT",
			 (long long)p->runtime_us, (long long)p->period_us, km->timer_thread_priority);
		break;
	case REGIME_CLASSIC:
	case REGIME_RUNTIME_SHARE:
		l->limited = true;
		l->at_least_only = l->regime == REGIME_RUNTIME_SHARE;
		l->hog_share = (double)p->runtime_us / p->period_us;
		l->gap_us = (double)(p->period_us - p->runtime_us);
		l->interval_us = (double)p->period_us;
		snprintf(l->why, sizeof(l->why), "%s: RT gets runtime/period = %lld/%lld",
			 regime_name(l->regime), (long long)p->runtime_us, (long long)p->period_us);
		/*
		 * The fair server cuts in first when it leaves RT less than the policy does, or when
		 * the RT period is longer than its own: then CFS would wait longer than the fair
		 * server allows before RT throttling gives it anything.
		 */
		if (km->fair_server && (fs_share < l->hog_share - 1e-9 ||
					(fs_share <= l->hog_share + 1e-9 && p->period_us > km->fs_period_us))) {
			l->hog_share = fs_share;
			l->gap_us = (double)km->fs_runtime_us;
			l->interval_us = (double)km->fs_period_us;
			/*
			 * RT throttling still acts at the end of its long period, for what the fair
			 * server's slots did not already take: that gap may join a fair-server slot.
			 */
			if (p->period_us > km->fs_period_us)
				l->max_slot_us = km->fs_runtime_us +
						 fmax(0, (double)(p->period_us - p->runtime_us) -
								 ((double)p->period_us / km->fs_period_us - 1) * km->fs_runtime_us);
			snprintf(l->why, sizeof(l->why), "%s, but the fair server (%lld/%lld us) leaves RT less",
				 regime_name(l->regime), (long long)km->fs_runtime_us, (long long)km->fs_period_us);
		} else if (km->fair_server && p->period_us < km->fs_period_us && fs_share <= l->hog_share + 1e-9) {
			/*
			 * A short RT period under a fair server asking as much: on 6.18, CFS then
			 * gets the RT slots and, now and then, the fair server's own slot on top. The hog's
			 * share lies between the two limits' sum and the policy's ratio.
			 */
			l->share_band = (1.0 - fs_share) / 2;
			l->hog_share -= l->share_band;
			l->max_slot_us = fmax(l->gap_us, (double)km->fs_runtime_us);
			snprintf(l->why, sizeof(l->why), "%s with a fair server on a longer period: CFS gets the RT slots and at times the fair server's %lld us",
				 regime_name(l->regime), (long long)km->fs_runtime_us);
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
	if (l->max_slot_us < l->gap_us)
		l->max_slot_us = l->gap_us;
}

double throttle_threshold_us(const struct limiter *l, const struct noise_floor *noise, double tick_us)
{
	/* A throttle gap lasts the promised slot: half of it separates it from any preemption. */
	if (l->limited && l->gap_us > 0)
		return l->gap_us / 2;
	/* No slot promised: anything well beyond the machine's own noise counts. */
	return fmax(2 * noise->gap_max_us, 10 * tick_us);
}

double periodic_throttle_gap_us(const struct limiter *l, const struct noise_floor *noise, double tick_us,
				double utilisation)
{
	double slot_half = throttle_threshold_us(l, noise, tick_us);

	if (!l->limited || utilisation <= l->hog_share || l->interval_us <= 0)
		return slot_half;
	return fmin(slot_half, l->interval_us * (1 - l->hog_share / utilisation) / 2);
}

double throttle_wait_bound_us(double interval_us, double slot_us, double tick_us)
{
	return 2 * (interval_us - slot_us) + (slot_us > 0 ? floor(tick_us / slot_us) * interval_us : 0);
}

double starvation_threshold_us(const struct limiter *l, const struct noise_floor *noise, double tick_us)
{
	/* A CFS task starves while RT runs: for interval - gap. */
	if (l->limited && l->interval_us > l->gap_us)
		return (l->interval_us - l->gap_us) / 2;
	return fmax(2 * noise->gap_max_us, 10 * tick_us);
}

bool check_tolerance_wide(const struct check *c)
{
	return (c->was_measured || c->hollow) && c->tolerance > fabs(c->expected) / 2;
}

const char *check_kind_name(enum check_kind k)
{
	return k == CHECK_APPROX ? "approx" : k == CHECK_AT_LEAST ? "at_least" : "at_most";
}

enum verdict check_verdict(const struct check *c)
{
	if (c->not_applicable)
		return VERDICT_NOT_APPLICABLE;
	if (c->hollow)
		return VERDICT_UNJUDGED;
	if (c->skipped)
		return VERDICT_SKIP;
	if (!c->was_measured)
		return VERDICT_NOT_MEASURED;
	return c->passed ? VERDICT_PASS : VERDICT_FAIL;
}

json_object *check_to_json(const struct check *c)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "task", c->task);
	json_add_str(obj, "metric", c->metric);
	if (c->label[0])
		json_add_str(obj, "name", c->label);
	json_add_str(obj, "unit", c->unit);
	json_add_double(obj, "measured", c->measured);
	json_add_double(obj, "expected", c->expected);
	json_add_double(obj, "tolerance", c->tolerance);
	json_add_str(obj, "kind", check_kind_name(c->kind));
	json_add_str(obj, "rule", c->rule);
	if (c->detects > 0) {
		json_add_double(obj, "detects", c->detects);
		if (c->detects_why && c->detects_why[0])
			json_add_str(obj, "detects_why", c->detects_why);
	}
	if (check_tolerance_wide(c))
		json_add_str(obj, "tolerance_why",
			     c->tolerance_why && c->tolerance_why[0] ? c->tolerance_why : "no reason given");
	json_add_str(obj, "verdict", verdict_name(check_verdict(c)));
	return obj;
}
