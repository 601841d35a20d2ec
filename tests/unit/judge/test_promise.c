/*
 * The period-by-period promise on synthetic timelines: who ran when, as the hog and the victim
 * would have recorded it (their long gaps, with their CPU time at each gap's end).
 */
#include "cpu_timeline.h"
#include "promise.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define LONG_GAP 200000ull

enum owner { NOBODY, RT, CFS };

struct schedule {
	uint64_t end_ns;
	int count;
	struct {
		uint64_t from, to;
		enum owner who;
	} run[4096];
};

static void runs(struct schedule *s, uint64_t from, uint64_t to, enum owner who)
{
	if (to > s->end_ns)
		to = s->end_ns;
	if (from >= to)
		return;
	s->run[s->count].from = from;
	s->run[s->count].to = to;
	s->run[s->count].who = who;
	s->count++;
}

/* The record `who` would have written: a gap wherever it did not run. */
static void record_of(const struct schedule *s, enum owner who, struct task_record *rec)
{
	uint64_t cpu = 0, idle_from = 0;

	memset(rec, 0, sizeof(*rec));
	rec->config.long_gap_ns = LONG_GAP;
	rec->config.window_ns = s->end_ns;
	rec->first_ns = 1000 * MS;
	rec->last_ns = rec->first_ns + s->end_ns;
	for (int i = 0; i <= s->count; i++) {
		bool mine = i < s->count && s->run[i].who == who;
		uint64_t at = i < s->count ? s->run[i].from : s->end_ns;

		if (!mine && i < s->count)
			continue;
		if (at - idle_from >= LONG_GAP) {
			struct gap_event *g = &rec->gaps.long_gaps[rec->gaps.long_stored++];

			*g = (struct gap_event){ idle_from, at - idle_from, cpu };
			rec->gaps.long_total++;
			if (g->len_ns > rec->gaps.max_ns)
				rec->gaps.max_ns = g->len_ns;
		}
		if (i < s->count) {
			cpu += s->run[i].to - s->run[i].from;
			idle_from = s->run[i].to;
		}
	}
	rec->cpu_ns = cpu;
}

struct outcome {
	struct promise p;
	struct promise_terms t;
};

static struct task_record hog_rec, victim_rec;
static struct cpu_timeline hog_tl, victim_tl;

static void judge(const struct schedule *s, int64_t runtime_us, int64_t period_us, bool rt_limit, bool fs,
		  struct outcome *o)
{
	memset(&o->t, 0, sizeof(o->t));
	o->t.rt_limit = rt_limit;
	o->t.cfs_rest = rt_limit;
	o->t.fair_server = fs;
	o->t.runtime_us = runtime_us;
	o->t.period_us = period_us;
	o->t.fs_runtime_us = 50000;
	o->t.fs_period_us = 1000000;
	o->t.tick_us = 4000;
	record_of(s, RT, &hog_rec);
	record_of(s, CFS, &victim_rec);
	CHECK(cpu_timeline_build(&hog_rec, &hog_tl) && cpu_timeline_build(&victim_rec, &victim_tl), "timelines");
	promise_measure(&o->t, &hog_tl, &victim_tl, &hog_rec.gaps, &victim_rec.gaps, (period_us - runtime_us) / 2.0,
			&o->p);
	CHECK(!rt_limit || o->p.per_period, "per-period figures kept");
	promise_release(&o->p);
}

/* RT runs `rt` at the start of every period from `phase`, CFS the rest; `extra` added to RT. */
static void classic(struct schedule *s, uint64_t window, uint64_t phase, uint64_t period, uint64_t rt)
{
	memset(s, 0, sizeof(*s));
	s->end_ns = window;
	runs(s, 0, phase > period - rt ? phase - (period - rt) : 0, RT);
	runs(s, phase > period - rt ? phase - (period - rt) : 0, phase, CFS);
	for (uint64_t b = phase; b < window; b += period) {
		runs(s, b, b + rt, RT);
		runs(s, b + rt, b + period, CFS);
	}
}

static struct schedule sched;

