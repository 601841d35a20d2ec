/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reads a results file for `compare`, `plot` and `report`: checks what they rely on (naming the
 * file and the field when something is wrong) and gathers, per case (scenario, policy, sweep
 * value), task and metric, the value of every repetition with the target and tolerance the
 * result's own checks gave it.
 */
#ifndef RTT_RESULT_FILE_H
#define RTT_RESULT_FILE_H

#include <limits.h>
#include <stdbool.h>

#include <json-c/json.h>

#include "compare_rules.h"

enum tol_source {
	TOL_NONE,
	TOL_SIBLING,	/* the check of the metric's sibling (compare_rules.h) */
	TOL_CHECK,	/* the check of this very metric */
};

struct observation {
	double value;
	double target;		/* NAN: no check gave one */
	double tolerance;	/* NAN: none */
	enum tol_source tol_source;
	int repetition;
};

struct series {
	char case_name[192];	/* scenario.policy, with .param=value for a sweep */
	char scenario[64], policy[64];
	char task[32];		/* the task's name ("result" for result-level metrics) */
	char role[24];
	char metric[64];
	const struct metric_rule *rule;
	struct observation *obs;
	int n, cap;
	/* A result of this case was unjudged: measured, but some check could not judge it. */
	bool case_unjudged;
};

struct result_file {
	char path[PATH_MAX];
	json_object *root;
	const char *run_id, *run_start, *kernel, *host;
	/* measured: results with a metric value, whatever their verdict but skip or error. */
	int result_count, measured_count;
	struct series *series;
	int series_count, series_cap;
	char (*scenarios)[64];	/* every scenario named, measured or not, in order of appearance */
	int scenario_count;
};

/* false after printing "PATH: FIELD: reason" to stderr; out is then empty. */
bool result_file_read(const char *path, struct result_file *out);
void result_file_free(struct result_file *f);
const struct series *result_file_find(const struct result_file *f, const char *case_name, const char *task,
				      const char *metric);
bool result_file_has_scenario(const struct result_file *f, const char *scenario);
/* A member of a JSON object (NULL when obj is not an object or has no such key), and one that is
 * a string (else NULL). */
json_object *result_json_get(json_object *obj, const char *key);
const char *result_json_string(json_object *obj, const char *key);

#endif
