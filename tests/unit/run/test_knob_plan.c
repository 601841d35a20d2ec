// SPDX-License-Identifier: GPL-2.0-only
/* knob_plan: the kernel's ratio, the validity rules and write orders that keep every step valid. */
#include "knob_plan.h"
#include "unit.h"
#include "unit_fixtures.h"
#include "plan_replay.h"

#include <inttypes.h>
#include <string.h>

/* The floor every test here plans under: a 6.12+ kernel's fair server, or none. */
static const struct dl_floor *floor_in_use = &fair_server_default;

static int index_of(const struct knob_plan *plan, enum knob_id id)
{
	for (int i = 0; i < plan->count; i++)
		if (plan->step[i].knob == id)
			return i;
	return -1;
}

TEST(knob_ratio_fixed_point)
{
	CHECK(knob_ratio(950000, 1000000) == (950000ull << 20) / 1000000,
	      "950000/1000000: %" PRIu64, knob_ratio(950000, 1000000));
	CHECK(knob_ratio(950000, 1000000) == 996147, "950000/1000000 = %" PRIu64 ", want 996147",
	      knob_ratio(950000, 1000000));
	CHECK(knob_ratio(500000, 1000000) == 1u << 19, "half: %" PRIu64, knob_ratio(500000, 1000000));
	CHECK(knob_ratio(1000000, 1000000) == 1u << 20, "full: %" PRIu64, knob_ratio(1000000, 1000000));
	CHECK(knob_ratio(-1, 1000000) == 1u << 20, "-1: %" PRIu64, knob_ratio(-1, 1000000));
	CHECK(knob_ratio(-1, 1) == 1u << 20, "-1 over period 1: %" PRIu64, knob_ratio(-1, 1));
	CHECK(knob_ratio(0, 1000000) == 0, "0: %" PRIu64, knob_ratio(0, 1000000));
	/* Truncation, not rounding: 1/3 of 2^20 = 349525.33. */
	CHECK(knob_ratio(1, 3) == 349525, "1/3: %" PRIu64, knob_ratio(1, 3));
	CHECK(knob_ratio(2, 3) == 699050, "2/3: %" PRIu64, knob_ratio(2, 3));
	/* Same ratio at different scales gives the same fixed point when it is exact. */
	CHECK(knob_ratio(190000, 200000) == knob_ratio(950000, 1000000), "190000/200000 %" PRIu64,
	      knob_ratio(190000, 200000));
	CHECK(knob_ratio(9500000, 10000000) == knob_ratio(950000, 1000000), "ten-second %" PRIu64,
	      knob_ratio(9500000, 10000000));
	/* The largest sysctl period does not overflow the shift. */
	CHECK(knob_ratio(2147483647, 2147483647) == 1u << 20, "INT_MAX/INT_MAX: %" PRIu64,
	      knob_ratio(2147483647, 2147483647));
	/* Invalid periods never look acceptable. */
	CHECK(knob_ratio(1, 0) > 1u << 20, "period 0: %" PRIu64, knob_ratio(1, 0));
}

