// SPDX-License-Identifier: GPL-2.0-only
/* The tick's gaps on a busy CPU: which count as timer interrupts held back, which do not. */
#include "tick_late.h"
#include "unit.h"

#define MS 1000000ull
#define TICK (4 * MS)

/* Feeds firings every tick from `from` to `to` (exclusive). */
static void ticks(struct tick_late *t, uint64_t from, uint64_t to)
{
	for (uint64_t at = from; at < to; at += TICK)
		tick_late_firing(t, at);
}

TEST(tick_late_a_busy_cpu_on_time_holds_nothing_back)
{
	struct tick_late t;

	tick_late_init(&t, TICK, 0, 1000 * MS);
	tick_late_switch(&t, false);
	ticks(&t, 100 * MS, 900 * MS);
	CHECK(t.firings == 200 && t.busy_gaps == 199 && t.late_max_ns == 0, "firings %d gaps %d late %llu", t.firings,
	      t.busy_gaps, (unsigned long long)t.late_max_ns);
}

TEST(tick_late_an_interrupt_held_back_on_a_busy_cpu_is_measured)
{
	/* The emulator's 63.9 ms: the tick due at 504 ms came at 567.9 ms, the next on the grid. */
	struct tick_late t;

	tick_late_init(&t, TICK, 0, 1000 * MS);
	tick_late_switch(&t, false);
	ticks(&t, 100 * MS, 504 * MS);
	tick_late_firing(&t, 567900000ull);
	ticks(&t, 568 * MS, 900 * MS);
	CHECK(t.late_max_ns == 63900000ull && t.late_at_ns == 567900000ull, "late %llu at %llu",
	      (unsigned long long)t.late_max_ns, (unsigned long long)t.late_at_ns);
}

TEST(tick_late_an_idle_cpu_may_stop_its_tick)
{
	/* NOHZ: the CPU went idle, the tick stopped for 300 ms; switches to tasks between firings. */
	struct tick_late t;

	tick_late_init(&t, TICK, 0, 1000 * MS);
	tick_late_switch(&t, false);
	ticks(&t, 100 * MS, 200 * MS);
	tick_late_switch(&t, true);
	tick_late_switch(&t, false);
	ticks(&t, 500 * MS, 600 * MS);
	CHECK(t.late_max_ns == 0 && t.busy_gaps == 24 + 24, "a gap with the CPU idle counted: %llu (%d gaps)",
	      (unsigned long long)t.late_max_ns, t.busy_gaps);
	/* Idle at the firing that starts the gap: the same. */
	tick_late_init(&t, TICK, 0, 1000 * MS);
	tick_late_switch(&t, true);
	tick_late_firing(&t, 100 * MS);
	tick_late_switch(&t, false);
	tick_late_firing(&t, 400 * MS);
	CHECK(t.late_max_ns == 0 && t.busy_gaps == 0, "idle at the start: %llu", (unsigned long long)t.late_max_ns);
}

TEST(tick_late_before_any_switch_the_state_is_unknown)
{
	struct tick_late t;

	tick_late_init(&t, TICK, 0, 1000 * MS);
	tick_late_firing(&t, 100 * MS);
	tick_late_firing(&t, 400 * MS);
	CHECK(t.busy_gaps == 0 && t.late_max_ns == 0, "unknown state judged: %llu", (unsigned long long)t.late_max_ns);
	/* The first switch makes the gap after the next firing known. */
	tick_late_switch(&t, false);
	tick_late_firing(&t, 404 * MS);
	tick_late_firing(&t, 420 * MS);
	CHECK(t.busy_gaps == 1 && t.late_max_ns == 12 * MS, "gaps %d late %llu", t.busy_gaps,
	      (unsigned long long)t.late_max_ns);
}

TEST(tick_late_only_gaps_ending_in_the_window_count)
{
	struct tick_late t;

	tick_late_init(&t, TICK, 200 * MS, 600 * MS);
	tick_late_switch(&t, false);
	ticks(&t, 100 * MS, 150 * MS);
	ticks(&t, 180 * MS, 300 * MS);	/* 34 ms held back before the window; the last at 296 ms */
	tick_late_firing(&t, 350 * MS);	/* 50 ms inside it */
	ticks(&t, 352 * MS, 700 * MS);
	tick_late_firing(&t, 800 * MS);	/* 96 ms after it */
	CHECK(t.late_max_ns == 50 * MS && t.late_at_ns == 350 * MS, "late %llu", (unsigned long long)t.late_max_ns);
	CHECK(t.firings == 25 + 1 + 63, "firings %d", t.firings);
}

TEST(tick_late_counts_the_followed_tasks_ticks_as_the_rt_watchdog_does)
{
	/*
	 * The watchdog counts a tick handler run while the task runs, before the window too: an
	 * emulator's handler every 8 ms while the task ran 400 ms counts 50, not 100.
	 */
	struct tick_late t;

	tick_late_init(&t, 4 * MS, 200 * MS, 1000 * MS);
	tick_late_switch(&t, false);
	tick_late_follow(&t, false);
	ticks(&t, 0, 100 * MS);	/* another task: 25 not counted */
	tick_late_follow(&t, true);
	for (uint64_t at = 100 * MS; at < 500 * MS; at += 8 * MS)
		tick_late_firing(&t, at);
	tick_late_switch(&t, true);
	tick_late_follow(&t, false);
	ticks(&t, 500 * MS, 600 * MS);
	CHECK(t.followed_firings == 50, "followed firings %d", t.followed_firings);
}

/* Each gap held back 0.5 ms or more is listed, for the periods it falls in to be left out. */
TEST(tick_late_lists_each_gap_held_back_half_a_millisecond_or_more)
{
	struct tick_late t;

	tick_late_init(&t, TICK, 0, 1000 * MS);
	tick_late_switch(&t, false);
	ticks(&t, 100 * MS, 300 * MS);
	tick_late_firing(&t, 300400000ull);	/* 0.4 ms late: the interrupt's jitter, not listed */
	ticks(&t, 304 * MS, 600 * MS);
	tick_late_firing(&t, 606 * MS);		/* 6 ms late */
	ticks(&t, 608 * MS, 900 * MS);
	CHECK(t.listed == 1 && t.list[0].at_ns == 606 * MS && t.list[0].late_ns == 6 * MS,
	      "%d listed, the first at %llu late %llu", t.listed, (unsigned long long)t.list[0].at_ns,
	      (unsigned long long)t.list[0].late_ns);
	CHECK(!t.list_full, "room left");
}
