// SPDX-License-Identifier: GPL-2.0-only
/* Gap buckets, the metrics computed from a task's raw record, and median(). */
#include "metrics.h"
#include "role_metrics.h"
#include "roles.h"
#include "spin_measure.h"
#include "unit.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

TEST(metrics_gap_bucket_boundaries)
{
	static const struct {
		uint64_t ns;
		int bucket;
	} cases[] = {
		{ 0, 0 },
		{ 500, 0 },		/* 0.5 us */
		{ 1000, 0 },		/* 1 us */
		{ 1999, 0 },		/* just below 2 us */
		{ 2000, 1 },		/* 2 us */
		{ 3000, 1 },		/* 3 us */
		{ 3999, 1 },
		{ 4000, 2 },		/* 4 us */
		{ 7999, 2 },
		{ 8000, 3 },
		{ 1000000, 9 },		/* 1 ms = 1000 us: [512, 1024) */
		{ 1024000, 10 },
		{ 50000000, 15 },	/* 50 ms = 50000 us: [32768, 65536) */
		{ 1000000000, 19 },	/* 1 s */
		{ (1ull << 31) * 1000, 31 },	/* the last bucket's lower bound */
		{ (1ull << 40) * 1000, GAP_HIST_BUCKETS - 1 },
		{ UINT64_MAX, GAP_HIST_BUCKETS - 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int b = gap_bucket(cases[i].ns);

		CHECK(b == cases[i].bucket, "gap_bucket(%llu ns) = %d, want %d", (unsigned long long)cases[i].ns, b,
		      cases[i].bucket);
	}
	/* Monotonic and always in range. */
	for (uint64_t ns = 1, prev = 0; ns < (1ull << 62); prev = ns, ns = ns * 3 / 2 + 1) {
		int b = gap_bucket(ns);

		CHECK(b >= 0 && b < GAP_HIST_BUCKETS, "gap_bucket(%llu) = %d out of range", (unsigned long long)ns, b);
		CHECK(b >= gap_bucket(prev), "gap_bucket not monotonic at %llu", (unsigned long long)ns);
	}
}

TEST(metrics_median)
{
	double none[1] = { 7 };
	double one[] = { 3.5 };
	double odd[] = { 5, 1, 4, 2, 3 };
	double even[] = { 10, 40, 20, 30 };
	double dup[] = { 2, 2, 2, 9 };
	double neg[] = { -1, -3, -2 };

	CHECK(median(none, 0) == 0, "empty median %g", median(none, 0));
	CHECK(median(none, -1) == 0, "negative count median %g", median(none, -1));
	CHECK(median(one, 1) == 3.5, "single %g", median(one, 1));
	CHECK(median(odd, 5) == 3, "odd %g", median(odd, 5));
	CHECK(median(even, 4) == 25, "even %g", median(even, 4));
	CHECK(median(dup, 4) == 2, "duplicates %g", median(dup, 4));
	CHECK(median(neg, 3) == -2, "negatives %g", median(neg, 3));
	/* Only the first count values count. */
	{
		double part[] = { 9, 1, 5, 1000, 1000 };

		CHECK(median(part, 3) == 5, "prefix %g", median(part, 3));
	}
}

static struct task_record *new_record(void)
{
	struct task_record *rec = calloc(1, sizeof(*rec));

	CHECK(rec != NULL, "out of memory");
	return rec;
}

static void add_long_gap(struct task_record *rec, uint64_t start_ns, uint64_t len_ns, uint64_t cpu_ns)
{
	struct gap_stats *g = &rec->gaps;

	g->long_gaps[g->long_stored++] = (struct gap_event){ start_ns, len_ns, cpu_ns };
	g->long_total++;
	g->count++;
	g->total_ns += len_ns;
	if (len_ns > g->max_ns)
		g->max_ns = len_ns;
}

/*
 * A 3 s window of a throttled hog. Gaps (from the window start):
 *   0.000 s  30 ms  cut by the window start (its length is not judged)
 *   0.500 s   2 ms  a preemption, below the threshold
 *   0.980 s  50 ms  throttle, ends at 1.030 s
 *   1.980 s  60 ms  throttle, ends at 2.040 s
 * Interval between ENDS: 1.000 s and 1.010 s (between starts: 0.980 s and 1.000 s).
 */
static void throttled_hog(struct task_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->config.role = ROLE_HOG;
	rec->first_ns = 5000000000ull;
	rec->last_ns = rec->first_ns + 3000000000ull;
	rec->cpu_ns = 2850000000ull;
	rec->iterations = 1000000;
	add_long_gap(rec, 0, 30000000, 0);
	add_long_gap(rec, 500000000, 2000000, 470000000);
	add_long_gap(rec, 980000000, 50000000, 948000000);
	/* 0.95 of the 2.010 s between the first and the last gap's end. */
	add_long_gap(rec, 1980000000, 60000000, 1909500000);
}

TEST(metrics_compute_throttled_hog)
{
	struct task_record *rec = new_record();
	struct task_metrics m;

	if (!rec)
		return;
	throttled_hog(rec);
	memset(&m, 0xff, sizeof(m));
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(near(m.window_s, 3.0), "window_s %g", m.window_s);
	CHECK(near(m.cpu_share, 0.95), "cpu_share %g", m.cpu_share);
	CHECK(m.loops == 1000000, "loops %llu", (unsigned long long)m.loops);
	CHECK(near(m.loop_ns, 2850), "loop_ns %g", m.loop_ns);
	CHECK(m.gap_count == 4, "gap_count %llu", (unsigned long long)m.gap_count);
	CHECK(near(m.gap_total_us, 142000), "gap_total_us %g", m.gap_total_us);
	CHECK(near(m.gap_max_us, 60000), "gap_max_us %g", m.gap_max_us);
	CHECK(near(m.throttle_threshold_us, 25000), "threshold %g", m.throttle_threshold_us);
	/* The 2 ms preemption is not a throttle; the cut first gap is. */
	CHECK(m.throttle_events == 3, "throttle_events %llu, want 3", (unsigned long long)m.throttle_events);
	/* Median of the intervals between ENDS (1000000, 1010000), not starts (980000, 1000000). */
	CHECK(near(m.throttle_interval_us, 1005000), "throttle_interval_us %g, want 1005000", m.throttle_interval_us);
	/* Lengths of the uncut gaps only: 50000 and 60000 (with the cut one it would be 50000). */
	CHECK(near(m.throttle_gap_median_us, 55000), "throttle_gap_median_us %g, want 55000", m.throttle_gap_median_us);
	/* From the first gap's end (0.030 s, cpu 0) to the last one's (2.040 s, cpu 1.9095 s). */
	CHECK(near(m.periods_span_s, 2.01), "periods_span_s %g, want 2.01", m.periods_span_s);
	CHECK(near(m.cpu_share_periods, 0.95), "cpu_share_periods %g, want 0.95", m.cpu_share_periods);

	/* A threshold of 40 ms leaves only the 50 and 60 ms gaps: one interval, from their ends. */
	metrics_compute(rec, 40000, NULL, &m);
	CHECK(m.throttle_events == 2, "40 ms: throttle_events %llu", (unsigned long long)m.throttle_events);
	CHECK(near(m.throttle_interval_us, 1010000), "40 ms: interval %g, want 1010000", m.throttle_interval_us);
	CHECK(near(m.periods_span_s, 1.01), "40 ms: span %g, want 1.01", m.periods_span_s);
	CHECK(near(m.cpu_share_periods, (1909500000.0 - 948000000.0) / 1010000000.0), "40 ms: cpu_share_periods %g",
	      m.cpu_share_periods);

	/* One throttle gap: no interval, no whole periods. */
	metrics_compute(rec, 55000, NULL, &m);
	CHECK(m.throttle_events == 1, "55 ms: throttle_events %llu", (unsigned long long)m.throttle_events);
	CHECK(m.throttle_interval_us == 0 && m.periods_span_s == 0 && m.cpu_share_periods == 0,
	      "55 ms: interval %g span %g share %g", m.throttle_interval_us, m.periods_span_s, m.cpu_share_periods);
	CHECK(near(m.throttle_gap_median_us, 60000), "55 ms: gap median %g", m.throttle_gap_median_us);

	/* Nothing long enough. */
	metrics_compute(rec, 1e6, NULL, &m);
	CHECK(m.throttle_events == 0 && m.throttle_interval_us == 0 && m.throttle_gap_median_us == 0 &&
		      m.periods_span_s == 0,
	      "1 s threshold: events %llu", (unsigned long long)m.throttle_events);
	/* The whole-window figures do not depend on the threshold. */
	CHECK(near(m.cpu_share, 0.95) && near(m.gap_max_us, 60000), "window figures changed with the threshold");
	free(rec);
}

/*
 * The soak's window at -1 on a fair-server kernel: the hog's 50 ms gaps at 0.95, 1.95 and
 * 2.95 s are the CFS victim's slots; at 2.558 s it lost 28.4 ms the victim also slept through
 * (sched_switch saw no switch: the hypervisor's). Counted as a slot, that gap made the median
 * interval 793 ms and the share over whole periods 0.968.
 */
TEST(metrics_gap_the_cfs_witness_slept_through_is_no_throttle)
{
	struct task_record *hog = new_record(), *victim = new_record();
	struct task_metrics m;

	if (!hog || !victim)
		goto out;
	hog->config.role = ROLE_HOG;
	hog->first_ns = 1000;
	hog->last_ns = hog->first_ns + 3000000000ull;
	hog->cpu_ns = 2820000000ull;
	add_long_gap(hog, 950000000, 50000000, 950000000);
	add_long_gap(hog, 1950000000, 50000000, 1900000000);
	add_long_gap(hog, 2557870000, 28350000, 2507870000);
	add_long_gap(hog, 2950000000, 50000000, 2871520000);
	victim->config.role = ROLE_VICTIM;
	add_long_gap(victim, 0, 950000000, 0);
	add_long_gap(victim, 1000000000, 950000000, 50000000);
	add_long_gap(victim, 2000000000, 950000000, 100000000);
	metrics_compute(hog, 25000, &victim->gaps, &m);
	CHECK(m.throttle_events == 3 && m.gaps_without_cfs == 1, "throttle_events %llu, gaps_without_cfs %llu",
	      (unsigned long long)m.throttle_events, (unsigned long long)m.gaps_without_cfs);
	CHECK(near(m.throttle_interval_us, 1000000), "throttle_interval_us %g, want 1000000", m.throttle_interval_us);
	CHECK(fabs(m.cpu_share_periods - 0.9608) < 1e-4, "cpu_share_periods %g", m.cpu_share_periods);
	/* Without the witness it is the false alarm. */
	metrics_compute(hog, 25000, NULL, &m);
	CHECK(m.throttle_events == 4 && m.gaps_without_cfs == 0 && m.throttle_interval_us < 900000,
	      "no witness: events %llu interval %g", (unsigned long long)m.throttle_events, m.throttle_interval_us);
	/* A victim that ran inside the gap, however briefly, makes it a slot again. */
	victim->gaps.long_stored = 0;
	add_long_gap(victim, 0, 950000000, 0);
	add_long_gap(victim, 1000000000, 950000000, 50000000);
	add_long_gap(victim, 2000000000, 557900000, 100000000);
	add_long_gap(victim, 2557950000, 392050000, 100050000);
	metrics_compute(hog, 25000, &victim->gaps, &m);
	CHECK(m.throttle_events == 4 && m.gaps_without_cfs == 0, "victim ran in it: events %llu",
	      (unsigned long long)m.throttle_events);
	/* A witness with gaps it could not store cannot vouch for any. */
	victim->gaps.long_total = LONG_GAPS_MAX + 1;
	metrics_compute(hog, 25000, &victim->gaps, &m);
	CHECK(m.throttle_events == 4, "overflowed witness: events %llu", (unsigned long long)m.throttle_events);
	/*
	 * Nor one that never ran (6.1 PREEMPT_RT: its timer wakes it through ktimers, which the hog
	 * starves, and the CPU idles through each throttle): its one gap, from the window's start,
	 * vouches for nothing.
	 */
	victim->gaps.long_total = 0;
	victim->gaps.long_stored = 0;
	add_long_gap(victim, 0, 3002500000ull, 0);
	metrics_compute(hog, 25000, &victim->gaps, &m);
	CHECK(m.throttle_events == 4 && m.gaps_without_cfs == 0, "a witness that never ran: events %llu, without cfs %llu",
	      (unsigned long long)m.throttle_events, (unsigned long long)m.gaps_without_cfs);
out:
	free(hog);
	free(victim);
}

/*
 * A 28 ms gap the kernel charged to the hog as CPU time (the hypervisor's stall: the CI grid
 * saw 8 ms of one beside a 2.7 ms throttle, sched_switch none) against a 50 ms throttle whose
 * CPU clock stood still. Samples every 250 us give the clock at each gap's start.
 */
TEST(metrics_stall_is_the_part_of_a_gap_charged_as_cpu_time)
{
	struct task_record *rec = new_record();
	struct task_metrics m;
	uint64_t cpu = 0, t;

	if (!rec)
		return;
	rec->config.role = ROLE_HOG;
	rec->first_ns = 1000;
	rec->last_ns = rec->first_ns + 1000000000ull;
	rec->samples.every_ns = 250000;
	for (t = 0; t < 1000000000ull; t += 250000) {
		/* Frozen through the throttle at [900, 950) ms; running (and charged) elsewhere. */
		if (t > 900000000ull && t < 950000000ull)
			continue;
		cpu = t <= 900000000ull ? t : t - 50000000ull;
		rec->samples.at[rec->samples.count++] = (struct cpu_sample){ (uint32_t)(t / 1000), (uint32_t)(cpu / 1000) };
	}
	add_long_gap(rec, 400100000ull, 28000000ull, 428100000ull);	/* charged: the clock ran on */
	add_long_gap(rec, 900000000ull, 50000000ull, 900000000ull);	/* switched out */
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(fabs(m.charged_stall_max_us - 28000) < 1, "stall_max_us %g, want 28000", m.charged_stall_max_us);
	/* Over the threshold, the charged gap is no throttle (the rt-probe-collateral false alarm at -1). */
	CHECK(m.throttle_events == 1 && m.gaps_charged == 1 && near(m.throttle_gap_median_us, 50000),
	      "charged gap: throttle_events %llu, gaps_charged %llu", (unsigned long long)m.throttle_events,
	      (unsigned long long)m.gaps_charged);
	/* A victim's gaps are RT's runs, charged or not: not this rule's. */
	rec->config.role = ROLE_VICTIM;
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(m.gaps_charged == 0, "victim: gaps_charged %llu", (unsigned long long)m.gaps_charged);
	rec->config.role = ROLE_HOG;
	/* Without the charged gap, a throttle alone: no stall, within a sampling step. */
	rec->gaps.long_gaps[0] = rec->gaps.long_gaps[1];
	rec->gaps.long_stored = 1;
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(m.charged_stall_max_us < 250, "throttle only: stall_max_us %g", m.charged_stall_max_us);
	/* Unsampled: unknown, 0. */
	rec->samples.every_ns = 0;
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(m.charged_stall_max_us == 0 && m.gaps_charged == 0, "unsampled: %g", m.charged_stall_max_us);
	free(rec);
}

/*
 * The soak's window at half on a fair-server kernel: the victim got a 50 ms fair-server slot
 * at its start (runtime the server kept from the window before), then RT's 400 and 500 ms
 * slots. Counted as an RT slot, the first slot's end began the victim's "whole periods" off
 * the period grid: 0.475. Where RT's slot is longer than the server's, only a run of half RT's
 * slot ends one (run_case.c): one whole period, 0.5.
 */
TEST(metrics_victim_periods_do_not_start_after_a_fair_server_slot)
{
	struct task_record *rec = new_record();
	struct task_metrics m;

	if (!rec)
		return;
	rec->config.role = ROLE_VICTIM;
	rec->config.window_ns = 2950000000ull;
	rec->config.interruption_max_ns = 4800000ull;
	rec->first_ns = 1000;
	rec->last_ns = rec->first_ns + rec->config.window_ns;
	add_long_gap(rec, 0, 6240000ull, 0);
	add_long_gap(rec, 55750000ull, 494650000ull, 49510000ull);
	add_long_gap(rec, 950140000ull, 499980000ull, 449250000ull);
	add_long_gap(rec, 1950110000ull, 500160000ull, 949230000ull);
	rec->config.slot_min_ns = 4000000ull;	/* a tick */
	metrics_compute(rec, 250000, NULL, &m);
	CHECK(fabs(m.cpu_share_periods - 0.475) < 0.001, "a tick: cpu_share_periods %g", m.cpu_share_periods);
	rec->config.slot_min_ns = 250000000ull;	/* half RT's 500 ms slot */
	metrics_compute(rec, 250000, NULL, &m);
	CHECK(fabs(m.cpu_share_periods - 0.5) < 0.0001 && fabs(m.periods_span_s - 1.0) < 0.001,
	      "half the slot: cpu_share_periods %g over %g s", m.cpu_share_periods, m.periods_span_s);
	free(rec);
}

/* A periodic app's gap long enough to call its miss throttled, which the CFS task slept through. */
TEST(metrics_periodic_gap_the_cfs_witness_slept_through)
{
	struct task_record *app = new_record(), *cfs = new_record();
	struct task_metrics m;

	if (!app || !cfs)
		goto out;
	app->config.role = ROLE_PERIODIC;
	app->config.throttle_gap_ns = 25000000ull;
	app->first_ns = 1000;
	app->last_ns = app->first_ns + 20000000000ull;
	add_long_gap(app, 4260000000ull, 26000000ull, 3830000000ull);	/* a stall: CFS did not run */
	add_long_gap(app, 9000000000ull, 30000000ull, 8100000000ull);	/* a throttle: CFS ran */
	add_long_gap(app, 12000000000ull, 10000000ull, 10800000000ull);	/* too short to count */
	cfs->config.role = ROLE_VICTIM;
	add_long_gap(cfs, 4250000000ull, 199500000ull, 400000000ull);
	add_long_gap(cfs, 8990000000ull, 10000000ull, 800000000ull);
	add_long_gap(cfs, 11990000000ull, 30000000ull, 1000000000ull);
	metrics_compute(app, 25000, &cfs->gaps, &m);
	CHECK(m.job_gaps_without_cfs == 1, "job_gaps_without_cfs %llu, want 1", (unsigned long long)m.job_gaps_without_cfs);
	metrics_compute(app, 25000, NULL, &m);
	CHECK(m.job_gaps_without_cfs == 0, "no witness: %llu", (unsigned long long)m.job_gaps_without_cfs);
out:
	free(app);
	free(cfs);
}

TEST(metrics_compute_degenerate_records)
{
	struct task_record *rec = new_record();
	struct task_metrics m;

	if (!rec)
		return;
	/* An empty record: no division by zero, nothing measured. */
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(isfinite(m.cpu_share) && m.cpu_share == 0, "empty cpu_share %g", m.cpu_share);
	CHECK(m.loop_ns == 0 && m.throttle_events == 0 && m.gap_count == 0, "empty record figures");
	/* last before first (never ran): still finite. */
	rec->first_ns = 2000;
	rec->last_ns = 1000;
	metrics_compute(rec, 25000, NULL, &m);
	CHECK(isfinite(m.window_s) && isfinite(m.cpu_share), "reversed span: window %g share %g", m.window_s, m.cpu_share);
	free(rec);
}

TEST(metrics_to_json_names_by_role)
{
	struct task_record *rec = new_record();
	struct task_metrics m;
	json_object *obj, *v;

	if (!rec)
		return;
	throttled_hog(rec);
	metrics_compute(rec, 25000, NULL, &m);
	obj = metrics_to_json(rec, &m, role_metrics);
	CHECK(json_object_object_get_ex(obj, "gap_max_us", &v) && near(json_object_get_double(v), 60000),
	      "hog gap_max_us");
	CHECK(json_object_object_get_ex(obj, "throttle_events", &v) && json_object_get_int64(v) == 3,
	      "hog throttle_events");
	CHECK(json_object_object_get_ex(obj, "throttle_interval_us", &v) && near(json_object_get_double(v), 1005000),
	      "hog throttle_interval_us");
	CHECK(json_object_object_get_ex(obj, "cpu_share_periods", &v) && near(json_object_get_double(v), 0.95),
	      "hog cpu_share_periods");
	CHECK(!json_object_object_get_ex(obj, "starvation_max_us", NULL), "a hog has starvation_max_us");
	json_object_put(obj);

	/* A victim names the same figures as starvation; unmeasurable ones are left out. */
	rec->config.role = ROLE_VICTIM;
	metrics_compute(rec, 55000, NULL, &m);
	obj = metrics_to_json(rec, &m, role_metrics);
	CHECK(json_object_object_get_ex(obj, "starvation_max_us", &v) && near(json_object_get_double(v), 60000),
	      "victim starvation_max_us");
	CHECK(json_object_object_get_ex(obj, "starvation_events", &v) && json_object_get_int64(v) == 1,
	      "victim starvation_events");
	CHECK(!json_object_object_get_ex(obj, "gap_max_us", NULL), "a victim has gap_max_us");
	CHECK(!json_object_object_get_ex(obj, "cpu_share_periods", NULL), "unmeasured cpu_share_periods present");
	CHECK(!json_object_object_get_ex(obj, "throttle_interval_us", NULL), "a victim has throttle_interval_us");
	json_object_put(obj);
	free(rec);
}

/* A burst hog over 8 s: a 2 s burst every 4 s from 2 s, a 1 s RT period. NULL without memory. */
static struct task_record *new_burst_record(void)
{
	struct task_record *rec = new_record();

	if (!rec)
		return NULL;
	rec->config.role = ROLE_BURST_HOG;
	rec->config.window_ns = 8000000000ull;
	rec->config.burst_ns = 2000000000ull;
	rec->config.burst_every_ns = 4000000000ull;
	rec->config.interval_ns = 1000000000ull;
	rec->first_ns = 1000;
	rec->last_ns = rec->first_ns + rec->config.window_ns;
	return rec;
}

/*
 * A burst hog's throttles, in its bursts or outside (8 s window, a 2 s burst every 4 s from
 * 2 s, a 1 s RT period): measured under QEMU, a throttle 22 ms before a burst's end held the
 * light load's first job 29 ms past it. That one, and one the budget the burst spent sets off in
 * the period it ended in, are the burst's; one in the light load a period on is not.
 */
TEST(metrics_burst_throttles_in_and_after_bursts)
{
	struct task_record *rec = new_burst_record();
	struct task_metrics m;
	json_object *obj, *v;
	int64_t in = -1, out = -1, bursts = -1;

	if (!rec)
		return;
	add_long_gap(rec, 2977000000ull, 50000000, 0);	/* in the first burst */
	add_long_gap(rec, 4000000000ull, 29000000, 0);	/* its throttle, past its end */
	add_long_gap(rec, 4600000000ull, 40000000, 0);	/* the period it ended in */
	add_long_gap(rec, 5200000000ull, 30000000, 0);	/* the light load alone, a period on */
	add_long_gap(rec, 1000000000ull, 30000000, 0);	/* before the first burst */
	add_long_gap(rec, 7000000000ull, 5000000, 0);	/* a short gap in the second: no throttle */
	metrics_compute(rec, 25000, NULL, &m);
	obj = metrics_to_json(rec, &m, role_metrics);
	if (json_object_object_get_ex(obj, "throttle_events_in_bursts", &v))
		in = json_object_get_int64(v);
	if (json_object_object_get_ex(obj, "throttle_events_outside_bursts", &v))
		out = json_object_get_int64(v);
	if (json_object_object_get_ex(obj, "bursts", &v))
		bursts = json_object_get_int64(v);
	CHECK(bursts == 2 && in == 3 && out == 2, "bursts %lld, in %lld, outside %lld; want 2, 3, 2", (long long)bursts,
	      (long long)in, (long long)out);
	/* The longest gap outside: the light load's 30 ms ones, not the bursts' 50 ms. */
	CHECK(json_object_object_get_ex(obj, "gap_max_outside_bursts_us", &v) &&
		      fabs(json_object_get_double(v) - 30000) < 1e-6,
	      "gap_max_outside_bursts_us %s", json_object_to_json_string(v));
	json_object_put(obj);
	free(rec);
}

TEST(metrics_gap_hist_json_keys)
{
	struct gap_stats *g = calloc(1, sizeof(*g));
	json_object *obj, *v;

	if (!g)
		return;
	g->hist[0] = 5;
	g->hist[gap_bucket(50000000)] = 2;
	obj = gap_hist_to_json(g);
	CHECK(json_object_object_length(obj) == 2, "%d keys", json_object_object_length(obj));
	CHECK(json_object_object_get_ex(obj, "1", &v) && json_object_get_int64(v) == 5, "bucket 1 us");
	CHECK(json_object_object_get_ex(obj, "32768", &v) && json_object_get_int64(v) == 2, "bucket 32768 us");
	json_object_put(obj);
	free(g);
}

/* The real measuring loop, briefly and unprivileged: a late start is a gap from the nominal start. */
TEST(metrics_spin_until_records_late_start)
{
	struct task_record *rec = new_record();
	struct spin_state st;
	uint64_t now, start;

	if (!rec)
		return;
	rec->config.gap_threshold_ns = 1000000;	/* 1 ms: the short spin stays clear of it */
	rec->config.long_gap_ns = 2000000;
	now = mono_ns();
	start = now - 5000000;	/* the window began 5 ms ago */
	spin_begin(rec, start, &st);
	spin_end(rec, &st, spin_until(rec, &st, start, now + 200000));
	CHECK(rec->gaps.count >= 1, "no gap recorded");
	CHECK(rec->gaps.max_ns >= 5000000, "longest gap %llu ns, want >= 5 ms", (unsigned long long)rec->gaps.max_ns);
	CHECK(rec->gaps.longest[0].start_ns == 0 && rec->gaps.longest[0].len_ns == rec->gaps.max_ns,
	      "longest gap at %llu len %llu", (unsigned long long)rec->gaps.longest[0].start_ns,
	      (unsigned long long)rec->gaps.longest[0].len_ns);
	CHECK(rec->gaps.long_stored >= 1 && rec->gaps.long_gaps[0].start_ns == 0 &&
		      rec->gaps.long_gaps[0].len_ns >= 5000000,
	      "the late start is not a long gap");
	CHECK(rec->gaps.hist[gap_bucket(rec->gaps.max_ns)] >= 1, "histogram misses the gap");
	CHECK(rec->iterations > 0 && rec->first_ns == start && rec->last_ns >= now + 200000,
	      "iterations %llu, span %llu..%llu", (unsigned long long)rec->iterations,
	      (unsigned long long)rec->first_ns, (unsigned long long)rec->last_ns);
	free(rec);
}

TEST(calibration_loops_follow_the_step_cost)
{
	/* 9 ms at 25 ns a step (hardware) and at ~1.1 us a step (an emulated CPU): 9 ms either way. */
	CHECK(calibration_loops(9000, 25) == 360000, "25 ns: %llu", (unsigned long long)calibration_loops(9000, 25));
	CHECK(calibration_loops(9000, 1125) == 8000, "1125 ns: %llu", (unsigned long long)calibration_loops(9000, 1125));
	/* No noise floor figure: the hardware step; absurdly slow steps still give a usable sample. */
	CHECK(calibration_loops(9000, 0) == 360000, "unknown: %llu", (unsigned long long)calibration_loops(9000, 0));
	CHECK(calibration_loops(9000, 1e9) == 1000, "floor: %llu", (unsigned long long)calibration_loops(9000, 1e9));
}

/*
 * A CFS victim beside a hog at 500000/1000000, the window starting 50 ms into a period whose
 * RT budget was partly spent before: its long gaps are the hog's runs.
 *   0.000 s  400 ms  the hog from the window start (cut by the window)
 *   0.950 s  500 ms  the period timer unthrottles the hog at 0.950 s; ends 1.450 s
 *   1.950 s  500 ms  ends 2.450 s
 * Between gap ENDS (0.400 s to 2.450 s) the span is not whole periods: 2.050 s holding
 * 0.550 + 0.500 s of victim time. Between STARTS of uncut gaps it is 1.000 s with 0.500 s.
 */
TEST(metrics_victim_periods_run_from_gap_starts)
{
	struct task_record *rec = new_record();
	struct task_metrics m;

	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	rec->config.role = ROLE_VICTIM;
	rec->first_ns = 1000000000ull;
	rec->last_ns = rec->first_ns + 3000000000ull;
	rec->cpu_ns = 1500000000ull;
	add_long_gap(rec, 0, 400000000, 0);
	add_long_gap(rec, 950000000, 500000000, 550000000);
	add_long_gap(rec, 1950000000, 500000000, 1050000000);
	metrics_compute(rec, 250000, NULL, &m);
	CHECK(near(m.periods_span_s, 1.0), "periods_span_s %g, want 1.0 (gap start to gap start)", m.periods_span_s);
	CHECK(near(m.cpu_share_periods, 0.5), "cpu_share_periods %g, want 0.5", m.cpu_share_periods);
	/* The same gaps on a hog would be measured from their ends. */
	rec->config.role = ROLE_HOG;
	metrics_compute(rec, 250000, NULL, &m);
	CHECK(near(m.periods_span_s, 2.05), "hog: periods_span_s %g, want 2.05", m.periods_span_s);
	free(rec);
}

/*
 * A victim at 950000/1000000 whose last RT run the fair server split 10 us mid-period (seen
 * right after a window that starved CFS: the server's state carries over). Its slots are
 * 0.95-1.00 s, 1.95-2.00 s, 2.95-3.00 s; the RT runs (its gaps) 1.0-1.95 s, 2.0-2.95 s, and
 * 3.0-3.5 s, 3.50001-3.95 s. Measured from the split's start the span would be 2.5 s holding
 * two slots (0.040, as the alarm read); the split follows no slot, so the span ends at 3.0 s.
 */
/* 950000/1000000 on 6.18: a run of RT split by 80 us of victim 437 ms in (the grid's cell). */
static void add_split_rt_run(struct task_record *rec)
{
	memset(&rec->gaps, 0, sizeof(rec->gaps));
	add_long_gap(rec, 0, 944600000, 0);
	add_long_gap(rec, 994100000, 950100000, 49500000);
	add_long_gap(rec, 1994300000, 437400000, 99500000);
	add_long_gap(rec, 2431780000ull, 512600000, 99580000);
}

TEST(metrics_victim_periods_skip_a_run_split_mid_period)
{
	struct task_record *rec = new_record();
	struct task_metrics m;

	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	rec->config.role = ROLE_VICTIM;
	rec->config.slot_min_ns = 4000000;	/* 950000/1000000, HZ 250: a tick */
	rec->config.window_ns = 5000000000ull;
	rec->first_ns = 1000;
	rec->last_ns = rec->first_ns + rec->config.window_ns;
	rec->cpu_ns = 200000000ull;
	add_long_gap(rec, 0, 950000000, 0);
	add_long_gap(rec, 1000000000, 950000000, 50000000);
	add_long_gap(rec, 2000000000, 950000000, 100000000);
	add_long_gap(rec, 3000000000ull, 500000000, 150000000);
	add_long_gap(rec, 3500010000ull, 449990000, 150010000);
	metrics_compute(rec, 475000, NULL, &m);	/* a victim's threshold: half the RT run, not the slot */
	CHECK(near(m.periods_span_s, 2.0), "periods_span_s %g, want 2.0 (to the last gap after a slot)",
	      m.periods_span_s);
	CHECK(near(m.cpu_share_periods, 0.05), "cpu_share_periods %g, want 0.05", m.cpu_share_periods);
	/* A run at the window's start is no slot either: that gap begins where the window did. */
	memset(&rec->gaps, 0, sizeof(rec->gaps));
	add_long_gap(rec, 2000000, 948000000, 2000000);
	add_long_gap(rec, 1000000000, 950000000, 52000000);
	add_long_gap(rec, 2000000000, 950000000, 102000000);
	metrics_compute(rec, 475000, NULL, &m);
	CHECK(near(m.periods_span_s, 1.0) && near(m.cpu_share_periods, 0.05),
	      "window start: span %g share %g, want 1.0 and 0.05", m.periods_span_s, m.cpu_share_periods);
	/*
	 * A first slot cut short is a slot (6.1 under an emulator: the timer started 24 ms before
	 * the window, so the first slot ran 953-976 ms): the gap after it starts on the grid.
	 */
	memset(&rec->gaps, 0, sizeof(rec->gaps));
	add_long_gap(rec, 0, 953200000, 0);
	add_long_gap(rec, 975800000, 950600000, 22600000);
	add_long_gap(rec, 1975800000, 950200000, 72000000);
	metrics_compute(rec, 475000, NULL, &m);
	CHECK(near(m.periods_span_s, 1.0) && fabs(m.cpu_share_periods - 0.0494) < 1e-9,
	      "a first slot cut short: span %g share %g, want 1.0 and 0.0494", m.periods_span_s, m.cpu_share_periods);
	/*
	 * Split where its first part is below the threshold (measured on 6.18, the grid's
	 * 950000/1000000 cell): 437 ms, 80 us of victim, 512 ms. The gap after the 80 us follows
	 * no slot, though the last gap over the threshold ended 487 ms before it.
	 */
	add_split_rt_run(rec);
	metrics_compute(rec, 475000, NULL, &m);
	CHECK(near(m.periods_span_s, 1.0002) && fabs(m.cpu_share_periods - 50000000.0 / 1000200000) < 1e-9,
	      "a split whose first part is short: span %g share %g, want 1.0002 and 0.04999", m.periods_span_s,
	      m.cpu_share_periods);
	/*
	 * The machine's own gaps in a slot are no runs of RT (Debian 6.1 under an emulator, noise
	 * floor 10.6 ms): the victim ran 3.8 ms after a 6 ms one before RT's run began on the grid.
	 * Counted as runs, the cut moved to the 6 ms gap and the share read 0.067.
	 */
	rec->config.interruption_max_ns = 14600000;
	memset(&rec->gaps, 0, sizeof(rec->gaps));
	add_long_gap(rec, 0, 1768800000, 0);
	add_long_gap(rec, 1771700000, 1800000, 2900000);
	add_long_gap(rec, 1779700000, 1400000, 9100000);
	add_long_gap(rec, 1807700000, 6000000, 36600000);
	add_long_gap(rec, 1817480000, 951220000, 40380000);
	add_long_gap(rec, 2787700000ull, 5900000, 59380000);
	add_long_gap(rec, 2815710000ull, 957630000, 81440000);
	metrics_compute(rec, 475000, NULL, &m);
	CHECK(near(m.periods_span_s, 0.99823) && fabs(m.cpu_share_periods - 41060000.0 / 998230000) < 1e-9,
	      "the machine's gaps in a slot: span %g share %g, want 0.99823 and 0.0411", m.periods_span_s,
	      m.cpu_share_periods);
	/* The same split as above is still one run: 437 ms is no interruption. */
	add_split_rt_run(rec);
	metrics_compute(rec, 475000, NULL, &m);
	CHECK(near(m.periods_span_s, 1.0002), "a split with interruptions allowed: span %g, want 1.0002", m.periods_span_s);
	free(rec);
}

/*
 * The rlimit-rttime hog (200 ms soft / 400 ms hard): killed by SIGKILL, its signal and CPU time
 * at exit; a kernel whose watchdog counted 4x slow let it run its whole 1 s window and leave on
 * its own: no signal (0) and the CPU time it left with, measured, not missing.
 */
TEST(metrics_rlimit_hog_that_outlived_its_window_reports_no_signal)
{
	struct task_record *rec = new_record();
	struct task_metrics m;
	json_object *obj, *v;

	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	rec->config.role = ROLE_HOG;
	rec->config.rttime_soft_us = 200000;
	rec->config.rttime_hard_us = 400000;
	rec->config.may_be_killed = true;
	rec->first_ns = 1000;
	rec->last_ns = rec->first_ns + 1000000000ull;
	rec->exit_status = 9;	/* killed by SIGKILL, as wait4 puts it */
	rec->rusage_cpu_ns = 431000000;
	metrics_compute(rec, 25000, NULL, &m);
	obj = metrics_to_json(rec, &m, role_metrics);
	CHECK(json_object_object_get_ex(obj, "killed_by_signal", &v) && json_object_get_int(v) == 9, "killed: signal");
	CHECK(json_object_object_get_ex(obj, "cpu_at_exit_ms", &v) && near(json_object_get_double(v), 431), "killed: cpu");
	json_object_put(obj);
	rec->exit_status = 0;	/* exited on its own */
	rec->rusage_cpu_ns = 970000000;
	obj = metrics_to_json(rec, &m, role_metrics);
	CHECK(json_object_object_get_ex(obj, "killed_by_signal", &v) && json_object_get_int(v) == 0, "outlived: no signal");
	CHECK(json_object_object_get_ex(obj, "cpu_at_exit_ms", &v) && near(json_object_get_double(v), 970),
	      "outlived: cpu at exit");
	json_object_put(obj);
	/* A hog no limit was meant to kill says nothing of it. */
	rec->config.may_be_killed = false;
	obj = metrics_to_json(rec, &m, role_metrics);
	CHECK(!json_object_object_get_ex(obj, "killed_by_signal", NULL), "an unlimited hog names no signal");
	json_object_put(obj);
	free(rec);
}

/* A burst hog whose gaps outran the store: the longest outside the bursts is not known, so absent. */
TEST(metrics_burst_gap_outside_unknown_beyond_the_store)
{
	struct task_record *rec = new_burst_record();
	struct task_metrics m;
	json_object *obj, *v;

	if (!rec)
		return;
	add_long_gap(rec, 1000000000ull, 3000000, 0);
	rec->gaps.long_total++;	/* one more than stored */
	metrics_compute(rec, 25000, NULL, &m);
	obj = metrics_to_json(rec, &m, role_metrics);
	CHECK(json_object_object_get_ex(obj, "throttle_events_outside_bursts", &v) &&
		      !json_object_object_get_ex(obj, "gap_max_outside_bursts_us", &v),
	      "%s", json_object_to_json_string(obj));
	json_object_put(obj);
	free(rec);
}

/* The victim ran (and was charged) in [from, to) ms: its CPU clock sampled every 250 us. */
static uint64_t victim_runs(struct task_record *rec, double from_ms, double to_ms, uint64_t cpu_ns)
{
	for (uint64_t t = (uint64_t)(from_ms * 1e6); t < (uint64_t)(to_ms * 1e6); t += 250000) {
		uint64_t cpu = cpu_ns + t - (uint64_t)(from_ms * 1e6);

		rec->samples.at[rec->samples.count++] = (struct cpu_sample){ (uint32_t)(t / 1000), (uint32_t)(cpu / 1000) };
	}
	return cpu_ns + (uint64_t)((to_ms - from_ms) * 1e6);
}

/*
 * The soak's window at half (suite 6): the victim's slots 500.6-947.2, 1447.4-1947.1 and
 * 2447.2-2947 ms, RT's runs between; 1774.9 ms into the second slot the machine stalled
 * 14.5 ms (the tick held back 10.5 ms), charged to the victim. Taken for a run of RT, the
 * stall began a "period": 0.413. It is no run of RT: one whole period, 0.4997.
 */
TEST(metrics_victim_periods_skip_a_stall_charged_to_the_victim)
{
	struct task_record *rec = new_record();
	struct task_metrics m;
	uint64_t cpu;

	if (!rec)
		return;
	rec->config.role = ROLE_VICTIM;
	rec->config.window_ns = 2947000000ull;
	rec->config.interruption_max_ns = 5000000ull;
	rec->config.slot_min_ns = 250000000ull;
	rec->first_ns = 1000;
	rec->last_ns = rec->first_ns + rec->config.window_ns;
	rec->samples.every_ns = 250000;
	add_long_gap(rec, 0, 500600000ull, 0);
	cpu = victim_runs(rec, 500.6, 947.16, 0);
	add_long_gap(rec, 947160000ull, 500260000ull, cpu);
	cpu = victim_runs(rec, 1447.42, 1774.92, cpu);
	cpu += 14480000ull;	/* the stall, charged: no samples in it */
	add_long_gap(rec, 1774920000ull, 14480000ull, cpu);
	cpu = victim_runs(rec, 1789.40, 1947.12, cpu);
	add_long_gap(rec, 1947120000ull, 500040000ull, cpu);
	victim_runs(rec, 2447.16, 2947.0, cpu);
	metrics_compute(rec, 250000, NULL, &m);
	CHECK(fabs(m.cpu_share_periods - 0.4997) < 0.0005 && fabs(m.periods_span_s - 0.99996) < 0.0001,
	      "cpu_share_periods %g over %g s, want 0.4997 over 1.0", m.cpu_share_periods, m.periods_span_s);
	/* Not charged (the victim switched out: a run of RT cut short), it still ends a period. */
	rec->gaps.long_gaps[2].cpu_ns -= 14480000ull;
	rec->gaps.long_gaps[3].cpu_ns -= 14480000ull;
	metrics_compute(rec, 250000, NULL, &m);
	CHECK(m.cpu_share_periods < 0.45, "uncharged: cpu_share_periods %g", m.cpu_share_periods);
	/*
	 * Unless the one RT task on the CPU was throttled through it (the hypervisor's steal, the
	 * policies test at half on 6.18: 9 ms, 135 ms before RT's run, read 0.4145): no run of RT.
	 */
	struct task_record *hog = new_record();

	if (hog) {
		hog->config.role = ROLE_HOG;
		add_long_gap(hog, 947900000ull, 499000000ull, 500000000ull);
		add_long_gap(hog, 1447420000ull, 499700000ull, 1000000000ull);
		metrics_compute(rec, 250000, &hog->gaps, &m);
		/* One whole period again, less the 14.48 ms the victim was not given. */
		CHECK(fabs(m.cpu_share_periods - 0.4852) < 0.0005 && fabs(m.periods_span_s - 0.99996) < 0.0001,
		      "RT throttled through the gap: cpu_share_periods %g over %g s, want 0.4852 over 1.0",
		      m.cpu_share_periods, m.periods_span_s);
		/* The RT task ran in it (its gap ended before): a run of RT cut short, as before. */
		hog->gaps.long_gaps[1].len_ns = 300000000ull;
		metrics_compute(rec, 250000, &hog->gaps, &m);
		CHECK(m.cpu_share_periods < 0.45, "RT ran in the gap: cpu_share_periods %g", m.cpu_share_periods);
		free(hog);
	}
	free(rec);
}
