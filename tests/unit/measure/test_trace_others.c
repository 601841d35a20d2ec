// SPDX-License-Identifier: GPL-2.0-only
/* Where tasks not of the window ran on the measured CPU, from its switches, and per period. */
#include "kernel_grid.h"
#include "trace_others.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define START (7000 * MS)

static struct trace_switch ev[16];
static size_t ev_count;
static int on_cpu[2];	/* who the last switch put on each CPU */

/* At `ms` into the window, `comm` (a scenario task when `ours`) takes the CPU from whoever had it. */
static void switch_to(double ms, int cpu, const char *comm, bool ours, enum trace_kind kind)
{
	struct trace_switch *e = &ev[ev_count++];

	memset(e, 0, sizeof(*e));
	e->ts_ns = START + (uint64_t)(ms * 1e6);
	e->cpu = cpu;
	e->prev_pid = on_cpu[cpu];
	e->next_pid = on_cpu[cpu] = kind == TRACE_IDLE ? 0 : 100 + (int)ev_count;
	e->next_kind = kind;
	snprintf(e->next_comm, sizeof(e->next_comm), "%s", comm);
	if (ours)
		snprintf(e->next_task, sizeof(e->next_task), "%s", comm);
}

TEST(trace_others_places_other_tasks_runs)
{
	struct trace_input in = { .ev = ev, .cpu = 1, .start_ns = START, .end_ns = START + 1000 * MS };
	struct trace_others_span spans[4];
	uint64_t total, rt;
	bool complete;
	size_t n;

	ev_count = 0;
	on_cpu[0] = on_cpu[1] = 0;
	switch_to(0, 1, "hog", true, TRACE_RT);
	switch_to(100, 1, "kworker/1:1", false, TRACE_KTHREAD);	/* 50 us */
	switch_to(100.05, 1, "hog", true, TRACE_RT);
	switch_to(200, 0, "make", false, TRACE_CFS);		/* another CPU: not counted */
	switch_to(950, 1, "victim", true, TRACE_CFS);
	switch_to(960, 1, "make", false, TRACE_CFS);		/* 3 ms, then 1 ms more 50 us on: one span */
	switch_to(963, 1, "victim", true, TRACE_CFS);
	switch_to(963.05, 1, "cc1", false, TRACE_CFS);
	switch_to(964.05, 1, "ksoftirqd/1", false, TRACE_RT);	/* RT: out of RT's runtime, not CFS's rest */
	switch_to(965, 1, "swapper/1", false, TRACE_IDLE);
	switch_to(990, 1, "make", false, TRACE_CFS);		/* runs past the window's end */
	in.count = ev_count;
	n = trace_others_find(&in, spans, 4, &total, &rt, &complete, NULL);
	CHECK(complete && n == 3, "%zu spans, complete %d", n, complete);
	CHECK(n == 3 && spans[0].from_ns == START + 100 * MS && spans[0].ran_ns == 50000, "the kworker's run");
	CHECK(n == 3 && spans[1].from_ns == START + 960 * MS && spans[1].to_ns == START + 964050000ull &&
		      spans[1].ran_ns == 4 * MS, "make and cc1 joined: %llu ns", (unsigned long long)spans[1].ran_ns);
	CHECK(n == 3 && spans[2].to_ns == START + 1000 * MS && spans[2].ran_ns == 10 * MS, "cut at the window end");
	CHECK(total == 50000 + 4 * MS + 10 * MS, "total %llu", (unsigned long long)total);
	CHECK(rt == 950000, "ksoftirqd at RT: %llu ns of RT's", (unsigned long long)rt);
	/* More spans than the list holds: incomplete, and so never used per period. */
	n = trace_others_find(&in, spans, 2, &total, &rt, &complete, NULL);
	CHECK(!complete && n == 2, "%zu spans, complete %d", n, complete);
}

/*
 * A switch the trace did not record: the victim took the CPU from the kworker unseen and ran
 * 90 ms. That time is nobody's (the victim's own time must not count again as others'), and
 * its span is listed as lost.
 */
