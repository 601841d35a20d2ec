#include "metrics.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(double *values, int count)
{
	if (count <= 0)
		return 0;
	qsort(values, (size_t)count, sizeof(*values), compare_double);
	return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

static void throttle_stats(const struct gap_stats *g, double threshold_us, struct task_metrics *m)
{
	static double lens[LONG_GAPS_MAX], intervals[LONG_GAPS_MAX];
	const struct gap_event *first = NULL, *last = NULL;
	int n = 0, k = 0, k_lens = 0;

	for (uint32_t i = 0; i < g->long_stored; i++) {
		const struct gap_event *e = &g->long_gaps[i];

		if (e->len_ns / 1000.0 < threshold_us)
			continue;
		/* Ends, not starts: the kernel's period timer ends a throttle; a tick starts it. */
		if (last)
			intervals[k++] = (double)(e->start_ns + e->len_ns - last->start_ns - last->len_ns) / 1000.0;
		if (!first)
			first = e;
		last = e;
		/* A gap from the window's first instant was cut by the window: no length to judge. */
		if (e->start_ns > 0)
			lens[k_lens++] = (double)e->len_ns / 1000.0;
		n++;
	}
	m->throttle_events = (uint64_t)n;
	m->throttle_gap_median_us = median(lens, k_lens);
	m->throttle_interval_us = median(intervals, k);
	m->cpu_share_periods = m->periods_span_s = 0;
	if (n >= 2) {
		uint64_t span = last->start_ns + last->len_ns - first->start_ns - first->len_ns;

		m->periods_span_s = span / 1e9;
		m->cpu_share_periods = (double)(last->cpu_ns - first->cpu_ns) / (double)span;
	}
}

void metrics_compute(const struct task_record *rec, double throttle_threshold_us, struct task_metrics *m)
{
	const struct gap_stats *g = &rec->gaps;
	uint64_t window_ns = rec->last_ns > rec->first_ns ? rec->last_ns - rec->first_ns : 1;

	m->window_s = (double)window_ns / 1e9;
	m->cpu_share = (double)rec->cpu_ns / (double)window_ns;
	m->loops = rec->iterations;
	m->gap_count = g->count;
	m->gap_total_us = (double)g->total_ns / 1000.0;
	m->gap_max_us = (double)g->max_ns / 1000.0;
	m->throttle_threshold_us = throttle_threshold_us;
	m->loop_ns = rec->iterations ? (double)rec->cpu_ns / (double)rec->iterations : 0;
	throttle_stats(g, throttle_threshold_us, m);
}

json_object *gap_hist_to_json(const struct gap_stats *g)
{
	json_object *hist = json_object_new_object();

	for (int i = 0; i < GAP_HIST_BUCKETS; i++) {
		char key[24];

		if (!g->hist[i])
			continue;
		snprintf(key, sizeof(key), "%llu", 1ull << i);
		json_object_object_add(hist, key, json_object_new_int64((int64_t)g->hist[i]));
	}
	return hist;
}

static json_object *longest_to_json(const struct gap_stats *g)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < LONGEST_GAPS && g->longest[i].len_ns; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "at_ms", json_object_new_double(g->longest[i].start_ns / 1e6));
		json_object_object_add(e, "len_us", json_object_new_double(g->longest[i].len_ns / 1e3));
		json_object_array_add(arr, e);
	}
	return arr;
}

json_object *metrics_to_json(const struct task_record *rec, const struct task_metrics *m)
{
	json_object *obj = json_object_new_object();
	bool hog = rec->config.role == ROLE_HOG;

	json_object_object_add(obj, "window_s", json_object_new_double(m->window_s));
	json_object_object_add(obj, "cpu_share", json_object_new_double(m->cpu_share));
	json_object_object_add(obj, "loops", json_object_new_int64((int64_t)m->loops));
	json_object_object_add(obj, "loop_ns", json_object_new_double(m->loop_ns));
	json_object_object_add(obj, "gap_threshold_us",
			       json_object_new_double(rec->config.gap_threshold_ns / 1e3));
	json_object_object_add(obj, "gap_count", json_object_new_int64((int64_t)m->gap_count));
	json_object_object_add(obj, "gap_total_us", json_object_new_double(m->gap_total_us));
	json_object_object_add(obj, hog ? "gap_max_us" : "starvation_max_us", json_object_new_double(m->gap_max_us));
	json_object_object_add(obj, "gap_hist_us", gap_hist_to_json(&rec->gaps));
	json_object_object_add(obj, "longest_gaps", longest_to_json(&rec->gaps));
	json_object_object_add(obj, "cpu_share_periods", json_object_new_double(m->cpu_share_periods));
	json_object_object_add(obj, "periods_span_s", json_object_new_double(m->periods_span_s));
	json_object_object_add(obj, hog ? "throttle_threshold_us" : "starvation_threshold_us",
			       json_object_new_double(m->throttle_threshold_us));
	json_object_object_add(obj, hog ? "throttle_events" : "starvation_events",
			       json_object_new_int64((int64_t)m->throttle_events));
	json_object_object_add(obj, hog ? "throttle_gap_median_us" : "starvation_median_us",
			       json_object_new_double(m->throttle_gap_median_us));
	if (hog) {
		json_object_object_add(obj, "throttle_interval_us", json_object_new_double(m->throttle_interval_us));
		json_object_object_add(obj, "long_gaps_dropped",
				       json_object_new_int64((int64_t)(rec->gaps.long_total - rec->gaps.long_stored)));
	}
	return obj;
}
