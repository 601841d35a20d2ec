// SPDX-License-Identifier: GPL-2.0-only
/* Built from the results alone: sweep edges against the model's, and each policy's worst debate figures. */
#include "tables.h"
#include "json_util.h"
#include "expect.h"
#include "policy.h"
#include "report.h"
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool result_task_metric(json_object *result, const char *task, const char *path, double *value)
{
	json_object *tasks, *v;

	if (!json_object_object_get_ex(result, "tasks", &tasks))
		return false;
	for (size_t i = 0; i < json_object_array_length(tasks); i++) {
		json_object *t = json_object_array_get_idx(tasks, i), *m;
		char key[64];
		const char *p = path, *dot;

		if (strcmp(json_get_str(t, "name", ""), task) || !json_object_object_get_ex(t, "metrics", &m))
			continue;
		while ((dot = strchr(p, '.'))) {
			snprintf(key, sizeof(key), "%.*s", (int)(dot - p), p);
			if (!json_object_object_get_ex(m, key, &m))
				return false;
			p = dot + 1;
		}
		if (!json_object_object_get_ex(m, p, &v) ||
		    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
			return false;
		*value = json_object_get_double(v);
		return true;
	}
	return false;
}

static struct policy policy_of(json_object *result)
{
	struct policy p = { .origin = "" };
	json_object *pol;

	json_object_object_get_ex(result, "policy", &pol);
	snprintf(p.name, sizeof(p.name), "%s", json_get_str(pol, "name", ""));
	p.runtime_us = json_get_int64(pol, "runtime_us", 0);
	p.period_us = json_get_int64(pol, "period_us", 1);
	return p;
}

/*
 * The fair server a result's policy set, as the debate table prints it: "off", "10ms/1s" (its
 * period kept where none was named: "10ms/-"), or "as found" where the policy left it alone.
 */
static void fair_server_label(json_object *result, char *buf, size_t len)
{
	json_object *pol, *fs, *period;
	struct policy_fair_server set = { .set = true };

	if (!json_object_object_get_ex(result, "policy", &pol) || !json_object_object_get_ex(pol, "fair_server", &fs) ||
	    !fs) {
		snprintf(buf, len, "as found");
		return;
	}
	set.runtime_us = json_get_int64(fs, "runtime_us", 0);
	set.period_us = json_object_object_get_ex(fs, "period_us", &period) && period ? json_object_get_int64(period) : 0;
	if (!set.runtime_us)
		snprintf(buf, len, "off");
	else if (!set.period_us)
		snprintf(buf, len, "%lldus/-", (long long)set.runtime_us);
	else
		policy_fair_server_format(&set, buf, len);
}

/* Where the limit starts cutting into jobs (throttled misses), per scenario and policy. */
static json_object *edges(json_object *results, const struct kernel_model *model)
{
	json_object *out = json_object_new_array();
	size_t n = json_object_array_length(results);

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(results, i), *sw, *row;
		double clean = -1, missing = 2;
		struct policy p = policy_of(r);
		struct limiter l;
		bool seen = false;

		if (!json_object_object_get_ex(r, "sweep", &sw) || strcmp(json_get_str(sw, "param", ""), "utilisation"))
			continue;
		/* One row per scenario x policy: skip if an earlier result already made it. */
		for (size_t k = 0; k < i && !seen; k++) {
			json_object *e = json_object_array_get_idx(results, k);

			seen = !strcmp(json_get_str(e, "scenario", ""), json_get_str(r, "scenario", "")) &&
			       !strcmp(policy_of(e).name, p.name) && json_object_object_get_ex(e, "sweep", NULL);
		}
		if (seen)
			continue;
		for (size_t k = i; k < n; k++) {
			json_object *e = json_object_array_get_idx(results, k), *esw;
			double misses, u;

			if (strcmp(json_get_str(e, "scenario", ""), json_get_str(r, "scenario", "")) ||
			    strcmp(policy_of(e).name, p.name) ||
			    !json_object_object_get_ex(e, "sweep", &esw) ||
			    !result_task_metric(e, json_get_str(esw, "task", ""), "throttled_misses", &misses))
				continue;
			u = json_get_number(esw, "value", 0);
			if (misses == 0)
				clean = fmax(clean, u);
			else
				missing = fmin(missing, u);
		}
		limiter_for(model, &p, &l);
		row = json_object_new_object();
		json_add_str(row, "scenario", json_get_str(r, "scenario", ""));
		json_add_str(row, "policy", p.name);
		json_object_object_add(row, "last_clean_utilisation", clean >= 0 ? json_object_new_double(clean) : NULL);
		json_object_object_add(row, "first_missing_utilisation", missing <= 1.5 ? json_object_new_double(missing) : NULL);
		json_add_double(row, "expected_edge", l.hog_share);
		json_object_array_add(out, row);
	}
	return out;
}

