// SPDX-License-Identifier: GPL-2.0-only
/* The hog's gaps from synthetic sched_switch sequences: no kernel, no tracefs. */
#include "trace_gaps.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define HOG 100
#define VICTIM 200
#define KWORKER 300
#define R_PLUS 0x100	/* preempted while runnable */
#define S_SLEEP 0x1
#define I_IDLE 0x80
#define X_DEAD 0x10

static struct trace_switch sw(double at_ms, int cpu, int prev, int64_t state, int next, enum trace_kind kind)
{
	struct trace_switch e = { .ts_ns = (uint64_t)(at_ms * MS), .cpu = cpu, .prev_pid = prev, .prev_state = state,
				  .next_pid = next, .next_prio = next == HOG ? 49 : 120, .next_kind = kind };

	snprintf(e.next_comm, sizeof(e.next_comm), "%s", next == 0 ? "swapper/1" : next == KWORKER ? "kworker/1:1" : "rtthrottle");
	if (next == VICTIM)
		snprintf(e.next_task, sizeof(e.next_task), "victim");
	return e;
}

static struct trace_input input(const struct trace_switch *ev, size_t n)
{
	return (struct trace_input){ .ev = ev, .count = n, .task_pid = HOG, .cpu = 1, .start_ns = 1000 * MS,
				     .end_ns = 4000 * MS, .throttle_threshold_us = 25000 };
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

TEST(trace_gaps_runnable_states)
{
	CHECK(trace_state_runnable(0), "R");
	CHECK(trace_state_runnable(R_PLUS), "R+");
	CHECK(!trace_state_runnable(S_SLEEP), "S");
	CHECK(!trace_state_runnable(I_IDLE), "I");
	CHECK(!trace_state_runnable(S_SLEEP | R_PLUS), "S+");
	CHECK(!trace_state_runnable(X_DEAD), "X");
}

/* Three 1 s periods of classic throttling with a CFS victim filling each 50 ms gap. */
TEST(trace_gaps_throttle_with_victim)
{
	const struct trace_switch ev[] = {
		sw(999, 1, KWORKER, I_IDLE, 0, TRACE_IDLE),
		/* idle -> hog at the window start: not recorded (as on kernels that never trace it) */
		sw(1500, 0, 7, S_SLEEP, 0, TRACE_IDLE),	/* another CPU: counted, not analysed */
		sw(1950, 1, HOG, R_PLUS, VICTIM, TRACE_CFS),
		sw(2000, 1, VICTIM, R_PLUS, HOG, TRACE_RT),
		sw(2950, 1, HOG, 0, VICTIM, TRACE_CFS),
		sw(2960, 1, VICTIM, R_PLUS, KWORKER, TRACE_KTHREAD),
		sw(2961, 1, KWORKER, I_IDLE, VICTIM, TRACE_CFS),
		sw(3000, 1, VICTIM, R_PLUS, HOG, TRACE_RT),
		sw(3950, 1, HOG, R_PLUS, VICTIM, TRACE_CFS),
		sw(4000.5, 1, VICTIM, R_PLUS, HOG, TRACE_RT),	/* after the window end */
		sw(4001, 1, HOG, X_DEAD, VICTIM, TRACE_CFS),
	};
	struct trace_input in = input(ev, sizeof(ev) / sizeof(ev[0]));
	struct trace_summary sum;
	struct trace_gap *gaps;
	size_t n = trace_gaps_find(&in, &gaps, &sum);

	CHECK(n == 3, "3 resolved gaps, got %zu", n);
	CHECK(sum.unresolved == 1, "the window-start gap has no recorded end: %llu", (unsigned long long)sum.unresolved);
	CHECK(sum.events == 8, "events inside the window on every CPU: %llu", (unsigned long long)sum.events);
	CHECK(sum.throttle_events == 2, "the gap open at the end is no throttle event: %llu",
	      (unsigned long long)sum.throttle_events);
	CHECK(sum.max_ns == (uint64_t)(50.5 * MS), "longest gap %llu", (unsigned long long)sum.max_ns);
	CHECK(sum.total_ns == (uint64_t)(150.5 * MS), "total %llu", (unsigned long long)sum.total_ns);
	if (n == 3) {
		CHECK(gaps[0].start_ns == 1950 * MS && gaps[0].end_ns == 2000 * MS, "gap 1 edges");
		CHECK(gaps[0].ran_count == 1 && !strcmp(gaps[0].ran[0].task, "victim"), "the victim filled gap 1");
		CHECK(gaps[1].by_kind_ns[TRACE_CFS] == 49 * MS && gaps[1].by_kind_ns[TRACE_KTHREAD] == 1 * MS,
		      "gap 2: 49 ms victim, 1 ms kworker");
		CHECK(gaps[1].ran_count == 2 && gaps[1].ran[0].pid == VICTIM, "longest first");
		CHECK(gaps[2].open_at_end && !gaps[0].open_at_end, "only the last gap is open at the end");
	}
	CHECK(sum.by_kind_ns[TRACE_CFS] == (uint64_t)(149.5 * MS), "cfs %llu", (unsigned long long)sum.by_kind_ns[TRACE_CFS]);
	CHECK(sum.top_count == 2 && sum.top[0].pid == VICTIM, "top: victim, then the kworker");
	free(gaps);
}

/* Sleeping is no gap; a gap at the window start with a recorded end is cut there. */
TEST(trace_gaps_sleep_and_window_start)
{
	const struct trace_switch ev[] = {
		sw(990, 1, 0, 0, VICTIM, TRACE_CFS),	/* victim runs before the window */
		sw(1000.03, 1, VICTIM, R_PLUS, HOG, TRACE_RT),	/* hog in 30 us after the start */
		sw(1500, 1, HOG, S_SLEEP, VICTIM, TRACE_CFS),	/* hog sleeps: not a gap */
		sw(1600, 1, VICTIM, S_SLEEP, HOG, TRACE_RT),
		sw(3999, 1, HOG, R_PLUS, VICTIM, TRACE_CFS),	/* preempted just before the end */
	};
	struct trace_input in = input(ev, sizeof(ev) / sizeof(ev[0]));
	struct trace_summary sum;
	struct trace_gap *gaps;
	size_t n = trace_gaps_find(&in, &gaps, &sum);

	CHECK(n == 2, "the start gap and the one never closed, got %zu", n);
	if (n == 2) {
		CHECK(gaps[0].cut_at_start && gaps[0].start_ns == 1000 * MS && gaps[0].end_ns == (uint64_t)(1000.03 * MS),
		      "start gap");
		CHECK(gaps[0].by_kind_ns[TRACE_CFS] == (uint64_t)(0.03 * MS), "the victim ran until the hog came");
		CHECK(gaps[1].open_at_end && gaps[1].start_ns == 3999 * MS, "the last gap never closed");
	}
	CHECK(sum.throttle_events == 0 && sum.unresolved == 0, "no throttle, nothing unresolved");
	free(gaps);
}

TEST(trace_gaps_without_the_hog)
{
	const struct trace_switch ev[] = {
		sw(1500, 1, VICTIM, S_SLEEP, KWORKER, TRACE_KTHREAD),
		sw(1501, 1, KWORKER, I_IDLE, VICTIM, TRACE_CFS),
	};
	struct trace_input in = input(ev, 2);
	struct trace_summary sum;
	struct trace_gap *gaps;
	size_t n = trace_gaps_find(&in, &gaps, &sum);

	CHECK(n == 0 && !gaps && !sum.task_seen && sum.gap_count == 0 && sum.events == 2, "no hog, no gaps");
	in.count = 0;
	n = trace_gaps_find(&in, &gaps, &sum);
	CHECK(n == 0 && !gaps && sum.events == 0, "no events at all");
}

/* The block lists the longest TRACE_GAPS_LISTED gaps in time order; figures cover all. */
TEST(trace_gaps_json_lists_the_longest)
{
	enum { GAPS = TRACE_GAPS_LISTED + 8 };
	struct trace_switch ev[2 * GAPS + 1];
	struct trace_input in;
	struct trace_summary sum;
	struct trace_gap *gaps;
	json_object *obj = json_object_new_object(), *list, *first, *v;
	size_t n;

	ev[0] = sw(999, 1, VICTIM, R_PLUS, HOG, TRACE_RT);
	for (int i = 0; i < GAPS; i++) {
		/* gap i lasts i + 1 ms; the shortest come first */
		ev[2 * i + 1] = sw(1010 + 50 * i, 1, HOG, R_PLUS, VICTIM, TRACE_CFS);
		ev[2 * i + 2] = sw(1010 + 50 * i + i + 1, 1, VICTIM, R_PLUS, HOG, TRACE_RT);
	}
	in = input(ev, 2 * GAPS + 1);
	n = trace_gaps_find(&in, &gaps, &sum);
	trace_gaps_to_json(obj, &in, gaps, n, &sum);
	CHECK(n == GAPS, "%zu gaps", n);
	CHECK(json_object_object_get_ex(obj, "gaps", &list) && json_object_array_length(list) == TRACE_GAPS_LISTED,
	      "listed %zu", json_object_array_length(list));
	first = json_object_array_get_idx(list, 0);
	CHECK(json_object_object_get_ex(first, "len_us", &v) && near(json_object_get_double(v), 9000),
	      "the first listed is the 9th gap (9 ms)");
	CHECK(json_object_object_get_ex(first, "start_ms", &v) && near(json_object_get_double(v), 10 + 50 * 8),
	      "start from the window start");
	CHECK(json_object_object_get_ex(obj, "gap_count", &v) && json_object_get_int(v) == GAPS, "all counted");
	CHECK(json_object_object_get_ex(obj, "gap_max_us", &v) && near(json_object_get_double(v), GAPS * 1000.0),
	      "longest");
	CHECK(json_object_object_get_ex(obj, "throttle_events", &v) && json_object_get_int(v) == GAPS - 24,
	      "gaps of 25 ms and more are throttle events");
	free(gaps);
	json_object_put(obj);
}

/*
 * A periodic FIFO task (pid HOG here) beside a CFS task: a wait begins at its wake-up, not at
 * a switch. Released at 1000 ms (the window's start) and run at once; released at 1100 ms
 * while throttled, it waits for the CFS task until 1130 ms; a wake-up while it runs, and its
 * sleeps, are no waits.
 */
TEST(trace_gaps_a_periodic_task_waits_from_its_wake_up)
{
	const struct trace_switch ev[] = {
		sw(990, 1, HOG, S_SLEEP, VICTIM, TRACE_CFS),
		sw(1000.01, 1, VICTIM, R_PLUS, HOG, TRACE_RT),
		sw(1010, 1, HOG, S_SLEEP, VICTIM, TRACE_CFS),
		sw(1130, 1, VICTIM, R_PLUS, HOG, TRACE_RT),
		sw(1140, 1, HOG, S_SLEEP, VICTIM, TRACE_CFS),
		sw(1200.02, 1, VICTIM, R_PLUS, HOG, TRACE_RT),
		sw(1210, 1, HOG, S_SLEEP, VICTIM, TRACE_CFS),
	};
	const uint64_t woken[] = { 1000 * MS, 1100 * MS, 1135 * MS, 1200 * MS };
	struct trace_input in = input(ev, sizeof(ev) / sizeof(ev[0]));
	struct trace_summary sum;
	struct trace_gap *gaps;
	size_t n;

	in.woken_ns = woken;
	in.woken_count = sizeof(woken) / sizeof(woken[0]);
	n = trace_gaps_find(&in, &gaps, &sum);
	CHECK(n == 3, "the start, the throttled release and the last release: %zu", n);
	if (n == 3) {
		CHECK(gaps[0].cut_at_start && gaps[0].end_ns == (uint64_t)(1000.01 * MS), "start %llu",
		      (unsigned long long)gaps[0].end_ns);
		CHECK(gaps[1].start_ns == 1100 * MS && gaps[1].end_ns == 1130 * MS, "wait %llu-%llu",
		      (unsigned long long)gaps[1].start_ns, (unsigned long long)gaps[1].end_ns);
		CHECK(gaps[1].by_kind_ns[TRACE_CFS] == 30 * MS && gaps[1].ran[0].pid == VICTIM, "CFS ran %llu",
		      (unsigned long long)gaps[1].by_kind_ns[TRACE_CFS]);
		CHECK(gaps[2].start_ns == 1200 * MS && gaps[2].end_ns == (uint64_t)(1200.02 * MS), "last %llu-%llu",
		      (unsigned long long)gaps[2].start_ns, (unsigned long long)gaps[2].end_ns);
	}
	CHECK(sum.throttle_events == 1 && sum.max_ns == 30 * MS, "one wait past the threshold: %llu, longest %llu",
	      (unsigned long long)sum.throttle_events, (unsigned long long)sum.max_ns);
	free(gaps);
}
