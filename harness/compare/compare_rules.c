// SPDX-License-Identifier: GPL-2.0-only
/* The rules: each compared metric's direction, unit and minimum effect, near what its kind can resolve. */
#include "compare_rules.h"

#include <string.h>

/*
 * Minimum effects: CPU shares 0.005 (half a percent of the CPU); times 1% of the baseline with a
 * floor near the measuring resolution of each kind (a tick is 1-10 ms, a wake-up latency a few us);
 * counts of discrete events one event.
 */
static const struct metric_rule rules[] = {
	{ "victim", "cpu_share", DIR_HIGHER, "ratio", 0.005, 0, "cpu_share_periods" },
	{ "victim", "cpu_share_periods", DIR_HIGHER, "ratio", 0.005, 0, "cpu_share" },
	{ "victim", "starvation_max_us", DIR_LOWER, "us", 1000, 0.01, NULL },
	{ "victim", "starvation_median_us", DIR_LOWER, "us", 1000, 0.01, NULL },
	{ "victim", "gap_max_us", DIR_LOWER, "us", 1000, 0.01, NULL },
	{ "hog", "cpu_share", DIR_TARGET, "ratio", 0.005, 0, "cpu_share_periods" },
	{ "hog", "cpu_share_periods", DIR_TARGET, "ratio", 0.005, 0, "cpu_share" },
	{ "hog", "gap_max_us", DIR_TARGET, "us", 1000, 0.01, NULL },
	{ "hog", "throttle_interval_us", DIR_TARGET, "us", 1000, 0.01, NULL },
	{ "hog", "throttle_events", DIR_TARGET, "count", 1, 0, NULL },
	{ "*", "latency_us.min", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "latency_us.p50", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "latency_us.p99", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "latency_us.p999", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "latency_us.max", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "response_us.p99", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "max_response_us", DIR_LOWER, "us", 5, 0.10, NULL },
	{ "*", "deadline_misses", DIR_LOWER, "count", 1, 0, NULL },
	{ "*", "throttled_misses", DIR_LOWER, "count", 1, 0, NULL },
	{ "admin", "recovered", DIR_HIGHER, "count", 0.5, 0, NULL },
	{ "*", "recovery_ms", DIR_LOWER, "ms", 1, 0.10, NULL },
	{ "result", "recovery_ms", DIR_LOWER, "ms", 1, 0.10, NULL },
	{ "*", "loops", DIR_INFO, "count", 0, 0, NULL },
	{ "*", "loop_ns", DIR_INFO, "ns", 0, 0, NULL },
};

const struct metric_rule *metric_rule_find(const char *role, const char *metric)
{
	/* A role's own rule first, then the rule for any role (but never a result-level one). */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
			const struct metric_rule *r = &rules[i];

			if (strcmp(r->metric, metric))
				continue;
			if (pass == 0 ? !strcmp(r->role, role) : !strcmp(r->role, "*") && strcmp(role, "result"))
				return r;
		}
	return NULL;
}

const struct metric_rule *metric_rules(int *count)
{
	*count = (int)(sizeof(rules) / sizeof(rules[0]));
	return rules;
}

const char *direction_name(enum direction d)
{
	static const char *const names[] = { "higher", "lower", "target", "info" };

	return names[d];
}
