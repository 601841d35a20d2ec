// SPDX-License-Identifier: GPL-2.0-only
/* A results file read for comparison: each field checked as read, each value filed by case, task, metric. */
#include "result_file.h"
#include "json_util.h"
#include "results.h"
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	struct result_file *f;
	char field[160];	/* the JSON path being read, for messages */
	int values;		/* metric values taken so far */
};

__attribute__((format(printf, 2, 3))) static bool bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rtthrottle: %s: ", rd->f->path);
	if (rd->field[0])
		fprintf(stderr, "%s: ", rd->field);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}

__attribute__((format(printf, 2, 3))) static void at(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->field, sizeof(rd->field), fmt, ap);
	va_end(ap);
}

static bool is_number(json_object *v)
{
	return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

json_object *result_json_get(json_object *obj, const char *key)
{
	json_object *v = NULL;

	return json_object_is_type(obj, json_type_object) && json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

const char *result_json_string(json_object *obj, const char *key)
{
	json_object *v = result_json_get(obj, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A string field that must be there. */
static const char *need_string(struct reader *rd, json_object *obj, const char *key, const char *where)
{
	json_object *v = result_json_get(obj, key);

	at(rd, "%s.%s", where, key);
	if (!v)
		return bad(rd, "missing"), NULL;
	if (!json_object_is_type(v, json_type_string))
		return bad(rd, "must be a string"), NULL;
	return json_object_get_string(v);
}

static json_object *parse_file(struct reader *rd)
{
	FILE *fp = fopen(rd->f->path, "r");
	struct json_tokener *tok;
	json_object *root;
	char *text;
	long len;

	if (!fp)
		return bad(rd, "cannot read: %s", strerror(errno)), NULL;
	if (fseek(fp, 0, SEEK_END) || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
		fclose(fp);
		return bad(rd, "cannot read: %s", strerror(errno)), NULL;
	}
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, fp) != (size_t)len) {
		free(text);
		fclose(fp);
		return bad(rd, "cannot read the file"), NULL;
	}
	fclose(fp);
	text[len] = '\0';
	tok = json_tokener_new();
	root = json_tokener_parse_ex(tok, text, (int)len + 1);
	if (!root || json_tokener_get_error(tok) != json_tokener_success)
		bad(rd, "not valid JSON (%s near byte %zu)", json_tokener_error_desc(json_tokener_get_error(tok)),
		    json_tokener_get_parse_end(tok));
	if (root && json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	free(text);
	return root;
}

const struct series *result_file_find(const struct result_file *f, const char *case_name, const char *task,
				      const char *metric)
{
	for (int i = 0; i < f->series_count; i++) {
		const struct series *s = &f->series[i];

		if (!strcmp(s->case_name, case_name) && !strcmp(s->task, task) && !strcmp(s->metric, metric))
			return s;
	}
	return NULL;
}

bool result_file_has_scenario(const struct result_file *f, const char *scenario)
{
	for (int i = 0; i < f->scenario_count; i++)
		if (!strcmp(f->scenarios[i], scenario))
			return true;
	return false;
}

static bool add_scenario(struct result_file *f, const char *name)
{
	void *grown;

	if (result_file_has_scenario(f, name))
		return true;
	grown = realloc(f->scenarios, sizeof(*f->scenarios) * (size_t)(f->scenario_count + 1));
	if (!grown)
		return false;
	f->scenarios = grown;
	snprintf(f->scenarios[f->scenario_count++], sizeof(*f->scenarios), "%s", name);
	return true;
}

/* What a result says about one task's metric: its check's expected value and tolerance. */
struct check_view {
	json_object *checks;
	const char *task, *role;
};

/*
 * A check of this task with real figures: judged, or unjudged (its expected value and tolerance
 * hold; only its tolerance is as wide as what it exists to catch). A check not measured may
 * hold placeholders; one without a verdict is taken, one of a verdict of another name is not.
 */
static bool check_matches_task(json_object *c, const struct check_view *cv)
{
	const char *task = result_json_string(c, "task"), *name = result_json_string(c, "verdict");
	enum verdict verdict = verdict_or(name, VERDICT_NOT_MEASURED);

	if (name && verdict != VERDICT_PASS && verdict != VERDICT_FAIL && verdict != VERDICT_UNJUDGED)
		return false;
	return task && (!strcmp(task, cv->task) || !strcmp(task, cv->role));
}

static json_object *find_check(const struct check_view *cv, const char *metric)
{
	size_t n = json_object_is_type(cv->checks, json_type_array) ? json_object_array_length(cv->checks) : 0;

	for (size_t i = 0; metric && i < n; i++) {
		json_object *c = json_object_array_get_idx(cv->checks, i);
		const char *m = result_json_string(c, "metric");

		if (m && !strcmp(m, metric) && check_matches_task(c, cv))
			return c;
	}
	return NULL;
}

/*
 * A check's tolerance tells how far a single run may stray only where it has one: a bound on a
 * time with tolerance 0 (the probe's median wake-up latency at most a quarter tick) sits far
 * from what it judges and says nothing of how much that time varies from run to run (98 and
 * 144 us in two runs of one unmodified kernel under an emulator). Counts keep it: a count
 * moves by whole events, its minimum effect.
 */
static bool zero_time_bound(const struct metric_rule *rule, json_object *check)
{
	bool time = !strcmp(rule->unit, "us") || !strcmp(rule->unit, "ms");

	return time && json_get_number(check, "tolerance", NAN) == 0;
}

/*
 * A check that bounds the metric from the side the rule calls better (at least one throttled
 * miss above the RT share, where fewer misses is better) says nothing of how far a run may
 * stray towards worse: 61 and 98 misses in two unmodified runs both keep it.
 */
static bool bounds_the_better_side(const struct metric_rule *rule, json_object *check)
{
	const char *kind = result_json_string(check, "kind");

	return kind && ((rule->direction == DIR_LOWER && !strcmp(kind, "at_least")) ||
			(rule->direction == DIR_HIGHER && !strcmp(kind, "at_most")));
}

static void judge_inputs(const struct check_view *cv, const struct metric_rule *rule, const char *metric,
			 struct observation *o)
{
	json_object *own = find_check(cv, metric), *sibling = find_check(cv, rule->sibling);
	json_object *c = own ? own : sibling;

	o->target = o->tolerance = NAN;
	o->tol_source = TOL_NONE;
	if (rule->direction == DIR_TARGET && c)
		o->target = json_get_number(c, "expected", NAN);
	/*
	 * A bound that moves with what the run itself saw (misses a reservation's own overruns
	 * explain, under an emulator's stalls): what the check does not excuse is compared.
	 */
	if (rule->direction == DIR_LOWER && own) {
		const char *kind = result_json_string(own, "kind");

		if (kind && !strcmp(kind, "at_most"))
			o->target = json_get_number(own, "expected", NAN);
	}
	if (c && isfinite(json_get_number(c, "tolerance", NAN)) && !zero_time_bound(rule, c) &&
	    !bounds_the_better_side(rule, c)) {
		o->tolerance = json_get_number(c, "tolerance", NAN);
		o->tol_source = own ? TOL_CHECK : TOL_SIBLING;
	}
}

static bool add_value(struct reader *rd, const char *case_name, json_object *res, const char *task,
		      const char *role, const char *metric, const struct metric_rule *rule, double value, int rep)
{
	struct result_file *f = rd->f;
	struct series *s = (struct series *)result_file_find(f, case_name, task, metric);
	struct check_view cv = { result_json_get(res, "checks"), task, role };

	if (!s) {
		if (f->series_count == f->series_cap) {
			int cap = f->series_cap ? 2 * f->series_cap : 32;
			void *grown = realloc(f->series, sizeof(*f->series) * (size_t)cap);

			if (!grown)
				return bad(rd, "out of memory");
			f->series = grown;
			f->series_cap = cap;
		}
		s = &f->series[f->series_count++];
		memset(s, 0, sizeof(*s));
		snprintf(s->case_name, sizeof(s->case_name), "%s", case_name);
		snprintf(s->scenario, sizeof(s->scenario), "%s", result_json_string(res, "scenario"));
		snprintf(s->policy, sizeof(s->policy), "%s", result_json_string(result_json_get(res, "policy"), "name"));
		snprintf(s->task, sizeof(s->task), "%s", task);
		snprintf(s->role, sizeof(s->role), "%s", role);
		snprintf(s->metric, sizeof(s->metric), "%s", metric);
		s->rule = rule;
	}
	if (verdict_or(result_json_string(res, "verdict"), VERDICT_ERROR) == VERDICT_UNJUDGED)
		s->case_unjudged = true;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 4;
		void *grown = realloc(s->obs, sizeof(*s->obs) * (size_t)cap);

		if (!grown)
			return bad(rd, "out of memory");
		s->obs = grown;
		s->cap = cap;
	}
	s->obs[s->n] = (struct observation){ .value = value, .repetition = rep };
	judge_inputs(&cv, rule, metric, &s->obs[s->n]);
	s->n++;
	rd->values++;
	return true;
}

/* One metric value: a number, null (not measured), or anything else (an error). */
static bool take_metric(struct reader *rd, const char *case_name, json_object *res, const char *task,
			const char *role, const char *metric, json_object *v, int rep)
{
	const struct metric_rule *rule = metric_rule_find(role, metric);

	if (!rule || !v)
		return true;
	if (!is_number(v))
		return bad(rd, "must be a number, not %s", json_type_to_name(json_object_get_type(v)));
	if (!isfinite(json_object_get_double(v)))
		return bad(rd, "must be a finite number");
	return add_value(rd, case_name, res, task, role, metric, rule, json_object_get_double(v), rep);
}

static bool take_task(struct reader *rd, const char *case_name, json_object *res, json_object *t,
		      const char *where, int rep)
{
	const char *role = need_string(rd, t, "role", where), *name;
	json_object *metrics = result_json_get(t, "metrics");
	char here[160];

	if (!role)
		return false;
	name = result_json_string(t, "name") ? result_json_string(t, "name") : role;
	at(rd, "%s.metrics", where);
	if (!json_object_is_type(metrics, json_type_object))
		return bad(rd, metrics ? "must be an object" : "missing");
	snprintf(here, sizeof(here), "%s.metrics", where);
	json_object_object_foreach(metrics, key, v) {
		if (json_object_is_type(v, json_type_object)) {
			/* One level of nesting: latency_us.p99 and the like. */
			json_object_object_foreach(v, sub, sv) {
				char metric[64];

				if (snprintf(metric, sizeof(metric), "%s.%s", key, sub) >= (int)sizeof(metric))
					continue;
				at(rd, "%s.%s", here, metric);
				if (!take_metric(rd, case_name, res, name, role, metric, sv, rep))
					return false;
			}
			continue;
		}
		at(rd, "%s.%s", here, key);
		if (!take_metric(rd, case_name, res, name, role, key, v, rep))
			return false;
	}
	return true;
}

static bool take_checks(struct reader *rd, json_object *res, const char *where)
{
	json_object *checks = result_json_get(res, "checks");

	at(rd, "%s.checks", where);
	if (!checks)
		return true;
	if (!json_object_is_type(checks, json_type_array))
		return bad(rd, "must be an array");
	for (size_t i = 0; i < json_object_array_length(checks); i++) {
		json_object *c = json_object_array_get_idx(checks, i);
		static const char *const numbers[] = { "expected", "tolerance" };
		char here[160];

		snprintf(here, sizeof(here), "%s.checks[%zu]", where, i);
		at(rd, "%s", here);
		if (!json_object_is_type(c, json_type_object))
			return bad(rd, "must be an object");
		if (!need_string(rd, c, "task", here) || !need_string(rd, c, "metric", here))
			return false;
		for (size_t k = 0; k < 2; k++) {
			json_object *v = result_json_get(c, numbers[k]);

			at(rd, "%s.%s", here, numbers[k]);
			if (v && !is_number(v))
				return bad(rd, "must be a number");
		}
	}
	return true;
}

static bool case_name_of(struct reader *rd, json_object *res, const char *where, char *buf, size_t len)
{
	const char *scenario = need_string(rd, res, "scenario", where), *policy_name;
	json_object *policy = result_json_get(res, "policy"), *sweep = result_json_get(res, "sweep");
	char here[160];

	if (!scenario || !add_scenario(rd->f, scenario))
		return false;
	at(rd, "%s.policy", where);
	if (!json_object_is_type(policy, json_type_object))
		return bad(rd, policy ? "must be an object" : "missing");
	snprintf(here, sizeof(here), "%s.policy", where);
	if (!(policy_name = need_string(rd, policy, "name", here)))
		return false;
	snprintf(buf, len, "%s.%s", scenario, policy_name);
	if (sweep) {
		json_object *value = result_json_get(sweep, "value");
		const char *param = result_json_string(sweep, "param");

		at(rd, "%s.sweep", where);
		if (!param || !is_number(value))
			return bad(rd, "must be an object with a string param and a number value");
		snprintf(buf + strlen(buf), len - strlen(buf), ".%s=%g", param, json_object_get_double(value));
	}
	return true;
}

static bool take_result(struct reader *rd, json_object *res, size_t index)
{
	char where[48], case_name[192];
	const char *verdict;
	enum verdict known;
	json_object *tasks, *rep_v;
	int rep, values = rd->values;

	snprintf(where, sizeof(where), "results[%zu]", index);
	at(rd, "%s", where);
	if (!json_object_is_type(res, json_type_object))
		return bad(rd, "must be an object");
	if (!case_name_of(rd, res, where, case_name, sizeof(case_name)))
		return false;
	if (!(verdict = need_string(rd, res, "verdict", where)))
		return false;
	rep_v = result_json_get(res, "repetition");
	rep = is_number(rep_v) ? json_object_get_int(rep_v) : 1;
	tasks = result_json_get(res, "tasks");
	/* Skipped or stopped by an error: nothing measured. Any other verdict (pass, fail, unjudged) ran its window. */
	if (verdict_from_name(verdict, &known) && (known == VERDICT_SKIP || known == VERDICT_ERROR))
		return true;
	at(rd, "%s.tasks", where);
	if (!json_object_is_type(tasks, json_type_array))
		return bad(rd, tasks ? "must be an array" : "missing (the verdict is %s)", verdict);
	if (!take_checks(rd, res, where))
		return false;
	for (size_t t = 0; t < json_object_array_length(tasks); t++) {
		json_object *task = json_object_array_get_idx(tasks, t);
		char here[96];

		snprintf(here, sizeof(here), "%s.tasks[%zu]", where, t);
		at(rd, "%s", here);
		if (!json_object_is_type(task, json_type_object))
			return bad(rd, "must be an object");
		if (!take_task(rd, case_name, res, task, here, rep))
			return false;
	}
	/* Result-level metrics (e.g. an administrator's recovery_ms). */
	json_object_object_foreach(res, key, v) {
		if (!metric_rule_find("result", key))
			continue;
		at(rd, "%s.%s", where, key);
		if (!take_metric(rd, case_name, res, "result", "result", key, v, rep))
			return false;
	}
	if (rd->values > values)
		rd->f->measured_count++;
	return true;
}

/* A case unjudged in one repetition marks every series of it, also those its other repetitions gave. */
static void mark_unjudged_cases(struct result_file *f)
{
	for (int i = 0; i < f->series_count; i++) {
		if (!f->series[i].case_unjudged)
			continue;
		for (int k = 0; k < f->series_count; k++)
			if (!strcmp(f->series[k].case_name, f->series[i].case_name))
				f->series[k].case_unjudged = true;
	}
}

bool result_file_read(const char *path, struct result_file *out)
{
	struct reader rd = { .f = out };
	json_object *version, *results;

	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "%s", path);
	out->root = parse_file(&rd);
	if (!out->root)
		return false;
	if (!json_object_is_type(out->root, json_type_object)) {
		bad(&rd, "the top level is not a JSON object (not an rtthrottle results file)");
		goto fail;
	}
	version = result_json_get(out->root, "schema_version");
	at(&rd, "schema_version");
	if (!version) {
		bad(&rd, "missing (not an rtthrottle results file?)");
		goto fail;
	}
	if (!json_object_is_type(version, json_type_int)) {
		bad(&rd, "must be an integer");
		goto fail;
	}
	if (json_object_get_int(version) != RESULTS_SCHEMA_VERSION) {
		bad(&rd, "%d, but this rtthrottle reads version %d only", json_object_get_int(version),
		    RESULTS_SCHEMA_VERSION);
		goto fail;
	}
	results = result_json_get(out->root, "results");
	at(&rd, "results");
	if (!json_object_is_type(results, json_type_array)) {
		bad(&rd, results ? "must be an array" : "missing");
		goto fail;
	}
	out->run_id = result_json_string(result_json_get(out->root, "run"), "id");
	out->run_start = result_json_string(result_json_get(out->root, "run"), "start");
	out->kernel = result_json_string(result_json_get(result_json_get(out->root, "system"), "kernel"), "release");
	out->host = result_json_string(result_json_get(out->root, "system"), "host");
	out->result_count = (int)json_object_array_length(results);
	for (size_t i = 0; i < json_object_array_length(results); i++)
		if (!take_result(&rd, json_object_array_get_idx(results, i), i))
			goto fail;
	mark_unjudged_cases(out);
	return true;
fail:
	result_file_free(out);
	return false;
}

void result_file_free(struct result_file *f)
{
	for (int i = 0; i < f->series_count; i++)
		free(f->series[i].obs);
	free(f->series);
	free(f->scenarios);
	json_object_put(f->root);
	f->series = NULL;
	f->scenarios = NULL;
	f->root = NULL;
	f->series_count = f->series_cap = f->scenario_count = 0;
}
