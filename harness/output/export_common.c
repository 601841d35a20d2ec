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
	const char *verdict = export_string(check, "verdict", "not-measured");

	return !strcmp(verdict, "pass") ? "PASS" : !strcmp(verdict, "fail") ? "FAIL" : !strcmp(verdict, "skip") ? "SKIP" : "ERROR";
}

void export_case_name(json_object *result, int max_rep, char *buf, size_t len)
{
	json_object *sweep = export_get(result, "sweep");
	double value = export_number(sweep, "value"), rep = export_number(result, "repetition");
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