TEST(promise_classic_kept_on_any_phase_and_grid_found)
{
	struct outcome o;

	classic(&sched, 3000 * MS, 123 * MS, 500 * MS, 475 * MS);
	judge(&sched, 475000, 500000, true, false, &o);
	CHECK(o.p.periods == 5, "5 whole periods in 3 s from 123 ms, got %d", o.p.periods);
	CHECK(o.p.rt_budget_excess_us <= 1, "RT within its budget: excess %.1f us", o.p.rt_budget_excess_us);
	CHECK(fabs(o.p.cfs_period_min_us - 25000) < 2, "CFS got 25 ms a period: %.1f", o.p.cfs_period_min_us);
	CHECK(fabs(fmod(o.p.phase_us, 500000) - 123000) < 1, "grid on the throttle ends: phase %.1f", o.p.phase_us);
	CHECK(o.p.throttle_ends_on_grid == o.p.throttle_ends && o.p.throttle_ends >= 4, "%d of %d ends on the grid",
	      o.p.throttle_ends_on_grid, o.p.throttle_ends);
	CHECK(o.p.cfs_wait_bound_us == 2 * 475000 + 4000, "wait bound %.0f", o.p.cfs_wait_bound_us);
}

/*
 * Measured on 6.18 at 475000/500000: after two 24 ms throttles the fair server's slot locks
 * in, one 52 ms gap every second, RT running 948 ms in a row across a boundary, never more
 * than 475 ms in one period. The promise holds; event counts would not.
 */
TEST(promise_fair_server_interleaving_is_kept)
{
	struct outcome o;

	memset(&sched, 0, sizeof(sched));
	sched.end_ns = 4000 * MS;
	runs(&sched, 0, 476 * MS, RT);
	runs(&sched, 476 * MS, 500 * MS, CFS);
	runs(&sched, 500 * MS, 976 * MS, RT);
	runs(&sched, 976 * MS, 1000 * MS, CFS);
	for (uint64_t t = 1000 * MS; t < 4000 * MS; t += 1000 * MS) {
		runs(&sched, t, t + 948 * MS, RT);
		runs(&sched, t + 948 * MS, t + 1000 * MS, CFS);
	}
	judge(&sched, 475000, 500000, true, true, &o);
	CHECK(o.p.rt_budget_excess_us <= 4000, "RT within runtime + a tick: excess %.1f us", o.p.rt_budget_excess_us);
	CHECK(o.p.cfs_period_min_us >= 25000 - 4000, "CFS its rest: %.1f", o.p.cfs_period_min_us);
	CHECK(o.p.fs_periods >= 3 && o.p.fs_cfs_period_min_us >= 50000, "fair server's 50 ms: %.1f over %d",
	      o.p.fs_cfs_period_min_us, o.p.fs_periods);
}

TEST(promise_dead_throttle_is_broken_on_every_grid)
{
	struct outcome o;

	memset(&sched, 0, sizeof(sched));
	sched.end_ns = 3000 * MS;
	runs(&sched, 0, 3000 * MS, RT);
	judge(&sched, 500000, 1000000, true, true, &o);
	CHECK(o.p.periods == 2 && o.p.rt_budget_excess_us > 900000, "RT ran 1 s a period: excess %.0f over %d",
	      o.p.rt_budget_excess_us, o.p.periods);
	CHECK(o.p.cfs_period_min_us == 0 && o.p.fs_cfs_period_min_us == 0, "CFS got nothing");
}

TEST(promise_runtime_charged_half_is_broken)
{
	struct outcome o;

	classic(&sched, 3000 * MS, 400 * MS, 1000 * MS, 600 * MS);
	judge(&sched, 300000, 1000000, true, false, &o);
	CHECK(fabs(o.p.rt_budget_excess_us - 2 * 300000) < 2 || fabs(o.p.rt_budget_excess_us - 300000) < 2,
	      "300 ms over in each period: excess %.0f", o.p.rt_budget_excess_us);
	CHECK(o.p.cfs_period_min_us < 700000 - 100000, "CFS short of its rest: %.0f", o.p.cfs_period_min_us);
}

/* A small overrun each period passes the single-period bound but adds up over the window. */
TEST(promise_slow_leak_adds_up)
{
	struct outcome o;

	classic(&sched, 3000 * MS, 3 * MS, 10 * MS, 9500000);
	judge(&sched, 9000, 10000, true, false, &o);
	CHECK(o.p.rt_period_max_us - 9000 < 4000, "each period within a tick: %.0f", o.p.rt_period_max_us);
	CHECK(o.p.rt_budget_excess_us > 100000, "over ~299 periods: excess %.0f", o.p.rt_budget_excess_us);
}