/* The worst (largest) value of a metric over the results of one scenario and policy. */
static bool worst(json_object *results, const char *scenario, const char *policy, const char *task,
		  const char *path, double *value)
{
	bool found = false;

	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i);
		double v;

		if (strcmp(json_get_str(r, "scenario", ""), scenario) || strcmp(policy_of(r).name, policy) ||
		    !result_task_metric(r, task, path, &v))
			continue;
		*value = found ? fmax(*value, v) : v;
		found = true;
	}
	return found;
}

/* The smallest value of a metric over the results of one scenario and policy (1 without any). */
static double least(json_object *results, const char *scenario, const char *policy, const char *task,
		    const char *path)
{
	double lowest = 1, v;

	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i);

		if (!strcmp(json_get_str(r, "scenario", ""), scenario) && !strcmp(policy_of(r).name, policy) &&
		    result_task_metric(r, task, path, &v))
			lowest = fmin(lowest, v);
	}
	return lowest;
}

static void add_figure(json_object *row, const char *key, bool found, double v)
{
	json_object_object_add(row, key, found ? json_object_new_double(v) : NULL);
}

/*
 * The debate table's columns: each the worst of one task metric over a scenario's results at
 * the row's policy (a second metric when the first is missing), scaled into the row's field,
 * and how it prints. A column's scenario is one that answers the debate's questions.
 */
struct debate_column {
	const char *key;		/* the row's field */
	const char *scenario, *task, *metric, *fallback;
	double scale;			/* field = worst * scale */
	const char *header, *format;	/* printed as format of field * print_scale, "-" when absent */
	double print_scale;
	int width;
	bool recovered;			/* followed by admin_recovered; prints "never" when it is false */
};

static const struct debate_column debate_columns[] = {
	{ "rt_share", "fifo-hog-share", "hog", "cpu_share_periods", "cpu_share", 1, "RT share", "%.4f", 1, 8, false },
	{ "cfs_starvation_max_ms", "fifo-hog-share", "victim", "starvation_max_us", NULL, 1e-3, "CFS starved ms", "%.1f",
	  1, 14, false },
	{ "admin_recovery_ms", "admin-recovery", "admin", "recovery_ms", NULL, 1, "admin back ms", "%.1f", 1, 14, true },
	{ "app90_deadline_misses", "ninety-percent-app", "app", "deadline_misses", NULL, 1, "90% misses", "%.0f", 1, 12,
	  false },
	{ "collateral_latency_max_us", "rt-probe-collateral", "probe", "latency_us.max", NULL, 1, "collateral ms", "%.1f",
	  1e-3, 14, false },
};
#define DEBATE_COLUMNS (sizeof(debate_columns) / sizeof(debate_columns[0]))

static bool answers_debate(json_object *result)
{
	for (size_t c = 0; c < DEBATE_COLUMNS; c++)
		if (!strcmp(json_get_str(result, "scenario", ""), debate_columns[c].scenario))
			return true;
	return false;
}

