// SPDX-License-Identifier: GPL-2.0-only
/* The harness side of the cyclictest role: its settings, its --json file checked field by field, metrics. */
#include "cyclictest.h"
#include "json_util.h"
#include "latency.h"
#include "metrics.h"
#include "scenario_task.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool get_count(json_object *obj, const char *key, uint64_t *out, char *why, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v)) {
		snprintf(why, len, "thread.0.%s: missing", key);
		return false;
	}
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
		snprintf(why, len, "thread.0.%s: must be a whole number >= 0", key);
		return false;
	}
	*out = (uint64_t)json_object_get_int64(v);
	return true;
}

/* The histogram: {"us": count, ...}; returns the samples it holds, or -1 after saying why. */
static int64_t read_histogram(json_object *hist, struct latency_stats *lat, char *why, size_t len)
{
	int64_t total = 0;

	if (!json_object_is_type(hist, json_type_object)) {
		snprintf(why, len, "thread.0.histogram: missing or not an object");
		return -1;
	}
	json_object_object_foreach(hist, key, v) {
		char *end;
		long long us;

		errno = 0;
		us = strtoll(key, &end, 10);
		if (end == key || *end || us < 0 || errno) {
			snprintf(why, len, "thread.0.histogram: key \"%.32s\" is not a number of microseconds", key);
			return -1;
		}
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > INT64_MAX - total) {
			snprintf(why, len, "thread.0.histogram.%.32s: must be a count >= 0", key);
			return -1;
		}
		latency_add_bucket(lat, (uint64_t)us, (uint64_t)json_object_get_int64(v));
		total += json_object_get_int64(v);
	}
	return total;
}

