// SPDX-License-Identifier: GPL-2.0-only
/*
 * KCIDB v5 test objects ({"version": {"major": 5, "minor": 0}, "tests": [...]}), for kcidb-submit.
 * Paths are dotted: "rtthrottle" (the run), "rtthrottle.<scenario>.<policy>[.<param>-<value>]
 * [.repN]" (a result, export_result_path), and below it the check's KTAP name "<task>.<metric>
 * [.<name>]" for each check (PASS/FAIL, SKIP when not judged) and "<task>.<metric>" for each
 * other numeric metric (DONE), with the value in `number`.
 */
#include "export.h"
#include "json_util.h"

#include <math.h>
#include <string.h>

struct kcidb_ctx {
	json_object *tests;
	const char *origin, *run_id, *start;
	char build_id[256];
	json_object *environment;
};

static json_object *new_test(struct kcidb_ctx *k, const char *path, const char *status)
{
	json_object *t = json_object_new_object();
	char id[768];

	/* Unique within the origin: the run id (UTC start and host) and the path. */
	snprintf(id, sizeof(id), "%s:%s:%s", k->origin, k->run_id, path);
	json_add_str(t, "id", id);
	json_add_str(t, "build_id", k->build_id);
	json_add_str(t, "origin", k->origin);
	json_add_str(t, "path", path);
	json_add_str(t, "status", status);
	if (k->start[0])
		json_add_str(t, "start_time", k->start);
	json_object_object_add(t, "environment", json_object_get(k->environment));
	json_object_array_add(k->tests, t);
	return t;
}

static void add_number(json_object *t, double value, const char *unit)
{
	json_object *number = json_object_new_object();

	json_add_double(number, "value", value);
	/* KCIDB: no unit means dimensionless (ratios, counts). */
	if (strcmp(unit, "ratio") && strcmp(unit, "count"))
		json_add_str(number, "unit", unit);
	json_object_object_add(t, "number", number);
}

static const char *result_status(enum verdict verdict)
{
	return verdict == VERDICT_PASS		 ? "PASS"
	       : verdict == VERDICT_FAIL	 ? "FAIL"
	       : export_verdict_skipped(verdict) ? "SKIP"
						 : "ERROR";
}

/* KCIDB's priority order, highest first: a collection's status is its highest. */
static int status_rank(const char *status)
{
	static const char *const order[] = { "FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP" };

	for (int i = 0; i < 6; i++)
		if (!strcmp(status, order[i]))
			return i;
	return 5;
}

static bool checked(json_object *checks, const char *task, const char *metric)
{
	size_t n = json_object_is_type(checks, json_type_array) ? json_object_array_length(checks) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(checks, i);

		if (!strcmp(export_string(c, "task", ""), task) && !strcmp(export_string(c, "metric", ""), metric))
			return true;
	}
	return false;
}

/* base.task.metric, the metric keeping its own dots (latency_us.max). */
static void metric_path(char *path, size_t len, const char *base, const char *task, const char *metric)
{
	char copy[128], *save = NULL;

	snprintf(path, len, "%s", base);
	export_path_append(path, len, task);
	snprintf(copy, sizeof(copy), "%s", metric);
	for (char *part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save))
		export_path_append(path, len, part);
}

static void add_finite(json_object *obj, const char *key, double value)
{
	if (isfinite(value))
		json_add_double(obj, key, value);
}

static void add_check(struct kcidb_ctx *k, const char *base, json_object *checks, size_t i)
{
	json_object *c = json_object_array_get_idx(checks, i);
	enum verdict verdict = export_verdict(c, VERDICT_NOT_MEASURED);
	bool judged = verdict == VERDICT_PASS || verdict == VERDICT_FAIL;
	double measured = export_number(c, "measured");
	const char *task = export_string(c, "task", "unknown");
	size_t task_len = strlen(task);
	char path[512], name[EXPORT_NAME_MAX];
	json_object *t, *misc = json_object_new_object();

	/*
	 * task.metric[.name][.N]: the task is one component, the rest keeps its dots. A name cut
	 * at EXPORT_NAME_MAX may hold no more than (part of) the task: then no rest.
	 */
	export_check_name(checks, i, name, sizeof(name));
	metric_path(path, sizeof(path), base, task,
		    strlen(name) > task_len && name[task_len] == '.' ? name + task_len + 1 : "");
	t = new_test(k, path, export_check_status(c));
	if (judged && isfinite(measured))
		add_number(t, measured, export_string(c, "unit", "count"));
	add_finite(misc, "expected", export_number(c, "expected"));
	add_finite(misc, "tolerance", export_number(c, "tolerance"));
	json_add_str(misc, "kind", export_string(c, "kind", ""));
	json_add_str(misc, "unit", export_string(c, "unit", ""));
	json_object_object_add(t, "misc", misc);
	json_add_str(t, "comment", export_string(c, "rule", ""));
}

/* A measured metric no check judged: DONE, with its value. */
static void add_metric(struct kcidb_ctx *k, const char *base, const char *task, const char *metric, double value)
{
	char path[512];

	metric_path(path, sizeof(path), base, task, metric);
	add_number(new_test(k, path, "DONE"), value, export_metric_unit(metric));
}