/* How many of the debate's scenarios the results hold. */
static int debate_scenarios_present(json_object *results)
{
	int present = 0;

	for (size_t c = 0; c < DEBATE_COLUMNS; c++) {
		bool again = false, found = false;

		for (size_t k = 0; k < c; k++)
			again |= !strcmp(debate_columns[k].scenario, debate_columns[c].scenario);
		for (size_t i = 0; i < json_object_array_length(results) && !again && !found; i++)
			found = !strcmp(json_get_str(json_object_array_get_idx(results, i), "scenario", ""),
					debate_columns[c].scenario);
		present += found;
	}
	return present;
}

static void debate_cell(json_object *results, json_object *row, const char *policy, const struct debate_column *col)
{
	double v = 0;
	bool found = worst(results, col->scenario, policy, col->task, col->metric, &v) ||
		     (col->fallback && worst(results, col->scenario, policy, col->task, col->fallback, &v));

	add_figure(row, col->key, found, v * col->scale);
	if (col->recovered) {
		/* Recovered in every repetition: the least of the 0/1 figures, null without data. */
		found = worst(results, col->scenario, policy, col->task, "recovered", &v);
		json_object_object_add(row, "admin_recovered", found ? json_object_new_boolean(least(results, col->scenario, policy, col->task, "recovered") > 0) : NULL);
	}
}

/* The debate of 2008, policy by policy: a row for each policy its scenarios ran at. */
static json_object *debate(json_object *results)
{
	json_object *rows;

	if (debate_scenarios_present(results) < 2)
		return NULL;
	rows = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i), *row;
		struct policy p = policy_of(r);
		char label[48];
		bool seen = false;

		for (size_t k = 0; k < json_object_array_length(rows) && !seen; k++)
			seen = !strcmp(json_get_str(json_object_array_get_idx(rows, k), "policy", ""), p.name);
		if (seen || !answers_debate(r))
			continue;
		row = json_object_new_object();
		json_add_str(row, "policy", p.name);
		json_add_int64(row, "runtime_us", p.runtime_us);
		json_add_int64(row, "period_us", p.period_us);
		fair_server_label(r, label, sizeof(label));
		json_add_str(row, "fair_server", label);
		for (size_t c = 0; c < DEBATE_COLUMNS; c++)
			debate_cell(results, row, p.name, &debate_columns[c]);
		json_object_array_add(rows, row);
	}
	return rows;
}

void tables_add(json_object *root, json_object *results, const struct kernel_model *model)
{
	json_object *e = edges(results, model), *d = debate(results);

	if (json_object_array_length(e))
		json_object_object_add(root, "edges", e);
	else
		json_object_put(e);
	if (d)
		json_object_object_add(root, "debate", d);
}

static void headline(json_object *r, char *buf, size_t len)
{
	json_object *checks, *c = NULL;

	buf[0] = '\0';
	if (!json_object_object_get_ex(r, "checks", &checks) || !json_object_array_length(checks)) {
		snprintf(buf, len, "%s", json_get_str(r, json_object_object_get_ex(r, "error", NULL) ? "error" : "skip_reason", ""));
		return;
	}
	for (size_t i = 0; i < json_object_array_length(checks) && !c; i++)
		if (verdict_or(json_get_str(json_object_array_get_idx(checks, i), "verdict", NULL), VERDICT_NOT_MEASURED) ==
		    VERDICT_FAIL)
			c = json_object_array_get_idx(checks, i);
	if (!c)
		c = json_object_array_get_idx(checks, 0);
	snprintf(buf, len, "%s.%s%s%s %.4g (%s %.4g)", json_get_str(c, "task", ""), json_get_str(c, "metric", ""),
		 json_get_str(c, "name", "")[0] ? "." : "", json_get_str(c, "name", ""), json_get_number(c, "measured", 0),
		 json_get_str(c, "kind", ""), json_get_number(c, "expected", 0));
}

static void fmt(char *buf, size_t len, json_object *row, const char *key, const char *format, const char *none)
{
	json_object *v;

	if (json_object_object_get_ex(row, key, &v) && v)
		snprintf(buf, len, format, json_object_get_double(v));
	else
		snprintf(buf, len, "%s", none);
}