TEST(knob_invalid_reason_rules)
{
	struct knobs k;

	k = make_knobs(950000, 1000000, 950000, 1000000, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "default invalid: %s", knobs_invalid_reason(&k, floor_in_use));
	k = make_knobs(-1, 1000000, -1, 1000000, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "unlimited invalid: %s", knobs_invalid_reason(&k, floor_in_use));
	k = make_knobs(-1, 1000000, 950000, 1000000, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "global -1, cgroup default invalid: %s", knobs_invalid_reason(&k, floor_in_use));
	k = make_knobs(1000000, 1000000, -1, 1000000, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "global full, cgroup -1 invalid: %s", knobs_invalid_reason(&k, floor_in_use));
	k = make_knobs(950000, 1000000, 190000, 200000, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "equal ratio at other period invalid: %s", knobs_invalid_reason(&k, floor_in_use));

	/* Each pair: period positive, runtime -1 or 0..period. */
	k = make_knobs(950000, 0, 950000, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "sysctl period 0 accepted");
	k = make_knobs(950000, -1000000, 950000, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "negative sysctl period accepted");
	k = make_knobs(-2, 1000000, 950000, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "sysctl runtime -2 accepted");
	k = make_knobs(1000001, 1000000, 950000, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "sysctl runtime > period accepted");
	k = make_knobs(950000, 1000000, 950000, 0, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup period 0 accepted");
	k = make_knobs(950000, 1000000, -2, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup runtime -2 accepted");
	k = make_knobs(-1, 1000000, 1000001, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup runtime > period accepted");
	/* The root cgroup may not forbid RT entirely. */
	k = make_knobs(950000, 1000000, 0, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup runtime 0 accepted");
	/* The root cgroup's ratio may not exceed the global one; -1 counts as ratio 1. */
	k = make_knobs(500000, 1000000, 950000, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup ratio above global accepted");
	k = make_knobs(950000, 1000000, -1, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup -1 under a global limit accepted");
	k = make_knobs(950000, 1000000, 190001, 200000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup ratio a little above global accepted");
	/* The comparison is exact in fixed point: one unit above is refused, equal is fine. */
	CHECK(knob_ratio(500001, 1000000) == knob_ratio(500000, 1000000) + 1, "test premise: %" PRIu64,
	      knob_ratio(500001, 1000000));
	k = make_knobs(500000, 1000000, 500001, 1000000, true);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "cgroup ratio one fixed-point unit above global accepted");
	k = make_knobs(500000, 1000000, 500000, 1000000, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "equal ratios refused: %s", knobs_invalid_reason(&k, floor_in_use));
	/* Truncation can make different fractions equal: 1/3 and 333333/1000000 are not, 2/6 is. */
	k = make_knobs(1, 3, 2, 6, true);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "1/3 vs 2/6 refused: %s", knobs_invalid_reason(&k, floor_in_use));
	/* Distinct reasons for distinct rules. */
	{
		struct knobs a = make_knobs(950000, 1000000, 0, 1000000, true);
		struct knobs b = make_knobs(500000, 1000000, 950000, 1000000, true);
		const char *ra = knobs_invalid_reason(&a, floor_in_use), *rb = knobs_invalid_reason(&b, floor_in_use);

		CHECK(ra && rb && strcmp(ra, rb), "runtime-0 and ratio rules give the same reason '%s'",
		      ra ? ra : "(null)");
	}

	/* Without the cgroup only the sysctl pair counts, whatever the cgroup slots hold. */
	k = make_knobs(950000, 1000000, 0, 0, false);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "no cgroup, default invalid: %s", knobs_invalid_reason(&k, floor_in_use));
	k = make_knobs(500000, 1000000, 950000, 1000000, false);
	CHECK(!knobs_invalid_reason(&k, floor_in_use), "no cgroup: the cgroup slots were judged: %s", knobs_invalid_reason(&k, floor_in_use));
	k = make_knobs(1000001, 1000000, 0, 0, false);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "no cgroup: runtime > period accepted");
	k = make_knobs(-1, 0, 0, 0, false);
	CHECK(knobs_invalid_reason(&k, floor_in_use), "no cgroup: period 0 accepted");
}

TEST(knob_plan_default_to_half_cgroup_first)
{
	struct knobs from = make_knobs(950000, 1000000, 950000, 1000000, true);
	struct knobs to = make_knobs(500000, 1000000, 500000, 1000000, true);
	struct knob_plan plan;
	int cg, sys;

	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan default -> half");
	CHECK(plan.count == 2, "default -> half: %d steps, want 2", plan.count);
	cg = index_of(&plan, KNOB_CGROUP_RUNTIME);
	sys = index_of(&plan, KNOB_SYSCTL_RUNTIME);
	CHECK(cg >= 0 && sys >= 0 && cg < sys, "cgroup runtime (step %d) must precede sysctl runtime (step %d)",
	      cg, sys);
	CHECK(plan_replay("default -> half", &from, &to, floor_in_use, &plan) == 0, "replay failed");

	/* And back: the sysctl must rise first. */
	CHECK(knob_plan_make(&to, &from, floor_in_use, &plan), "no plan half -> default");
	CHECK(plan.count == 2, "half -> default: %d steps, want 2", plan.count);
	cg = index_of(&plan, KNOB_CGROUP_RUNTIME);
	sys = index_of(&plan, KNOB_SYSCTL_RUNTIME);
	CHECK(cg >= 0 && sys >= 0 && sys < cg, "sysctl runtime (step %d) must precede cgroup runtime (step %d)",
	      sys, cg);
	CHECK(plan_replay("half -> default", &to, &from, floor_in_use, &plan) == 0, "replay failed");
}

TEST(knob_plan_short_period_four_writes)
{
	struct knobs from = make_knobs(950000, 1000000, 950000, 1000000, true);
	struct knobs to = make_knobs(190000, 200000, 190000, 200000, true);
	struct knob_plan plan;

	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan default -> 190000/200000");
	CHECK(plan.count == 4, "default -> 190000/200000: %d steps, want 4", plan.count);
	CHECK(plan_replay("default -> 190000/200000", &from, &to, floor_in_use, &plan) == 0, "replay failed");
	/* Every knob is written exactly once (the fair server is not in these states). */
	for (int id = 0; id < KNOB_FAIR_SERVER_RUNTIME; id++)
		CHECK(index_of(&plan, id) >= 0, "%s not written", knob_name(id));

	/* The restore direction. */
	CHECK(knob_plan_make(&to, &from, floor_in_use, &plan), "no plan 190000/200000 -> default");
	CHECK(plan.count == 4, "190000/200000 -> default: %d steps, want 4", plan.count);
	CHECK(plan_replay("190000/200000 -> default", &to, &from, floor_in_use, &plan) == 0, "replay failed");

	/* To a long period and back. */
	to = make_knobs(9500000, 10000000, 9500000, 10000000, true);
	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan default -> ten-second-window");
	CHECK(plan_replay("default -> ten-second", &from, &to, floor_in_use, &plan) == 0, "replay failed");
	CHECK(knob_plan_make(&to, &from, floor_in_use, &plan), "no plan ten-second-window -> default");
	CHECK(plan_replay("ten-second -> default", &to, &from, floor_in_use, &plan) == 0, "replay failed");
}

TEST(knob_plan_unlimited_and_back)
{
	struct knobs from = make_knobs(950000, 1000000, 950000, 1000000, true);
	struct knobs to = make_knobs(-1, 1000000, -1, 1000000, true);
	struct knob_plan plan;

	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan default -> unlimited");
	CHECK(plan.count == 2, "default -> unlimited: %d steps, want 2", plan.count);
	CHECK(plan.count >= 1 && plan.step[0].knob == KNOB_SYSCTL_RUNTIME && plan.step[0].value == -1,
	      "the sysctl runtime must go to -1 first (step 0 is %s = %" PRId64 ")",
	      knob_name(plan.step[0].knob), plan.step[0].value);
	CHECK(plan_replay("default -> unlimited", &from, &to, floor_in_use, &plan) == 0, "replay failed");

	CHECK(knob_plan_make(&to, &from, floor_in_use, &plan), "no plan unlimited -> default");
	CHECK(plan.count == 2, "unlimited -> default: %d steps, want 2", plan.count);
	CHECK(plan.count >= 1 && plan.step[0].knob == KNOB_CGROUP_RUNTIME && plan.step[0].value == 950000,
	      "the cgroup runtime must come down first (step 0 is %s = %" PRId64 ")",
	      knob_name(plan.step[0].knob), plan.step[0].value);
	CHECK(plan_replay("unlimited -> default", &to, &from, floor_in_use, &plan) == 0, "replay failed");

	/* knobs_target builds the same states. */
	{
		struct knobs t = knobs_target(&from, -1, 1000000);

		CHECK(knobs_equal(&t, &to), "knobs_target(-1) differs");
		t = knobs_target(&from, 500000, 1000000);
		CHECK(t.has_cgroup && t.value[KNOB_CGROUP_RUNTIME] == 500000 && t.value[KNOB_SYSCTL_RUNTIME] == 500000,
		      "knobs_target(half) did not set both pairs");
	}
}

TEST(knob_plan_no_change_and_invalid_targets)
{
	struct knobs from = make_knobs(950000, 1000000, 950000, 1000000, true);
	struct knobs bad;
	struct knob_plan plan;

	CHECK(knob_plan_make(&from, &from, floor_in_use, &plan), "no plan for no change");
	CHECK(plan.count == 0, "no change: %d steps", plan.count);

	bad = make_knobs(1000001, 1000000, 950000, 1000000, true);
	CHECK(!knob_plan_make(&from, &bad, floor_in_use, &plan), "runtime > period target accepted");
	bad = make_knobs(950000, 1000000, 0, 1000000, true);
	CHECK(!knob_plan_make(&from, &bad, floor_in_use, &plan), "cgroup runtime 0 target accepted");
	bad = make_knobs(500000, 1000000, 950000, 1000000, true);
	CHECK(!knob_plan_make(&from, &bad, floor_in_use, &plan), "cgroup above global target accepted");
	bad = make_knobs(950000, 0, 950000, 1000000, true);
	CHECK(!knob_plan_make(&from, &bad, floor_in_use, &plan), "period 0 target accepted");
	bad = make_knobs(-5, 1000000, -5, 1000000, true);
	CHECK(!knob_plan_make(&from, &bad, floor_in_use, &plan), "runtime -5 target accepted");
	/* The cgroup cannot appear or vanish. */
	bad = make_knobs(950000, 1000000, 0, 0, false);
	CHECK(!knob_plan_make(&from, &bad, floor_in_use, &plan), "cgroup presence change accepted");
}

TEST(knob_plan_without_cgroup)
{
	struct knobs from = make_knobs(950000, 1000000, 0, 0, false);
	struct knobs to;
	struct knob_plan plan;

	to = make_knobs(500000, 1000000, 0, 0, false);
	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan default -> half (no cgroup)");
	CHECK(plan.count == 1, "default -> half (no cgroup): %d steps, want 1", plan.count);
	CHECK(plan_replay("no cgroup: default -> half", &from, &to, floor_in_use, &plan) == 0, "replay failed");

	to = make_knobs(190000, 200000, 0, 0, false);
	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan default -> 190000/200000 (no cgroup)");
	CHECK(plan.count == 2, "default -> 190000/200000 (no cgroup): %d steps, want 2", plan.count);
	/* Runtime must come down before the period shrinks below it. */
	CHECK(index_of(&plan, KNOB_SYSCTL_RUNTIME) == 0, "runtime not written first");
	CHECK(plan_replay("no cgroup: default -> 190000/200000", &from, &to, floor_in_use, &plan) == 0, "replay failed");
	CHECK(knob_plan_make(&to, &from, floor_in_use, &plan), "no plan back (no cgroup)");
	CHECK(index_of(&plan, KNOB_SYSCTL_PERIOD) == 0, "period not written first on the way back");
	CHECK(plan_replay("no cgroup: 190000/200000 -> default", &to, &from, floor_in_use, &plan) == 0, "replay failed");

	to = make_knobs(-1, 1000000, 0, 0, false);
	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan -> unlimited (no cgroup)");
	CHECK(plan.count == 1, "-> unlimited (no cgroup): %d steps", plan.count);
	CHECK(plan_replay("no cgroup: -> unlimited", &from, &to, floor_in_use, &plan) == 0, "replay failed");

	/* Stale values in the unused cgroup slots must not matter. */
	from = make_knobs(950000, 1000000, 7, 3, false);
	to = make_knobs(500000, 1000000, 1, 2, false);
	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "cgroup slots judged on a machine without the cgroup");
	CHECK(plan_replay("no cgroup: stale slots", &from, &to, floor_in_use, &plan) == 0, "replay failed");

	to = make_knobs(2000000, 1000000, 0, 0, false);
	CHECK(!knob_plan_make(&from, &to, floor_in_use, &plan), "invalid target accepted (no cgroup)");
}

/* A small deterministic LCG (Numerical Recipes constants), so failures reproduce. */
static uint64_t lcg_state;

static uint64_t lcg_next(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return lcg_state >> 33;
}

static int64_t rand_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(lcg_next() % (uint64_t)(hi - lo + 1));
}

static int64_t rand_period(void)
{
	/* Mix round values (shared divisors, equal ratios) with arbitrary ones. */
	static const int64_t round_periods[] = { 1000, 10000, 100000, 200000, 1000000, 10000000 };

	if (lcg_next() % 2)
		return round_periods[lcg_next() % (sizeof(round_periods) / sizeof(round_periods[0]))];
	return rand_range(1000, 10000000);
}

static int64_t rand_runtime(int64_t period)
{
	switch (lcg_next() % 6) {
	case 0:
		return -1;
	case 1:
		return period;
	case 2:
		return period * 95 / 100;
	default:
		return rand_range(1, period);
	}
}

/* A random valid state under the floor; with a cgroup, its ratio at most the global one. */
static struct knobs rand_state(bool has_cgroup, bool policy_shaped)
{
	for (;;) {
		int64_t sp = rand_period(), sr = rand_runtime(sp);
		int64_t cp = rand_period(), cr;
		struct knobs k;

		if (!has_cgroup) {
			k = make_knobs(sr, sp, 0, 0, false);
			if (!knobs_invalid_reason(&k, floor_in_use))
				return k;
			continue;
		}
		if (policy_shaped || lcg_next() % 3 == 0) {
			/* What knobs_target writes: the same pair in both. */
			cp = sp;
			cr = sr;
		} else {
			cr = rand_runtime(cp);
		}
		k = make_knobs(sr, sp, cr, cp, true);
		if (!knobs_invalid_reason(&k, floor_in_use))
			return k;
	}
}

/*
 * An independent oracle: tries every order of the writes of the knobs that differ (each written
 * once, with its target value) and says whether one keeps every state valid.
 */
static int knobs_differing(const struct knobs *from, const struct knobs *to, int ids[KNOB_COUNT])
{
	int n = 0;

	for (int id = 0; id < (from->has_cgroup ? KNOB_COUNT : KNOB_CGROUP_RUNTIME); id++)
		if (from->value[id] != to->value[id])
			ids[n++] = id;
	return n;
}

static bool some_order_works(const struct knobs *from, const struct knobs *to)
{
	int ids[KNOB_COUNT], n = knobs_differing(from, to, ids);
	int perm[KNOB_COUNT];

	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (;;) {
		struct knobs state = *from;
		bool ok = true;

		for (int i = 0; i < n && ok; i++) {
			state.value[ids[perm[i]]] = to->value[ids[perm[i]]];
			ok = !knobs_invalid_reason(&state, floor_in_use);
		}
		if (ok)
			return true;
		/* Next permutation (lexicographic). */
		{
			int i = n - 2, j = n - 1, t;

			while (i >= 0 && perm[i] > perm[i + 1])
				i--;
			if (i < 0)
				return false;
			while (perm[j] < perm[i])
				j--;
			t = perm[i], perm[i] = perm[j], perm[j] = t;
			for (int a = i + 1, b = n - 1; a < b; a++, b--)
				t = perm[a], perm[a] = perm[b], perm[b] = t;
		}
	}
}

/*
 * Random (from, to) pairs. Policy-shaped pairs (both pairs equal, as knobs_target writes) must
 * always get a plan. General pairs must get one whenever some order of the target writes works,
 * and with the detour through sysctl runtime -1 every valid pair gets one.
 */
static void property_run(bool has_cgroup, bool policy_shaped, int pairs)
{
	int no_plan = 0, bad_plans = 0, wrong_answer = 0, planned = 0;

	for (int i = 0; i < pairs; i++) {
		struct knobs from = rand_state(has_cgroup, policy_shaped);
		struct knobs to = rand_state(has_cgroup, policy_shaped);
		struct knob_plan plan;
		bool found, oracle;
		char label[200];

		snprintf(label, sizeof(label),
			 "case %d: %" PRId64 "/%" PRId64 " cg %" PRId64 "/%" PRId64 " -> %" PRId64 "/%" PRId64
			 " cg %" PRId64 "/%" PRId64,
			 i, from.value[0], from.value[1], from.value[2], from.value[3], to.value[0], to.value[1],
			 to.value[2], to.value[3]);
		found = knob_plan_make(&from, &to, floor_in_use, &plan);
		oracle = some_order_works(&from, &to);
		if (oracle && !found && wrong_answer++ < 5)
			CHECK(0, "%s: knob_plan_make says %d, trying every order says %d", label, found, oracle);
		/* Shortest: where writing each differing knob once works, the plan does just that. */
		if (oracle && found && plan.count != knobs_differing(&from, &to, (int[KNOB_COUNT]){ 0 }) &&
		    wrong_answer++ < 5)
			CHECK(0, "%s: %d steps where one write per differing knob works", label, plan.count);
		if (!found) {
			if (no_plan++ < 5)
				CHECK(0, "%s: no plan found", label);
			continue;
		}
		planned++;
		if (plan_replay(label, &from, &to, floor_in_use, &plan) && bad_plans++ > 5)
			break;
	}
	CHECK(wrong_answer == 0 && bad_plans == 0 && no_plan == 0,
	      "%s%s: %d pairs without a plan, %d bad plans, %d disagree with the oracle",
	      has_cgroup ? "cgroup" : "no cgroup", policy_shaped ? ", policy-shaped" : "", no_plan,
	      bad_plans, wrong_answer);
	/* The generator must actually exercise the planner. */
	CHECK(planned > pairs / 2, "only %d of %d pairs were planned", planned, pairs);
}

TEST(knob_plan_property_policy_pairs)
{
	lcg_state = 20261203;
	property_run(true, true, 20000);
}

TEST(knob_plan_property_general_pairs)
{
	lcg_state = 7;
	property_run(true, false, 20000);
}

TEST(knob_plan_property_no_cgroup)
{
	lcg_state = 42;
	property_run(false, false, 5000);
}

/* Before 6.12 nothing is admitted: the same properties with no floor at all. */
TEST(knob_plan_property_no_floor)
{
	floor_in_use = NULL;
	lcg_state = 11;
	property_run(true, true, 5000);
	property_run(true, false, 5000);
	property_run(false, false, 2000);
	floor_in_use = &fair_server_default;
}

/* A failed apply rolls back from wherever it stopped: every prefix of a plan must plan back. */
TEST(knob_plan_rollback_from_every_prefix)
{
	static const int64_t pairs[][2] = {
		{ 950000, 1000000 }, { -1, 1000000 }, { 500000, 1000000 }, { 1000000, 1000000 },
		{ 9500000, 10000000 }, { 190000, 200000 }, { 1000, 1000 }, { -1, 200000 },
	};
	const int n = (int)(sizeof(pairs) / sizeof(pairs[0]));

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			struct knobs A = make_knobs(pairs[a][0], pairs[a][1], pairs[a][0], pairs[a][1], true);
			struct knobs B = make_knobs(pairs[b][0], pairs[b][1], pairs[b][0], pairs[b][1], true);
			struct knobs state = A;
			struct knob_plan plan, back;

			if (!knob_plan_make(&A, &B, floor_in_use, &plan)) {
				CHECK(0, "no plan %" PRId64 "/%" PRId64 " -> %" PRId64 "/%" PRId64, pairs[a][0],
				      pairs[a][1], pairs[b][0], pairs[b][1]);
				continue;
			}
			for (int i = 0; i < plan.count; i++) {
				state.value[plan.step[i].knob] = plan.step[i].value;
				CHECK(knob_plan_make(&state, &A, floor_in_use, &back) && plan_replay("rollback", &state, &A, floor_in_use, &back) == 0,
				      "%" PRId64 "/%" PRId64 " -> %" PRId64 "/%" PRId64 ": no rollback after step %d",
				      pairs[a][0], pairs[a][1], pairs[b][0], pairs[b][1], i);
			}
		}
}

/*
 * From sysctl 950000/1000000 with the root cgroup at 190000/200000 (equal ratio, other period)
 * to 190000/200000 in both, no order of the target writes works: the sysctl runtime first drops
 * the global ratio under the cgroup's, the period first leaves runtime > period. The detour
 * sysctl runtime -1, period 200000, runtime 190000 is valid at every step.
 */
TEST(knob_plan_needs_detour)
{
	struct knobs from = make_knobs(950000, 1000000, 190000, 200000, true);
	struct knobs to = make_knobs(190000, 200000, 190000, 200000, true);
	struct knob_plan plan;

	CHECK(knob_plan_make(&from, &to, floor_in_use, &plan), "no plan although a detour through -1 exists");
	if (plan.count)
		CHECK(plan_replay("detour", &from, &to, floor_in_use, &plan) == 0, "replay failed");
	CHECK(knob_plan_make(&to, &from, floor_in_use, &plan), "no plan back although a detour through -1 exists");
}
