/* What the export formats share: their options, checks on them, atomic writes, result names. */
#include "export.h"
#include "judge.h"
#include "results.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

bool export_option(struct export_options *o, int c, const char *arg)
{
	switch (c) {
	case EXPORT_OPT_JUNIT: o->junit = arg; return true;
	case EXPORT_OPT_KCIDB: o->kcidb = arg; return true;
	case EXPORT_OPT_RTTESTS: o->rttests = arg; return true;
	case EXPORT_OPT_ORIGIN: o->kcidb_origin = arg; return true;
	case EXPORT_OPT_BUILD_ID: o->kcidb_build_id = arg; return true;
	default: return false;
	}
}

bool export_wanted(const struct export_options *o)
{
	return o->junit || o->kcidb || o->rttests;
}

static bool matches(const char *text, const char *pattern)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return false;
	ok = !regexec(&re, text, 0, NULL, 0);
	regfree(&re);
	return ok;
}

bool export_options_check(const struct export_options *o, const char *command, const char *also,
			  const char *also_name)
{
	const char *paths[] = { o->junit, o->kcidb, o->rttests, also };
	const char *const names[] = { "--junit", "--kcidb", "--rt-tests-json", also_name };
	char why[PATH_MAX + 64];

	/* KCIDB v5: origin [a-z0-9_]+; every id is ORIGIN:ANYTHING. */
	if (o->kcidb_origin && !matches(o->kcidb_origin, "^[a-z0-9_]+$")) {
		fprintf(stderr, "rtthrottle %s: --kcidb-origin '%s': KCIDB wants lowercase letters, digits and _ only\n",
			command, o->kcidb_origin);
		return false;
	}
	if (o->kcidb_build_id && !matches(o->kcidb_build_id, "^[a-z0-9_]+:.+$")) {
		fprintf(stderr, "rtthrottle %s: --kcidb-build-id '%s': KCIDB wants ORIGIN:ID (e.g. myci:build-1234)\n",
			command, o->kcidb_build_id);
		return false;
	}
	for (int i = 0; i < 3; i++) {
		if (!paths[i])
			continue;
		for (int k = i + 1; k < 4; k++)
			if (paths[k] && !strcmp(paths[i], paths[k])) {
				fprintf(stderr, "rtthrottle %s: %s %s: the same file as %s\n", command, names[i], paths[i],
					names[k]);
				return false;
			}
		if (strlen(paths[i]) >= PATH_MAX - 32) {
			fprintf(stderr, "rtthrottle %s: %s: path too long\n", command, names[i]);
			return false;
		}
		if (!results_path_writable(paths[i], why, sizeof(why))) {
			fprintf(stderr, "rtthrottle %s: %s %s: cannot write there: %s\n", command, names[i], paths[i], why);
			return false;
		}
	}
	return true;
}

static bool write_text(const char *path, const char *what, const char *text)
{
	size_t len = text ? strlen(text) : 0;
	int err = text ? write_file_atomic(path, text, len) : ENOMEM;

	if (err)
		fprintf(stderr, "rtthrottle: cannot write %s to %s: %s\n", what, path, strerror(err));
	else
		fprintf(stderr, "rtthrottle: %s in %s\n", what, path);
	return !err;
}

static bool write_json(const char *path, const char *what, json_object *doc)
{
	const char *text = doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									  JSON_C_TO_STRING_NOSLASHESCAPE)
			       : NULL;
	char *with_newline = NULL;
	bool ok;

	if (text && asprintf(&with_newline, "%s\n", text) < 0)
		with_newline = NULL;
	ok = write_text(path, what, with_newline);
	free(with_newline);
	json_object_put(doc);
	return ok;
}

bool export_write_all(json_object *root, const struct export_options *o)
{
	bool ok = true;

	if (o->junit) {
		char *xml = export_junit(root);

		ok &= write_text(o->junit, "JUnit XML", xml);
		free(xml);
	}
	if (o->kcidb)
		ok &= write_json(o->kcidb, "KCIDB JSON",
				 export_kcidb(root, o->kcidb_origin ? o->kcidb_origin : KCIDB_ORIGIN_DEFAULT,
					      o->kcidb_build_id));
	if (o->rttests)
		ok &= write_json(o->rttests, "rt-tests JSON", export_rttests(root));
	return ok;
}

json_object *export_get(json_object *obj, const char *key)
{
	json_object *v = NULL;

	return json_object_is_type(obj, json_type_object) && json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

const char *export_string(json_object *obj, const char *key, const char *fallback)
{
	json_object *v = export_get(obj, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : fallback;
}

bool export_verdict_skipped(const char *verdict)
{
	return !strcmp(verdict, "skip") || !strcmp(verdict, "unjudged");
}

double export_number(json_object *obj, const char *key)
{
	json_object *v = export_get(obj, key);

	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
		return json_object_get_double(v);
	return NAN;
}

void export_case_name(json_object *result, int max_rep, char *buf, size_t len)
{
	json_object *sweep = export_get(result, "sweep");
	double value = export_number(sweep, "value"), rep = export_number(result, "repetition");
	int n = snprintf(buf, len, "%s.%s", export_string(result, "scenario", "unknown"),
			 export_string(export_get(result, "policy"), "name", "unknown"));

	if (sweep && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ".%s=%g", export_string(sweep, "param", "value"),
			      isfinite(value) ? value : 0);
	if (max_rep > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ".rep%d", isfinite(rep) ? (int)rep : 1);
}

static void check_key(json_object *c, bool with_kind, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s%s%s", export_string(c, "task", "unknown"), export_string(c, "metric", "unknown"),
		 with_kind ? "." : "", with_kind ? export_string(c, "kind", "unknown") : "");
}

void export_check_name(json_object *checks, size_t i, char *buf, size_t len)
{
	json_object *c = json_object_array_get_idx(checks, i);
	int same_metric = 0, same_kind = 0, rank = 0;
	char with_kind[160], metric[160], other[160];

	check_key(c, true, with_kind, sizeof(with_kind));
	check_key(c, false, metric, sizeof(metric));
	for (size_t k = 0; k < json_object_array_length(checks); k++) {
		check_key(json_object_array_get_idx(checks, k), true, other, sizeof(other));
		if (!strcmp(with_kind, other)) {
			same_kind++;
			rank += k <= i;
		}
		check_key(json_object_array_get_idx(checks, k), false, other, sizeof(other));
		same_metric += !strcmp(metric, other);
	}
	snprintf(buf, len, "%s", same_metric > 1 ? with_kind : metric);
	if (same_kind > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), ".%d", rank);
}

int export_max_repetition(json_object *results)
{
	size_t n = json_object_is_type(results, json_type_array) ? json_object_array_length(results) : 0;
	int max = 1;

	for (size_t i = 0; i < n; i++) {
		double rep = export_number(json_object_array_get_idx(results, i), "repetition");

		if (isfinite(rep) && rep > max && rep < INT_MAX)
			max = (int)rep;
	}
	return max;
}

const char *export_metric_unit(const char *metric)
{
	size_t n = strlen(metric);

	if (n > 2 && !strcmp(metric + n - 2, "_s"))
		return "s";
	if (n > 3 && !strcmp(metric + n - 3, "_ns"))
		return "ns";
	return judge_metric_unit(metric);
}