void tables_print(json_object *root)
{
	json_object *results, *rows;
	bool repeated = false;	/* label results .repN when the run repeated them */

	json_object_object_get_ex(root, "results", &results);
	for (size_t i = 0; i < json_object_array_length(results); i++)
		repeated |= json_get_number(json_object_array_get_idx(results, i), "repetition", 1) > 1;
	ktap_diag("%-44s %-18s %7s  %s", "result", "regime", "verdict", "first failed (or first) check");
	/* The results about the kernel itself first, as KTAP numbers them. */
	if (json_object_object_get_ex(root, "kernel_results", &rows))
		for (size_t i = 0; i < json_object_array_length(rows); i++) {
			json_object *r = json_object_array_get_idx(rows, i);
			char line[160];

			headline(r, line, sizeof(line));
			ktap_diag("%-44s %-18s %7s  %s", json_get_str(r, "name", ""), "-", json_get_str(r, "verdict", ""), line);
		}
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i), *sw;
		char name[96], line[160];

		snprintf(name, sizeof(name), "%s.%s", json_get_str(r, "scenario", ""), policy_of(r).name);
		if (json_object_object_get_ex(r, "sweep", &sw))
			snprintf(name + strlen(name), sizeof(name) - strlen(name), ".%s=%g", json_get_str(sw, "param", ""),
				 json_get_number(sw, "value", 0));
		if (repeated)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), ".rep%.0f", json_get_number(r, "repetition", 1));
		headline(r, line, sizeof(line));
		ktap_diag("%-44s %-18s %7s  %s", name, json_get_str(r, "regime", ""), json_get_str(r, "verdict", ""), line);
	}
	if (json_object_object_get_ex(root, "edges", &rows)) {
		ktap_diag("duty cycle edge: %-24s %-18s %10s %12s %9s", "scenario", "policy", "no misses", "misses from",
			  "expected");
		for (size_t i = 0; i < json_object_array_length(rows); i++) {
			json_object *row = json_object_array_get_idx(rows, i);
			char clean[16], missing[16];

			fmt(clean, sizeof(clean), row, "last_clean_utilisation", "%.2f", "none");
			fmt(missing, sizeof(missing), row, "first_missing_utilisation", "%.2f", "none");
			ktap_diag("duty cycle edge: %-24s %-18s %10s %12s %9.3f", json_get_str(row, "scenario", ""),
				  json_get_str(row, "policy", ""), clean, missing, json_get_number(row, "expected_edge", 0));
		}
	}
	if (json_object_object_get_ex(root, "debate", &rows)) {
		char line[320];
		int at = snprintf(line, sizeof(line), "%-18s %-12s", "policy", "fair server");

		for (size_t c = 0; c < DEBATE_COLUMNS; c++)
			at += snprintf(line + at, sizeof(line) - at, " %*s", debate_columns[c].width, debate_columns[c].header);
		ktap_diag("debate: %s", line);
		for (size_t i = 0; i < json_object_array_length(rows); i++) {
			json_object *row = json_object_array_get_idx(rows, i);

			at = snprintf(line, sizeof(line), "%-18s %-12s", json_get_str(row, "policy", ""),
				      json_get_str(row, "fair_server", "as found"));
			for (size_t c = 0; c < DEBATE_COLUMNS; c++) {
				const struct debate_column *col = &debate_columns[c];
				json_object *v;
				char cell[32] = "-";

				if (json_object_object_get_ex(row, col->key, &v) && v)
					snprintf(cell, sizeof(cell), col->format, json_object_get_double(v) * col->print_scale);
				if (col->recovered && json_object_object_get_ex(row, "admin_recovered", &v) && v &&
				    !json_object_get_boolean(v))
					snprintf(cell, sizeof(cell), "never");
				at += snprintf(line + at, sizeof(line) - at, " %*s", col->width, cell);
			}
			ktap_diag("debate: %s", line);
		}
	}
}
