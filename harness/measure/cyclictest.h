/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rt-tests' cyclictest as a probe (role "cyclictest"): configured from the scenario, run by
 * workloads/cyclictest_run.c, and its --json file read back into the probe's vocabulary
 * (latency_us {min, avg, p50, p99, p999, max, hist}, cycles), so a check can compare the two.
 */
#ifndef RTT_CYCLICTEST_H
#define RTT_CYCLICTEST_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "scenario.h"
#include "task_shm.h"


struct cyclictest_result {
	struct latency_stats latency;	/* count = cycles; the histogram's samples only in buckets */
	uint64_t cycles;
	uint64_t overflows;	/* samples at or above the histogram's range: only in cycles and max */
	double avg_us;
	int cpu;
	char version[16];
};

/* Reads cyclictest's --json file (its first thread); false with why naming the field. */
bool cyclictest_ingest(const char *path, struct cyclictest_result *out, char *why, size_t why_len);
/* latency_us of a result; percentiles that fall among the overflows are left out. */
json_object *cyclictest_latency_json(const struct cyclictest_result *r);
/* The task's settings from its scenario entry (interval_us, histogram_us). */
void cyclictest_configure(const struct scenario_task *t, struct task_config *c);
/* The task's metrics, read from the file its run left (which is then removed). */
void cyclictest_metrics_json(json_object *obj, const struct task_record *rec);
/* Why the scenario cannot run here (it has a cyclictest task and cyclictest is missing), or NULL. */
const char *cyclictest_unsupported(const struct scenario *s);
/*
 * The probe's longest wake-up from cyclictest's measuring start on (us), so both tools are
 * compared over the same span; false when unknown (no start seen, or every one of the probe's
 * kept worst wake-ups came before it).
 */
bool cyclictest_probe_max_in_span_us(const struct task_record *probe, const struct task_record *cyclictest, double *out);

#endif
