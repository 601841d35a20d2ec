// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probes' wake-up latencies in the layout of `cyclictest --json` (rt-tests 2.x), so parsers
 * of rt-tests results read them: every probe task of every result is one "thread" with
 * histogram (us -> count), cycles, min, max, avg, cpu, node, beside cyclictest's top-level fields.
 * As with `cyclictest -h 2000`, the histogram holds latencies below 2000 us (the results keep 1 us
 * buckets there) and longer ones count only in cycles and max; their coarse log2 buckets and
 * what each thread was are under the extra top-level key "rtthrottle".
 */
#include "export.h"
#include "json_util.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HISTOGRAM_LIMIT_US 2000	/* results/README.md: 1 us buckets below it, log2 above */

/* "2026-12-03T09:18:58Z" -> "Thu, 03 Dec 2026 09:18:58 +0000", as cyclictest writes times. */
static json_object *rfc2822(const char *iso)
{
	struct tm tm = { 0 };
	char buf[64];
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	time_t t;

	if (!end || *end)
		return json_object_new_string(iso ? iso : "");
	t = timegm(&tm);
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	return json_object_new_string(buf);
}

/* The NUMA node holding a CPU, from the system block; 0 when unknown (one node). */
static int node_of(json_object *root, int cpu)
{
	json_object *nodes = export_get(export_get(export_get(root, "system"), "numa"), "nodes");
	size_t n = json_object_is_type(nodes, json_type_array) ? json_object_array_length(nodes) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *node = json_object_array_get_idx(nodes, i), *cpus = export_get(node, "cpus");

		for (size_t c = 0; json_object_is_type(cpus, json_type_array) && c < json_object_array_length(cpus); c++)
			if (json_object_get_int(json_object_array_get_idx(cpus, c)) == cpu)
				return export_int(node, "node", 0);
	}
	return 0;
}

static json_object *sysinfo_of(json_object *root)
{
	json_object *system = export_get(root, "system"), *kernel = export_get(system, "kernel"),
		    *obj = json_object_new_object();

	json_add_str(obj, "sysname", "Linux");
	json_add_str(obj, "nodename", export_string(system, "host", "unknown"));
	json_add_str(obj, "release", export_string(kernel, "release", "unknown"));
	json_add_str(obj, "version", export_string(kernel, "version", "unknown"));
	json_add_str(obj, "machine", export_string(kernel, "machine", "unknown"));
	/* cyclictest: 1 on a PREEMPT_RT kernel (/sys/kernel/realtime). */
	json_add_int(obj, "realtime", !strcmp(export_string(kernel, "preempt_model", ""), "rt"));
	return obj;
}

/* Splits the results' histogram: 1 us buckets into `histogram`, the coarse ones into `over`. */
static void split_histogram(json_object *hist, json_object *histogram, json_object *over)
{
	if (!json_object_is_type(hist, json_type_object))
		return;
	json_object_object_foreach(hist, key, count) {
		char *end;
		long us = strtol(key, &end, 10);

		if (*end || us < 0 || !json_object_is_type(count, json_type_int))
			continue;
		json_add_int64(us < HISTOGRAM_LIMIT_US ? histogram : over, key, json_object_get_int64(count));
	}
}

/* As cyclictest writes it, "%.2f": 2031.64, never the double's 2031.6400000000001. */
static json_object *avg_two_decimals(double avg)
{
	char text[64];

	if (!isfinite(avg))
		avg = 0;
	snprintf(text, sizeof(text), "%.2f", avg);
	return json_object_new_double_s(strtod(text, NULL), text);
}