static bool finite_number(json_object *v)
{
	return (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
	       isfinite(json_object_get_double(v));
}

static void add_task_metrics(struct kcidb_ctx *k, const char *base, json_object *task, json_object *checks)
{
	const char *name = export_string(task, "name", export_string(task, "role", "task"));
	json_object *metrics = export_get(task, "metrics");

	if (!json_object_is_type(metrics, json_type_object))
		return;
	json_object_object_foreach(metrics, key, v) {
		if (finite_number(v) && !checked(checks, name, key))
			add_metric(k, base, name, key, json_object_get_double(v));
		if (!json_object_is_type(v, json_type_object) || strstr(key, "hist"))
			continue;
		/* One level down: latency_us.p99 and the like (not histograms). */
		json_object_object_foreach(v, sub, sv) {
			char metric[128];

			snprintf(metric, sizeof(metric), "%s.%s", key, sub);
			if (finite_number(sv) && !checked(checks, name, metric))
				add_metric(k, base, name, metric, json_object_get_double(sv));
		}
	}
}

/* The result's node, its checks and its other metrics; returns the result's status. */
static const char *add_result(struct kcidb_ctx *k, json_object *result, int max_rep)
{
	json_object *checks = export_get(result, "checks"),
		    *tasks = export_get(result, "tasks"), *t;
	const char *status = result_status(export_verdict(result, VERDICT_ERROR));
	const char *reason = export_string(result, "error", export_string(result, "skip_reason", NULL));
	double window = export_number(result, "window_s");
	char base[512], case_name[256];

	export_result_path(result, max_rep, base, sizeof(base));
	t = new_test(k, base, status);
	export_case_name(result, max_rep, case_name, sizeof(case_name));
	json_add_str(t, "comment", reason ? reason : case_name);
	if (isfinite(window))
		json_add_double(t, "duration", window);
	for (size_t i = 0; json_object_is_type(checks, json_type_array) && i < json_object_array_length(checks); i++)
		add_check(k, base, checks, i);
	for (size_t i = 0; json_object_is_type(tasks, json_type_array) && i < json_object_array_length(tasks); i++)
		add_task_metrics(k, base, json_object_array_get_idx(tasks, i), checks);
	return status;
}

static json_object *environment_of(json_object *root)
{
	json_object *system = export_get(root, "system"), *env = json_object_new_object(),
		    *misc = json_object_new_object();
	const char *host = export_string(system, "host", "unknown"),
		   *release = export_string(export_get(system, "kernel"), "release", "unknown");
	json_object *noise = export_get(root, "noise_floor");
	char comment[256];

	snprintf(comment, sizeof(comment), "host %s, kernel %s", host, release);
	json_add_str(env, "comment", comment);
	json_add_str(misc, "host", host);
	json_add_str(misc, "kernel_release", release);
	if (isfinite(export_number(noise, "cpu")))
		json_add_int(misc, "measured_cpu", export_int(noise, "cpu", -1));
	json_object_object_add(env, "misc", misc);
	return env;
}

json_object *export_kcidb(json_object *root, const char *origin, const char *build_id)
{
	json_object *doc = json_object_new_object(), *version = json_object_new_object(), *run = export_get(root, "run"),
		    *results = export_get(root, "results"), *top;
	size_t n = export_result_count(root);
	struct kcidb_ctx k = {
		.tests = json_object_new_array(),
		.origin = origin,
		.run_id = export_string(run, "id", "unknown"),
		.start = export_string(run, "start", ""),
		.environment = environment_of(root),
	};
	const char *status = "SKIP";
	int max_rep = export_max_repetition(results);
	json_object *restored = export_get(root, "knobs_restored");

	if (build_id)
		snprintf(k.build_id, sizeof(k.build_id), "%s", build_id);
	else
		snprintf(k.build_id, sizeof(k.build_id), "%s:%s", origin,
			 export_string(export_get(export_get(root, "system"), "kernel"), "release", "unknown"));
	json_add_int(version, "major", 5);
	json_add_int(version, "minor", 0);
	json_object_object_add(doc, "version", version);
	top = new_test(&k, "rtthrottle", "SKIP");
	for (size_t i = 0; i < n; i++) {
		const char *s = add_result(&k, export_result_at(root, i), max_rep);

		if (status_rank(s) < status_rank(status))
			status = s;
	}
	/* An incomplete run or knobs not put back is the harness's error, unless something failed. */
	if ((!json_object_get_boolean(export_get(run, "complete")) || (restored && !json_object_get_boolean(restored))) &&
	    status_rank(status) > status_rank("ERROR"))
		status = "ERROR";
	json_add_str(top, "status", status);
	json_add_str(top, "comment", export_string(run, "stop_reason", export_string(run, "cmdline", "")));
	json_object_object_add(top, "misc", json_object_new_object());
	if (export_get(root, "schema_version"))
		json_object_object_add(export_get(top, "misc"), "results_schema_version",
				       json_object_get(export_get(root, "schema_version")));
	json_object_object_add(doc, "tests", k.tests);
	json_object_put(k.environment);
	return doc;
}