static bool ingest_thread(json_object *t, struct cyclictest_result *out, char *why, size_t len)
{
	uint64_t min, max;
	json_object *v;
	int64_t in_hist;

	if (!json_object_is_type(t, json_type_object)) {
		snprintf(why, len, "thread.0: missing or not an object");
		return false;
	}
	if (!get_count(t, "cycles", &out->cycles, why, len) || !get_count(t, "min", &min, why, len) ||
	    !get_count(t, "max", &max, why, len))
		return false;
	if (!json_object_object_get_ex(t, "avg", &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    !isfinite(json_object_get_double(v)) || json_object_get_double(v) < 0) {
		snprintf(why, len, "thread.0.avg: missing or not a number >= 0");
		return false;
	}
	out->avg_us = json_object_get_double(v);
	out->cpu = json_object_object_get_ex(t, "cpu", &v) && json_object_is_type(v, json_type_int) ? json_object_get_int(v) : -1;
	if (!out->cycles) {
		snprintf(why, len, "thread.0.cycles: 0, nothing was measured");
		return false;
	}
	if (min > max) {
		snprintf(why, len, "thread.0: min %llu is above max %llu", (unsigned long long)min, (unsigned long long)max);
		return false;
	}
	json_object_object_get_ex(t, "histogram", &v);
	in_hist = read_histogram(v, &out->latency, why, len);
	if (in_hist < 0)
		return false;
	if ((uint64_t)in_hist > out->cycles) {
		snprintf(why, len, "thread.0.histogram: holds %lld samples, more than its %llu cycles", (long long)in_hist,
			 (unsigned long long)out->cycles);
		return false;
	}
	out->overflows = out->cycles - (uint64_t)in_hist;
	out->latency.count = out->cycles;
	out->latency.min_ns = min * 1000;
	out->latency.max_ns = max * 1000;
	out->latency.sum_ns = (uint64_t)llround(out->avg_us * 1000 * (double)out->cycles);
	return true;
}

bool cyclictest_ingest(const char *path, struct cyclictest_result *out, char *why, size_t why_len)
{
	json_object *root = json_object_from_file(path), *v, *threads;
	char detail[200] = "";
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (!root) {
		snprintf(why, why_len, "cyclictest JSON %s: cannot read or parse: %s", path, json_util_get_last_err());
		return false;
	}
	if (!json_object_is_type(root, json_type_object))
		snprintf(detail, sizeof(detail), "(top level): not an object");
	else if (json_object_object_get_ex(root, "resolution_in_ns", &v) && json_object_get_int(v))
		snprintf(detail, sizeof(detail), "resolution_in_ns: values in ns (-N) are not read; run without -N");
	else if (!json_object_object_get_ex(root, "thread", &threads) || !json_object_is_type(threads, json_type_object))
		snprintf(detail, sizeof(detail), "thread: missing or not an object");
	else if (!json_object_object_get_ex(threads, "0", &v))
		snprintf(detail, sizeof(detail), "thread.0: missing (no measuring thread)");
	else
		ok = ingest_thread(v, out, detail, sizeof(detail));
	/* The key is spelt with a colon in rt-tests 2.x. */
	if (ok && (json_object_object_get_ex(root, "rt_test_version:", &v) || json_object_object_get_ex(root, "rt_test_version", &v)))
		snprintf(out->version, sizeof(out->version), "%s", json_object_get_string(v));
	if (!ok)
		snprintf(why, why_len, "cyclictest JSON %s: %s", path, detail);
	json_object_put(root);
	return ok;
}

json_object *cyclictest_latency_json(const struct cyclictest_result *r)
{
	return tool_latency_to_json(&r->latency, r->overflows);
}

void cyclictest_configure(const struct scenario_task *t, struct task_config *c)
{
	c->interval_ns = (uint64_t)(task_param(t, "interval_us") * 1000);
	c->histogram_us = (uint64_t)task_param(t, "histogram_us");
	c->avoid_cpu = c->cpu;	/* only its measuring thread goes there (-a) */
}

void cyclictest_metrics_json(json_object *obj, const struct task_record *rec)
{
	const struct external_stats *x = &rec->u.external;
	struct cyclictest_result *r = malloc(sizeof(*r));
	char why[320];

	json_add_str(obj, "command", x->command);
	if (r && cyclictest_ingest(x->output, r, why, sizeof(why))) {
		json_add_int64(obj, "cycles", (int64_t)r->cycles);
		json_object_object_add(obj, "latency_us", cyclictest_latency_json(r));
		json_add_int64(obj, "overflows", (int64_t)r->overflows);
		json_add_int64(obj, "histogram_us", (int64_t)rec->config.histogram_us);
		json_add_str(obj, "cyclictest_version", r->version);
		/* From the window start to its measuring thread: the window it did not measure. */
		if (x->measuring_ns)
			json_add_double(obj, "start_lag_us",
					x->measuring_ns > rec->first_ns ? (double)(x->measuring_ns - rec->first_ns) / 1000 : 0);
		/* From the window end to the stop sent to its measuring thread: it may count cycles in it. */
		if (x->stopped_ns)
			json_add_double(obj, "stop_lag_us", x->stopped_ns > rec->first_ns + rec->config.window_ns
						? (double)(x->stopped_ns - rec->first_ns - rec->config.window_ns) / 1000 : 0);
	} else {
		/* No latency metrics: checks on them are not measured, and fail. */
		json_add_str(obj, "cyclictest_error", r ? why : "out of memory");
	}
	free(r);
	unlink(x->output);
}

bool cyclictest_probe_max_in_span_us(const struct task_record *probe, const struct task_record *cyclictest, double *out)
{
	const struct external_stats *x = &cyclictest->u.external;
	uint64_t lag_ns;

	if (!x->measuring_ns)
		return false;
	lag_ns = x->measuring_ns > cyclictest->first_ns ? x->measuring_ns - cyclictest->first_ns : 0;
	/* Longest first: the first one at or after the lag is the span's longest. */
	for (int i = 0; i < LONGEST_GAPS && probe->u.latency.worst[i].len_ns; i++)
		if (probe->u.latency.worst[i].start_ns >= lag_ns) {
			*out = probe->u.latency.worst[i].len_ns / 1e3;
			return true;
		}
	return false;
}

const char *cyclictest_unsupported(const struct scenario *s)
{
	for (int i = 0; i < s->task_count; i++)
		if (s->tasks[i].role == ROLE_CYCLICTEST && !program_on_path("cyclictest"))
			return "needs cyclictest (Debian package rt-tests): not found on PATH";
	return NULL;
}