TEST(trace_others_a_lost_switch_is_nobodys_time)
{
	struct trace_input in = { .ev = ev, .cpu = 1, .start_ns = START, .end_ns = START + 1000 * MS };
	struct trace_others_span spans[4], lost_spans[2];
	struct trace_unrecorded lost = { .spans = lost_spans, .max = 2 };
	uint64_t total, rt;
	bool complete;
	size_t n;

	ev_count = 0;
	on_cpu[0] = on_cpu[1] = 0;
	switch_to(0, 1, "hog", true, TRACE_RT);
	switch_to(200, 1, "kworker/1:1", false, TRACE_KTHREAD);
	on_cpu[1] = 4242;				/* kworker -> victim not recorded */
	switch_to(300, 1, "hog", true, TRACE_RT);	/* the victim leaves: prev is not the kworker */
	switch_to(500, 1, "make", false, TRACE_CFS);	/* 1 ms, seen whole */
	switch_to(501, 1, "hog", true, TRACE_RT);
	in.count = ev_count;
	n = trace_others_find(&in, spans, 4, &total, &rt, &complete, &lost);
	CHECK(complete && n == 1 && spans[0].from_ns == START + 500 * MS && total == MS,
	      "only make's 1 ms is others': %zu spans, %llu ns", n, (unsigned long long)total);
	CHECK(lost.complete && lost.count == 1 && lost.spans[0].from_ns == START + 200 * MS &&
		      lost.spans[0].to_ns == START + 300 * MS && lost.total_ns == 100 * MS,
	      "the 100 ms after the kworker's switch is lost: %zu spans, %llu ns", lost.count,
	      (unsigned long long)lost.total_ns);
}

TEST(kernel_grid_add_unrecorded_appends_lost_spans)
{
	json_object *trace = json_tokener_parse("{\"status\": \"recorded\", \"others\": {\"total_us\": 5,"
						" \"unrecorded_us\": 100000, \"unrecorded\": [[200.0, 300.0]]}}");
	json_object *old = json_tokener_parse("{\"status\": \"recorded\", \"others\": {\"total_us\": 5}}");
	struct disturbance *d = calloc(1, sizeof(*d));
	int n = 1;
	char why[120];

	d[0] = (struct disturbance){ 10 * MS, 14 * MS, 3000, DISTURBANCE_HELD };
	CHECK(kernel_grid_add_unrecorded(trace, &d, &n) == 1 && n == 2, "one appended: %d", n);
	CHECK(n == 2 && d[1].kind == DISTURBANCE_LOST && d[1].from_ns == 200 * MS && d[1].to_ns == 300 * MS &&
		      fabs(d[1].late_us - 100000) < 1e-6, "the lost span, its length in late_us");
	CHECK(n == 2 && d[0].kind == DISTURBANCE_HELD, "the held-back tick kept");
	disturbance_why(&d[1], why, sizeof(why));
	CHECK(strstr(why, "lost the switches of 100.0 ms") != NULL, "why: %s", why);
	CHECK(kernel_grid_add_unrecorded(old, &d, &n) == -1 && n == 2, "an older result does not list them");
	free(d);
	json_object_put(trace);
	json_object_put(old);
}

TEST(others_between_counts_each_span_in_proportion)
{
	const struct others_span s[] = { { 90 * MS, 110 * MS, 4000 }, { 500 * MS, 501 * MS, 1000 } };

	CHECK(fabs(others_between_us(s, 2, 0, 100 * MS) - 2000) < 1e-6, "half of the first");
	CHECK(fabs(others_between_us(s, 2, 100 * MS, 1000 * MS) - 3000) < 1e-6, "the other half and the second");
	CHECK(others_between_us(s, 2, 200 * MS, 400 * MS) == 0, "none between");
}

TEST(kernel_grid_others_reads_the_trace_block)
{
	json_object *trace = json_tokener_parse("{\"status\": \"recorded\", \"others\": {\"total_us\": 5,"
						" \"spans\": [[1.5, 2.5, 5.0]]}}");
	json_object *partial = json_tokener_parse("{\"status\": \"recorded\", \"others\": {\"total_us\": 5,"
						  " \"more_than\": 2048}}");
	struct others_span *s = NULL;
	int n = kernel_grid_others(trace, &s);

	CHECK(n == 1 && s && s[0].from_ns == 1500000 && s[0].to_ns == 2500000 && s[0].ran_us == 5, "one span");
	free(s);
	CHECK(kernel_grid_others(partial, &s) == -1 && !s, "an incomplete list is not placed");
	CHECK(kernel_grid_others(NULL, &s) == -1, "no trace");
	json_object_put(trace);
	json_object_put(partial);
}
