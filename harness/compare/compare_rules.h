/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which way each metric should move: the one table `rtthrottle compare`, its --json output and
 * the plots (which read bands from that output) all go by. results/README.md names the metrics.
 */
#ifndef RTT_COMPARE_RULES_H
#define RTT_COMPARE_RULES_H

enum direction {
	DIR_HIGHER,	/* more is better */
	DIR_LOWER,	/* less is better */
	DIR_TARGET,	/* closer to the result's own check's expected value is better */
	DIR_INFO,	/* shown, never judged */
};

struct metric_rule {
	const char *role;	/* task role, "*" any role, "result" a result-level metric */
	const char *metric;	/* name as in the JSON; nested objects as "latency_us.p99" */
	enum direction direction;
	const char *unit;	/* as the checks name units: ratio, us, ms, count, ns */
	/* The smallest change that counts: max(min_abs, min_rel * |base median or target|). */
	double min_abs, min_rel;
	/*
	 * Another metric of the same quantity (cpu_share and cpu_share_periods): when this one has no
	 * check of its own, the sibling's check gives the target and the tolerance band.
	 */
	const char *sibling;
};

/* The rule for a role's metric, or NULL when the metric is not compared. */
const struct metric_rule *metric_rule_find(const char *role, const char *metric);
const struct metric_rule *metric_rules(int *count);
const char *direction_name(enum direction d);

#endif
