// SPDX-License-Identifier: GPL-2.0-only
/* What the export formats share: field access, result and check names, units. */
#include "export.h"
#include "judge.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

enum verdict export_verdict(json_object *obj, enum verdict fallback)
{
	return verdict_or(export_string(obj, "verdict", NULL), fallback);
}

bool export_verdict_skipped(enum verdict verdict)
{
	return verdict == VERDICT_SKIP || verdict == VERDICT_UNJUDGED;
}

double export_number(json_object *obj, const char *key)
{
	json_object *v = export_get(obj, key);

	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
		return json_object_get_double(v);
	return NAN;
}

int export_int(json_object *obj, const char *key, int fallback)
{
	double v = export_number(obj, key);

	/* A cast of a double outside int's range is undefined: results files are input. */
	return isfinite(v) && v >= INT_MIN && v <= INT_MAX ? (int)v : fallback;
}

int64_t export_int64_floor(json_object *obj, const char *key, int64_t fallback)
{
	double v = floor(export_number(obj, key));

	/* 2^63 is exact as a double; anything at or above it does not fit. */
	return isfinite(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : fallback;
}

static size_t array_length(json_object *arr)
{
	return json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

size_t export_result_count(json_object *root)
{
	return array_length(export_get(root, "kernel_results")) + array_length(export_get(root, "results"));
}

json_object *export_result_at(json_object *root, size_t i)
{
	size_t kernel = array_length(export_get(root, "kernel_results"));

	return i < kernel ? json_object_array_get_idx(export_get(root, "kernel_results"), i)
			  : json_object_array_get_idx(export_get(root, "results"), i - kernel);
}

const char *export_check_status(json_object *check)
{
	enum verdict verdict = export_verdict(check, VERDICT_NOT_MEASURED);

	/* Not judged (skip, not measured, unjudged) is KTAP's "ok # SKIP": a skip in every format. */
	return verdict == VERDICT_PASS ? "PASS" : verdict == VERDICT_FAIL ? "FAIL" : "SKIP";
}

void export_case_name(json_object *result, int max_rep, char *buf, size_t len)
{
	json_object *sweep = export_get(result, "sweep");
	double value = export_number(sweep, "value");
	const char *own = export_string(result, "name", NULL);
	int n;

	if (own) {
		snprintf(buf, len, "%s", own);
		return;
	}
	n = snprintf(buf, len, "%s.%s", export_string(result, "scenario", "unknown"),
		     export_string(export_get(result, "policy"), "name", "unknown"));

	if (sweep && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ".%s=%g", export_string(sweep, "param", "value"),
			      isfinite(value) ? value : 0);
	if (max_rep > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ".rep%d", export_int(result, "repetition", 1));
}

/* The KTAP name: task.metric, and .name when the scenario's check has one. */
static void ktap_check_name(json_object *c, char *buf, size_t len)
{
	const char *label = export_string(c, "name", "");

	snprintf(buf, len, "%s.%s%s%s", export_string(c, "task", "unknown"), export_string(c, "metric", "unknown"),
		 label[0] ? "." : "", label);
}

void export_check_name(json_object *checks, size_t i, char *buf, size_t len)
{
	char other[EXPORT_NAME_MAX];
	int rank = 1, same = 0;

	ktap_check_name(json_object_array_get_idx(checks, i), buf, len);
	/* Scenarios keep KTAP names unique; a results file that does not still gets unique ids. */
	for (size_t k = 0; k < json_object_array_length(checks); k++) {
		ktap_check_name(json_object_array_get_idx(checks, k), other, sizeof(other));
		if (!strcmp(buf, other)) {
			same++;
			rank += k < i;
		}
	}
	if (same > 1 && rank > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), ".%d", rank);
}

void export_path_component(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ? c : '_';
	}
	dst[i] = '\0';
	if (!i && len > 1)
		snprintf(dst, len, "_");
}

void export_path_append(char *path, size_t len, const char *component)
{
	char clean[128];
	size_t used = strlen(path);

	export_path_component(clean, sizeof(clean), component);
	snprintf(path + used, len - used, "%s%s", used ? "." : "", clean);
}

void export_result_path(json_object *result, int max_rep, char *buf, size_t len)
{
	json_object *sweep = export_get(result, "sweep");

	snprintf(buf, len, "rtthrottle");
	if (export_get(result, "name")) {
		/* A kernel result: rtthrottle.regime-probe, rtthrottle.kernel-defaults. */
		export_path_append(buf, len, export_string(result, "name", "unknown"));
	} else {
		export_path_append(buf, len, export_string(result, "scenario", "unknown"));
		export_path_append(buf, len, export_string(export_get(result, "policy"), "name", "unknown"));
	}
	if (sweep) {
		char sw[96];

		snprintf(sw, sizeof(sw), "%s-%g", export_string(sweep, "param", "value"), export_number(sweep, "value"));
		export_path_append(buf, len, sw);
	}
	if (max_rep > 1) {
		char r[24];

		snprintf(r, sizeof(r), "rep%d", export_int(result, "repetition", 1));
		export_path_append(buf, len, r);
	}
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
