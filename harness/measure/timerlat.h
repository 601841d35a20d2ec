/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtla timerlat as a probe (role "timerlat"): configured from the scenario, run by
 * workloads/timerlat_run.c, and its `timerlat hist` output read back into the probe's
 * vocabulary (latency_us {min, avg, p50, p99, p999, max, hist}, cycles) for its thread's
 * latency, and irq_latency_us for its timer's IRQ, so a check can compare it with the others.
 */
#ifndef RTT_TIMERLAT_H
#define RTT_TIMERLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "scenario.h"
#include "task_shm.h"

/* One column of rtla's histogram: the IRQ's or the thread's latencies on the CPU. */
struct timerlat_column {
	struct latency_stats latency;	/* count: its samples; the histogram's only in buckets */
	uint64_t overflows;	/* samples at or past the histogram's entries: only in count and max */
	double avg_ns;		/* rtla's mean */
	bool seen;
};

struct timerlat_result {
	struct timerlat_column irq, thread;
	int cpu;
	double duration_s;	/* rtla's own "# Duration:" line; -1: none */
	bool threshold_stop;	/* "rtla timerlat hit stop tracing": a -T/-i threshold stopped the trace */
};

/* Reads `rtla timerlat hist` output for one CPU (-c N); false with why naming the line. */
bool timerlat_parse(FILE *in, struct timerlat_result *out, char *why, size_t why_len);
/* The same from a file. */
bool timerlat_ingest(const char *path, struct timerlat_result *out, char *why, size_t why_len);
/* The task's settings from its scenario entry (interval_us, histogram_us, stop_us). */
void timerlat_configure(const struct scenario_task *t, struct task_config *c);
/* The task's metrics, read from the file its run left (which is then removed); `skipped` when not run. */
void timerlat_metrics_json(json_object *obj, const struct task_record *rec);

#endif