/* One probe as a cyclictest thread; NULL when it has no samples. */
static json_object *thread_of(json_object *root, json_object *task, json_object *over)
{
	json_object *lat = export_get(export_get(task, "metrics"), "latency_us"), *thread, *histogram;
	double samples = export_number(lat, "samples");
	int cpu = export_int(task, "cpu", -1);

	if (!isfinite(samples) || samples < 1 || !isfinite(export_number(lat, "max")))
		return NULL;
	thread = json_object_new_object();
	histogram = json_object_new_object();
	split_histogram(export_get(lat, "hist"), histogram, over);
	json_object_object_add(thread, "histogram", histogram);
	json_add_int64(thread, "cycles", export_int64_floor(lat, "samples", 0));
	/* cyclictest reports whole microseconds, truncated, and the mean to two decimals. */
	json_add_int64(thread, "min", export_int64_floor(lat, "min", 0));
	json_add_int64(thread, "max", export_int64_floor(lat, "max", 0));
	json_object_object_add(thread, "avg", avg_two_decimals(export_number(lat, "avg")));
	json_add_int(thread, "cpu", cpu);
	json_add_int(thread, "node", cpu >= 0 ? node_of(root, cpu) : -1);
	return thread;
}

static json_object *label_of(json_object *result, json_object *task, int max_rep, json_object *over)
{
	json_object *label = json_object_new_object();
	char name[256];

	export_case_name(result, max_rep, name, sizeof(name));
	json_add_str(label, "case", name);
	json_add_str(label, "task", export_string(task, "name", "probe"));
	json_add_str(label, "sched_policy", export_string(task, "sched_policy", ""));
	if (isfinite(export_number(task, "priority")))
		json_add_int(label, "priority", export_int(task, "priority", 0));
	json_add_str(label, "verdict", export_string(result, "verdict", ""));
	json_object_object_add(label, "overflow_hist_us", over);
	return label;
}

json_object *export_rttests(json_object *root)
{
	json_object *doc = json_object_new_object(), *threads = json_object_new_object(),
		    *labels = json_object_new_object(), *extra = json_object_new_object(), *run = export_get(root, "run"),
		    *results = export_get(root, "results");
	size_t n = json_object_is_type(results, json_type_array) ? json_object_array_length(results) : 0;
	int count = 0, max_rep = export_max_repetition(results), return_code = 0;
	char version[64];

	for (size_t i = 0; i < n; i++) {
		json_object *result = json_object_array_get_idx(results, i), *tasks = export_get(result, "tasks");

		for (size_t t = 0; json_object_is_type(tasks, json_type_array) && t < json_object_array_length(tasks); t++) {
			json_object *task = json_object_array_get_idx(tasks, t), *over = json_object_new_object(), *thread;
			char id[16];

			if (strcmp(export_string(task, "role", ""), "probe") || !(thread = thread_of(root, task, over))) {
				json_object_put(over);
				continue;
			}
			snprintf(id, sizeof(id), "%d", count++);
			json_object_object_add(threads, id, thread);
			json_object_object_add(labels, id, label_of(result, task, max_rep, over));
			if (export_verdict(result, VERDICT_ERROR) != VERDICT_PASS)
				return_code = 1;
		}
	}
	snprintf(version, sizeof(version), "rtthrottle %s", RTT_VERSION);
	json_add_int(doc, "file_version", 1);
	/* Spelt with the colon, as cyclictest writes these two keys. */
	json_add_str(doc, "cmdline:", export_string(run, "cmdline", ""));
	json_add_str(doc, "rt_test_version:", version);
	json_object_object_add(doc, "start_time", rfc2822(export_string(run, "start", NULL)));
	json_object_object_add(doc, "end_time", rfc2822(export_string(run, "end", export_string(run, "start", NULL))));
	json_add_int(doc, "return_code", return_code);
	json_object_object_add(doc, "sysinfo", sysinfo_of(root));
	json_add_int(doc, "num_threads", count);
	json_add_int(doc, "resolution_in_ns", 0);
	json_object_object_add(doc, "thread", threads);
	json_add_str(extra, "run_id", export_string(run, "id", "unknown"));
	json_add_int(extra, "histogram_limit_us", HISTOGRAM_LIMIT_US);
	json_object_object_add(extra, "threads", labels);
	json_object_object_add(doc, "rtthrottle", extra);
	return doc;
}