/* An overrun to the next tick, carried into the next period, is what the kernel does. */
TEST(promise_tick_overrun_carried_is_kept)
{
	struct outcome o;

	memset(&sched, 0, sizeof(sched));
	sched.end_ns = 2000 * MS;
	for (uint64_t b = 0, k = 0; b < sched.end_ns; b += 10 * MS, k++) {
		/* 10 ms (runtime 9 + 1 of overrun), then 8 ms (the debt paid) */
		uint64_t rt = k % 2 ? 8 * MS : 10 * MS;

		runs(&sched, b, b + rt, RT);
		runs(&sched, b + rt, b + 10 * MS, CFS);
	}
	judge(&sched, 9000, 10000, true, false, &o);
	CHECK(o.p.rt_budget_excess_us <= 1000 + 1, "at most the overrun: %.0f", o.p.rt_budget_excess_us);
}

TEST(promise_fair_server_only)
{
	struct outcome o;

	memset(&sched, 0, sizeof(sched));
	sched.end_ns = 3500 * MS;
	for (uint64_t t0 = 0; t0 < sched.end_ns; t0 += 1000 * MS) {
		runs(&sched, t0, t0 + 687 * MS, RT);
		runs(&sched, t0 + 687 * MS, t0 + 737 * MS, CFS);
		runs(&sched, t0 + 737 * MS, t0 + 1000 * MS, RT);
	}
	judge(&sched, -1, 1000000, false, true, &o);
	CHECK(o.p.periods == 0 && o.p.fs_periods >= 2, "no RT periods, %d fair-server periods", o.p.fs_periods);
	CHECK(fabs(o.p.fs_cfs_period_min_us - 50000) < 2, "50 ms a period: %.0f", o.p.fs_cfs_period_min_us);
	/* The same without the server's slots: broken. */
	memset(&sched, 0, sizeof(sched));
	sched.end_ns = 3500 * MS;
	runs(&sched, 0, sched.end_ns, RT);
	judge(&sched, -1, 1000000, false, true, &o);
	CHECK(o.p.fs_cfs_period_min_us == 0, "nothing served: %.0f", o.p.fs_cfs_period_min_us);
}

TEST(promise_terms_by_regime)
{
	struct kernel_model km = { .fair_server = true, .rt_bandwidth = true, .fs_runtime_us = 50000,
				   .fs_period_us = 1000000, .tick_us = 4000 };
	struct limiter l = { .regime = REGIME_CLASSIC };
	struct promise_terms t;

	promise_terms_for(&km, &l, 950000, 1000000, true, &t);
	CHECK(t.rt_limit && t.cfs_rest && t.fair_server, "classic with a fair server: all three");
	promise_terms_for(&km, &l, 950000, 1000000, false, &t);
	CHECK(t.rt_limit && !t.cfs_rest && !t.fair_server, "no CFS task: RT only");
	l.regime = REGIME_FAIR_SERVER_ONLY;
	promise_terms_for(&km, &l, -1, 1000000, true, &t);
	CHECK(!t.rt_limit && t.fair_server, "fair server only");
	l.regime = REGIME_RUNTIME_SHARE;
	promise_terms_for(&km, &l, 950000, 1000000, true, &t);
	CHECK(!t.rt_limit && !t.cfs_rest, "borrowing: nothing per CPU");
	l.regime = REGIME_NO_LIMIT;
	promise_terms_for(&km, &l, -1, 1000000, true, &t);
	CHECK(!t.rt_limit && !t.fair_server && !t.cfs_rest, "no limit: nothing");
	CHECK(promise_metric("rt_budget_excess_us") && !promise_metric("cpu_share"), "promise metrics");
}

/* A span neither task ran is the machine's (an emulator's stall): measured, to excuse it. */
TEST(promise_stall_is_where_neither_ran)
{
	struct outcome o;

	memset(&sched, 0, sizeof(sched));
	sched.end_ns = 2000 * MS;
	runs(&sched, 0, 950 * MS, RT);
	runs(&sched, 950 * MS, 970 * MS, CFS);
	runs(&sched, 970 * MS, 976 * MS, NOBODY);
	runs(&sched, 976 * MS, 1000 * MS, CFS);
	runs(&sched, 1000 * MS, 1950 * MS, RT);
	runs(&sched, 1950 * MS, 2000 * MS, CFS);
	judge(&sched, 950000, 1000000, true, false, &o);
	CHECK(fabs(o.p.stall_max_us - 6000) < 1, "stall %.0f us", o.p.stall_max_us);
	CHECK(fabs(o.p.cfs_wait_max_us - 950000) < 1, "CFS waited the RT runs: %.0f us", o.p.cfs_wait_max_us);
	CHECK(o.p.cfs_period_min_us >= 44000 - 1, "CFS got its rest less the stall: %.0f", o.p.cfs_period_min_us);
}
