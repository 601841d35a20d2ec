// SPDX-License-Identifier: GPL-2.0-only
/* The RT period timer's lateness: which late firings are the machine's, which the timer's own. */
#include "timer_late.h"
#include "unit.h"

#define MS 1000000ull
#define P (1000 * MS)
#define TICK (4 * MS)

TEST(timer_late_first_firing_late_is_excused)
{
	/* The window of a false alarm: the firing at 566.8 ms came 12 ms late, the next on time. */
	const uint64_t fire[] = { 578800000ull, 1566800000ull, 2566800000ull };
	struct timer_late t;

	timer_late_measure(fire, 3, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.firings == 3 && t.late_firings == 1, "firings %d late %d", t.firings, t.late_firings);
	CHECK(t.late_max_ns == 12 * MS && t.late_at_ns == fire[0], "late %llu at %llu", (unsigned long long)t.late_max_ns,
	      (unsigned long long)t.late_at_ns);
	CHECK(t.unexcused_max_ns == 0, "unexcused %llu", (unsigned long long)t.unexcused_max_ns);
}

TEST(timer_late_last_firing_late_is_excused)
{
	/* The other: due at 1943.16 ms, fired at 1957.0 after one on time. */
	const uint64_t fire[] = { 943160000ull, 1957000000ull };
	struct timer_late t;

	timer_late_measure(fire, 2, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.late_firings == 1 && t.late_max_ns == 13840000ull, "late %d %llu", t.late_firings,
	      (unsigned long long)t.late_max_ns);
}

TEST(timer_late_on_time_firings_excuse_nothing)
{
	const uint64_t fire[] = { 500 * MS, 1500 * MS + 3 * MS, 2500 * MS + 100000 };
	struct timer_late t;

	timer_late_measure(fire, 3, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.firings == 3 && t.late_firings == 0 && t.late_max_ns == 0 && t.unexcused_max_ns == 0,
	      "late %d %llu", t.late_firings, (unsigned long long)t.late_max_ns);
}

TEST(timer_late_a_drifting_or_wrong_period_timer_is_not_excused)
{
	/* A kernel forwarding by period + 5 ms: each firing later than the one before. */
	const uint64_t drift[] = { 100 * MS, 1105 * MS, 2110 * MS, 3115 * MS };
	/* One forwarding by two periods: on the grid, every other point. */
	const uint64_t two[] = { 100 * MS, 2100 * MS, 4100 * MS };
	/* One forwarding by period - 5 ms: the earlier firings look late. */
	const uint64_t short_period[] = { 100 * MS, 1095 * MS, 2090 * MS, 3085 * MS };
	struct timer_late t;

	timer_late_measure(drift, 4, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.late_max_ns == 0 && t.unexcused_max_ns == 15 * MS, "drift: excused %llu unexcused %llu",
	      (unsigned long long)t.late_max_ns, (unsigned long long)t.unexcused_max_ns);
	timer_late_measure(two, 3, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.late_max_ns == 0 && t.unexcused_max_ns == 0, "two periods: %llu", (unsigned long long)t.late_max_ns);
	timer_late_measure(short_period, 4, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.late_max_ns == 0, "short period: excused %llu", (unsigned long long)t.late_max_ns);
}

TEST(timer_late_needs_a_neighbour_on_the_grid)
{
	/* Two late in a row: neither is isolated. A lone firing has no grid to be late against. */
	const uint64_t pair[] = { 100 * MS, 1112 * MS, 2110 * MS, 3100 * MS };
	const uint64_t lone[] = { 112 * MS };
	struct timer_late t;

	timer_late_measure(pair, 4, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.late_max_ns == 0 && t.unexcused_max_ns == 12 * MS, "pair: excused %llu unexcused %llu",
	      (unsigned long long)t.late_max_ns, (unsigned long long)t.unexcused_max_ns);
	timer_late_measure(lone, 1, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.firings == 1 && t.late_max_ns == 0, "lone: %llu", (unsigned long long)t.late_max_ns);
	timer_late_measure(lone, 0, P, TICK, 0, UINT64_MAX, &t);
	CHECK(t.firings == 0, "none: %d", t.firings);
}

TEST(timer_late_counts_only_firings_inside_the_span)
{
	/* The late one fired before the window: it lays the grid, it is not the window's. */
	const uint64_t fire[] = { 112 * MS, 1100 * MS, 2100 * MS };
	struct timer_late t;

	timer_late_measure(fire, 3, P, TICK, 500 * MS, 3000 * MS, &t);
	CHECK(t.firings == 2 && t.late_max_ns == 0, "firings %d late %llu", t.firings, (unsigned long long)t.late_max_ns);
}

TEST(timer_late_a_stall_with_a_short_tail_is_excused)
{
	/*
	 * A 6.1 guest under QEMU (a false alarm of rt_budget_excess_us, 15.8 ms where 15.7 was
	 * allowed): the grid at -114.7 ms, then 16.2 ms late, 4.1 ms late, on time, on time.
	 */
	const uint64_t base = 200 * MS;
	const uint64_t fire[] = { base - 114675457ull, base + 901478478ull, base + 1889451652ull, base + 2885542684ull,
				  base + 3885781186ull };
	struct timer_late t;

	timer_late_measure(fire, 5, P, TICK, base, UINT64_MAX, &t);
	CHECK(t.firings == 4 && t.late_firings == 1 && t.late_at_ns == fire[1], "firings %d late %d", t.firings,
	      t.late_firings);
	CHECK(t.late_max_ns == 16153935ull, "excused %llu", (unsigned long long)t.late_max_ns);
	/* The tail itself has a neighbour four times as late: not excused, but not hidden either. */
	CHECK(t.unexcused_max_ns == 4127109ull, "unexcused %llu", (unsigned long long)t.unexcused_max_ns);
}
