// SPDX-License-Identifier: GPL-2.0-only
/* Built from the results alone: sweep edges against the model's, and each policy's worst debate figures. */
#include "tables.h"
#include "json_util.h"
#include "expect.h"
#include "policy.h"
#include "report.h"

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
	p.runtime_us = (int64_t)json_get_number(pol, "runtime_us", 0);
	p.period_us = (int64_t)json_get_number(pol, "period_us", 1);
	return p;
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

/* The smallest admin "recovered" figure over the admin-recovery results of a policy. */
static double least(json_object *results, const char *policy)
{
	double lowest = 1, v;

	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i);

		if (!strcmp(json_get_str(r, "scenario", ""), "admin-recovery") && !strcmp(policy_of(r).name, policy) &&
		    result_task_metric(r, "admin", "recovered", &v))
			lowest = fmin(lowest, v);
	}
	return lowest;
}

static void add_figure(json_object *row, const char *key, bool found, double v)
{
	json_object_object_add(row, key, found ? json_object_new_double(v) : NULL);
}

/* The scenarios that answer the debate's questions. */
static const char *const debate_scenarios[] = { "fifo-hog-share", "admin-recovery", "ninety-percent-app",
						 "rt-probe-collateral" };
#define DEBATE_SCENARIOS (sizeof(debate_scenarios) / sizeof(debate_scenarios[0]))

static bool answers_debate(json_object *result)
{
	for (size_t s = 0; s < DEBATE_SCENARIOS; s++)
		if (!strcmp(json_get_str(result, "scenario", ""), debate_scenarios[s]))
			return true;
	return false;
}

/* The debate of 2008, policy by policy: a row for each policy its scenarios ran at. */
static json_object *debate(json_object *results)
{
	json_object *rows = json_object_new_array();
	int answering = 0;

	for (size_t s = 0; s < DEBATE_SCENARIOS; s++)
		for (size_t i = 0; i < json_object_array_length(results); i++)
			if (!strcmp(json_get_str(json_object_array_get_idx(results, i), "scenario", ""), debate_scenarios[s])) {
				answering++;
				break;
			}
	if (answering < 2)
		return json_object_put(rows), NULL;
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i), *row;
		struct policy p = policy_of(r);
		bool seen = false, found;
		double v = 0;

		for (size_t k = 0; k < json_object_array_length(rows) && !seen; k++)
			seen = !strcmp(json_get_str(json_object_array_get_idx(rows, k), "policy", ""), p.name);
		if (seen || !answers_debate(r))
			continue;
		row = json_object_new_object();
		json_add_str(row, "policy", p.name);
		json_add_int64(row, "runtime_us", p.runtime_us);
		json_add_int64(row, "period_us", p.period_us);
		found = worst(results, "fifo-hog-share", p.name, "hog", "cpu_share_periods", &v) ||
			worst(results, "fifo-hog-share", p.name, "hog", "cpu_share", &v);
		add_figure(row, "rt_share", found, v);
		found = worst(results, "fifo-hog-share", p.name, "victim", "starvation_max_us", &v);
		add_figure(row, "cfs_starvation_max_ms", found, v / 1000);
		found = worst(results, "admin-recovery", p.name, "admin", "recovery_ms", &v);
		add_figure(row, "admin_recovery_ms", found, v);
		/* Recovered in every repetition: the least of the 0/1 figures, null without data. */
		found = worst(results, "admin-recovery", p.name, "admin", "recovered", &v);
		json_object_object_add(row, "admin_recovered", found ? json_object_new_boolean(least(results, p.name) > 0) : NULL);
		found = worst(results, "ninety-percent-app", p.name, "app", "deadline_misses", &v);
		add_figure(row, "app90_deadline_misses", found, v);
		found = worst(results, "rt-probe-collateral", p.name, "probe", "latency_us.max", &v);
		add_figure(row, "collateral_latency_max_us", found, v);
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
		if (!strcmp(json_get_str(json_object_array_get_idx(checks, i), "verdict", ""), "fail"))
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
		ktap_diag("debate: %-18s %8s %14s %14s %12s %14s", "policy", "RT share", "CFS starved ms", "admin back ms",
			  "90% misses", "collateral ms");
		for (size_t i = 0; i < json_object_array_length(rows); i++) {
			json_object *row = json_object_array_get_idx(rows, i), *v;
			char share[16], starved[16], admin[16], misses[16], collateral[16];

			fmt(share, sizeof(share), row, "rt_share", "%.4f", "-");
			fmt(starved, sizeof(starved), row, "cfs_starvation_max_ms", "%.1f", "-");
			fmt(admin, sizeof(admin), row, "admin_recovery_ms", "%.1f", "-");
			if (json_object_object_get_ex(row, "admin_recovered", &v) && v && !json_object_get_boolean(v))
				snprintf(admin, sizeof(admin), "never");
			fmt(misses, sizeof(misses), row, "app90_deadline_misses", "%.0f", "-");
			fmt(collateral, sizeof(collateral), row, "collateral_latency_max_us", "%.0f", "-");
			if (strcmp(collateral, "-"))
				snprintf(collateral, sizeof(collateral), "%.1f",
					 json_get_number(row, "collateral_latency_max_us", 0) / 1000);
			ktap_diag("debate: %-18s %8s %14s %14s %12s %14s", json_get_str(row, "policy", ""), share, starved, admin,
				  misses, collateral);
		}
	}
}
