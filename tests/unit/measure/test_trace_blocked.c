// SPDX-License-Identifier: GPL-2.0-only
/* Where the CFS spinner slept and its CPU idled, from the switches, and what the judge makes of it. */
#include "kernel_grid.h"
#include "trace_blocked.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define START (5000 * MS)
#define VICTIM 300
#define HOG 200

static struct trace_switch ev[16];
static size_t ev_count;

/* At `ms`, `prev` leaves CPU 1 (asleep or runnable) and `next` (0: idle) takes it. */
static void switch_at(double ms, int prev, bool prev_asleep, int next)
{
	struct trace_switch *e = &ev[ev_count++];

	memset(e, 0, sizeof(*e));
	e->ts_ns = START + (uint64_t)(ms * 1e6);
	e->cpu = 1;
	e->prev_pid = prev;
	e->prev_state = prev_asleep ? 1 : 0;	/* TASK_INTERRUPTIBLE, or running */
	e->next_pid = next;
	e->next_kind = next == 0 ? TRACE_IDLE : next == HOG ? TRACE_RT : TRACE_CFS;
}

/*
 * The victim sleeps at 100 ms while the hog runs (not idle: nothing to excuse), the hog is
 * throttled at 950 ms and the CPU idles 40 ms of the slot with the victim asleep: that span is
 * CFS's rest nobody asked for. At 2000 ms the victim is preempted (runnable) and the CPU idles:
 * the kernel's fault, not listed.
 */
TEST(trace_blocked_lists_idle_only_while_the_cfs_task_sleeps)
{
	struct trace_input in = { .ev = ev, .cpu = 1, .start_ns = START, .end_ns = START + 3000 * MS };
	struct trace_others_span spans[4];
	uint64_t total;
	bool complete;
	size_t n;

	ev_count = 0;
	switch_at(0, HOG, false, VICTIM);
	switch_at(100, VICTIM, true, HOG);	/* asleep, the hog runs */
	switch_at(950, HOG, false, 0);		/* throttled: idle, the victim asleep */
	switch_at(990, 0, false, VICTIM);	/* it woke */
	switch_at(1000, VICTIM, false, HOG);
	switch_at(1950, HOG, false, VICTIM);
	switch_at(2000, VICTIM, false, 0);	/* preempted runnable, and the CPU idles */
	switch_at(2030, 0, false, VICTIM);
	in.count = ev_count;
	n = trace_blocked_find(&in, VICTIM, spans, 4, &total, &complete);
	CHECK(complete && n == 1 && spans[0].from_ns == START + 950 * MS && spans[0].to_ns == START + 990 * MS,
	      "one span, 950-990 ms: %zu", n);
	CHECK(total == 40 * MS, "40 ms: %llu", (unsigned long long)total);
}

TEST(kernel_grid_add_cfs_asleep_reads_the_trace_block)
{
	json_object *trace = json_tokener_parse("{\"status\": \"recorded\", \"cfs_blocked\": {\"task\": \"cfs\","
						" \"idle_us\": 40000, \"spans\": [[950.0, 990.0]]}}");
	json_object *none = json_tokener_parse("{\"status\": \"recorded\"}");
	json_object *full = json_tokener_parse("{\"status\": \"recorded\", \"cfs_blocked\": {\"more_than\": 256}}");
	struct disturbance *d = NULL;
	int n = 0;
	char why[120];

	CHECK(kernel_grid_add_cfs_asleep(trace, &d, &n) == 1 && n == 1 && d[0].kind == DISTURBANCE_CFS_ASLEEP &&
		      d[0].from_ns == 950 * MS && fabs(d[0].late_us - 40000) < 1e-6, "one span of 40 ms");
	disturbance_why(&d[0], why, sizeof(why));
	CHECK(strstr(why, "slept and the CPU idled 40.0 ms") != NULL, "why: %s", why);
	CHECK(kernel_grid_add_cfs_asleep(none, &d, &n) == 0 && n == 1, "no CFS spinner: nothing");
	CHECK(kernel_grid_add_cfs_asleep(full, &d, &n) == -1 && n == 1, "an incomplete list: not known");
	free(d);
	json_object_put(trace);
	json_object_put(none);
	json_object_put(full);
}
