/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model quantities a check's expressions may name (rt_share, slot_us, share_tol, ...): one
 * table of name, unit, meaning and how to compute it, walked by validation, evaluation and
 * `rtthrottle list quantities`.
 */
#ifndef RTT_QUANTITY_H
#define RTT_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

struct judge_context;
struct scenario;

/* What a quantity is computed for: the case being judged and the check's task. */
struct quantity_ctx {
	const struct judge_context *jc;
	const struct scenario *s;
	int task;			/* the check's task */
	const char *used_metric;	/* the metric the check ended up judging (NULL: none) */
};

struct quantity_info {
	const char *name;
	const char *unit;	/* ratio, us, s, count or flag */
	const char *doc;	/* one line on what it means */
	bool needs_cgroup;	/* defined only for a task in a cgroup */
	/* False where it has no value for this case (a task outside any cgroup). */
	bool (*value)(const struct quantity_ctx *qc, double *v);
};

/* Every quantity, in the order `rtthrottle list quantities` prints them. */
const struct quantity_info *quantity_table(size_t *count);
/* The quantity of that name, or NULL. */
const struct quantity_info *quantity_find(const char *name);
/* Its value for the case; false when it is no quantity or has no value here. */
bool quantity_value(const struct quantity_ctx *qc, const char *name, double *v);
/* Whether the scenario's sweep sets parameter name of task (its value is the case's sweep value). */
bool sweep_sets(const struct scenario *s, int task, const char *name);
/* A task's parameter as the case ran it: the sweep's value where the sweep sets it, else task_param. */
double task_param_in_force(const struct judge_context *jc, const struct scenario *s, int task, const char *name);
/*
 * A number in a result's metrics by dotted path ("latency_us.p99"); found=false when absent or
 * not a number.
 */
double metric_at(json_object *metrics, const char *path, bool *found);

#endif
