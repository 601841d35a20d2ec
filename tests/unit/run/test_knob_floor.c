// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deadline floor in the knob planner: the kernel refuses (EBUSY) a sysctl write that sets
 * the global ratio below the deadline bandwidth already admitted, on 6.12+ the fair server's.
 */
#include "dl_floor.h"
#include "knob_explain.h"
#include "knob_plan.h"
#include "plan_replay.h"
#include "sysinfo.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <inttypes.h>
#include <string.h>

static const struct dl_floor no_floor = { .period_us = 1000000, .source = "no fair server" };

static struct knobs policy_state(int64_t runtime, int64_t period, bool has_cgroup)
{
	return has_cgroup ? make_knobs(runtime, period, runtime, period, true) : make_knobs(runtime, period, 0, 0, false);
}

TEST(dl_floor_compares_like_the_kernel)
{
	const struct dl_floor *fs = &fair_server_default;

	/* to_ratio(1 s, 50 ms) = 52428.8, truncated. */
	CHECK(dl_floor_ratio(fs) == 52428, "fair server ratio %" PRIu64, dl_floor_ratio(fs));
	CHECK(dl_floor_ratio(&no_floor) == 0, "no floor ratio %" PRIu64, dl_floor_ratio(&no_floor));
	CHECK(dl_floor_ratio(NULL) == 0, "NULL floor ratio %" PRIu64, dl_floor_ratio(NULL));
	/* Equal is accepted (the kernel refuses new_bw * cpus < total_bw), one unit below is not. */
	CHECK(dl_floor_allows(fs, 50000, 1000000), "50000/1000000 refused");
	CHECK(dl_floor_allows(fs, 1000, 20000), "1000/20000 (the same fixed point) refused");
	CHECK(!dl_floor_allows(fs, 49999, 1000000), "49999/1000000 accepted");
	CHECK(!dl_floor_allows(fs, 45000, 1000000), "45000/1000000 (4.5%%) accepted");
	CHECK(dl_floor_allows(fs, -1, 1000000) && dl_floor_allows(fs, -1, 1), "-1 refused");
	CHECK(dl_floor_allows(&no_floor, 1, 1000000), "no floor refused 1/1000000");

	/* The state rule names the floor. */
	{
		struct knobs k = make_knobs(45000, 1000000, 45000, 1000000, true);
		const char *why = knobs_invalid_reason(&k, fs);

		CHECK(why && strstr(why, "deadline"), "45000/1000000: '%s'", why ? why : "(null)");
		CHECK(!knobs_invalid_reason(&k, &no_floor), "45000/1000000 refused without a floor");
		k = make_knobs(-1, 1000000, 45000, 1000000, true);
		CHECK(!knobs_invalid_reason(&k, fs), "a cgroup below the floor was refused: no floor applies to it");
	}
}

TEST(dl_floor_from_the_kernel_model)
{
	struct kernel_facts facts = { .major = 6, .minor = 18, .rt_group_sched = 1, .hz = 250 };
	struct kernel_model model;
	struct dl_floor floor;
	char text[200];

	facts.fair_server_runtime_ns = facts.fair_server_period_ns = -1;
	kernel_model_predict(&facts, &model);
	floor = dl_floor_from_model(&model);
	CHECK(floor.runtime_us == 50000 && floor.period_us == 1000000, "6.18 default %" PRId64 "/%" PRId64,
	      floor.runtime_us, floor.period_us);
	dl_floor_describe(&floor, text, sizeof(text));
	CHECK(strstr(text, "fair server 50000/1000000 = 0.050 per CPU") && strstr(text, "default"), "'%s'", text);

	/* debugfs readable: its values rule, in ns. */
	facts.fair_server_readable = true;
	facts.fair_server_runtime_ns = 100000000;
	facts.fair_server_period_ns = 1000000000;
	kernel_model_predict(&facts, &model);
	floor = dl_floor_from_model(&model);
	CHECK(floor.runtime_us == 100000 && floor.period_us == 1000000 && strstr(floor.source, "debugfs"),
	      "debugfs %" PRId64 "/%" PRId64 " (%s)", floor.runtime_us, floor.period_us, floor.source);
	CHECK(!dl_floor_allows(&floor, 95000, 1000000), "9.5%% accepted under a 10%% fair server");

	/* debugfs shows the fair server off: nothing admitted. */
	facts.fair_server_runtime_ns = 0;
	kernel_model_predict(&facts, &model);
	floor = dl_floor_from_model(&model);
	CHECK(dl_floor_ratio(&floor) == 0, "fair server off: ratio %" PRIu64, dl_floor_ratio(&floor));

	/* Before 6.12 there is no fair server. */
	facts = (struct kernel_facts){ .major = 6, .minor = 1, .fair_server_runtime_ns = -1,
				       .fair_server_period_ns = -1 };
	kernel_model_predict(&facts, &model);
	floor = dl_floor_from_model(&model);
	CHECK(dl_floor_ratio(&floor) == 0, "6.1: ratio %" PRIu64, dl_floor_ratio(&floor));
	dl_floor_describe(&floor, text, sizeof(text));
	CHECK(strstr(text, "none"), "6.1: '%s'", text);
}

/*
 * From the default to 45000/50000: runtime 45000 first is 4.5% < 5% (EBUSY), the period first
 * leaves runtime > period (EINVAL). Only a detour through -1 works, both ways.
 */
TEST(knob_plan_45000_50000_through_minus_one)
{
	const struct dl_floor *fs = &fair_server_default;

	for (int cg = 0; cg <= 1; cg++) {
		struct knobs from = policy_state(950000, 1000000, cg), to = policy_state(45000, 50000, cg);
		struct knobs step = from;
		struct knob_plan plan, back;

		step.value[KNOB_SYSCTL_RUNTIME] = 45000;
		CHECK(knobs_invalid_reason(&step, fs), "runtime 45000 first accepted");
		step = from;
		step.value[KNOB_SYSCTL_PERIOD] = 50000;
		CHECK(knobs_invalid_reason(&step, fs), "period 50000 first accepted");

		CHECK(knob_plan_make(&from, &to, fs, &plan), "cgroup %d: no plan to 45000/50000", cg);
		CHECK(plan.count == (cg ? 5 : 3), "cgroup %d: %d steps", cg, plan.count);
		CHECK(plan.step[0].knob == KNOB_SYSCTL_RUNTIME && plan.step[0].value == -1,
		      "cgroup %d: step 1 is %s = %" PRId64, cg, knob_name(plan.step[0].knob), plan.step[0].value);
		CHECK(plan_replay("default -> 45000/50000", &from, &to, fs, &plan) == 0, "replay");
		CHECK(knob_plan_make(&to, &from, fs, &back), "cgroup %d: no plan back", cg);
		CHECK(back.count == (cg ? 5 : 3), "cgroup %d: %d steps back", cg, back.count);
		CHECK(back.step[0].knob == KNOB_SYSCTL_RUNTIME && back.step[0].value == -1,
		      "cgroup %d: back step 1 is %s = %" PRId64, cg, knob_name(back.step[0].knob), back.step[0].value);
		CHECK(plan_replay("45000/50000 -> default", &to, &from, fs, &back) == 0, "replay back");
		/* Without a floor no detour is needed on the way there. */
		CHECK(knob_plan_make(&from, &to, &no_floor, &plan) && plan.count == (cg ? 4 : 2),
		      "cgroup %d, no floor: %d steps", cg, plan.count);
	}
}

/* The grid: runtimes -1, 1000 and ratios 0.06..1.0, periods 10 ms .. 2 s. */
#define GRID_MAX 96

static int grid_policies(int64_t runtime[GRID_MAX], int64_t period[GRID_MAX])
{
	static const int64_t periods[] = { 10000, 20000, 50000, 100000, 200000, 500000, 1000000, 2000000 };
	static const int per_mille[] = { 60, 100, 250, 500, 750, 900, 950, 990, 1000 };
	int n = 0;

	for (size_t p = 0; p < sizeof(periods) / sizeof(periods[0]); p++) {
		runtime[n] = -1, period[n++] = periods[p];
		runtime[n] = 1000, period[n++] = periods[p];
		for (size_t r = 0; r < sizeof(per_mille) / sizeof(per_mille[0]); r++)
			runtime[n] = periods[p] * per_mille[r] / 1000, period[n++] = periods[p];
	}
	return n;
}

/* Below the floor as plain fractions, independent of the fixed point. */
static bool below_fair_server(int64_t runtime, int64_t period)
{
	return runtime >= 0 && runtime * fair_server_default.period_us < fair_server_default.runtime_us * period;
}

static void grid_every_pair(const struct dl_floor *floor, bool has_cgroup)
{
	int64_t runtime[GRID_MAX], period[GRID_MAX];
	int n = grid_policies(runtime, period), plans = 0, refused = 0, failures = 0;

	for (int a = 0; a < n && failures < 10; a++) {
		struct knobs A = policy_state(runtime[a], period[a], has_cgroup);

		if (knobs_invalid_reason(&A, floor))
			continue;
		for (int b = 0; b < n && failures < 10; b++) {
			struct knobs B = policy_state(runtime[b], period[b], has_cgroup);
			bool below = floor && below_fair_server(runtime[b], period[b]);
			struct knob_plan plan;
			char label[160];

			snprintf(label, sizeof(label), "%s%s: %" PRId64 "/%" PRId64 " -> %" PRId64 "/%" PRId64,
				 floor ? "fair server" : "no floor", has_cgroup ? ", cgroup" : "", runtime[a], period[a],
				 runtime[b], period[b]);
			if (knob_plan_make(&A, &B, floor, &plan) == below) {
				CHECK(0, "%s: %s", label, below ? "planned below the floor" : "no plan");
				failures++;
				continue;
			}
			if (below) {
				refused++;
				continue;
			}
			plans++;
			failures += plan_replay(label, &A, &B, floor, &plan);
		}
	}
	CHECK(failures == 0, "%d failures", failures);
	/* 8 periods x 11 runtimes; with the floor, 1000 us is below 5% from a 50 ms period on. */
	CHECK(refused == (floor ? 6 * (n - 6) : 0), "%d refused targets", refused);
	CHECK(plans == (floor ? (n - 6) * (n - 6) : n * n), "%d plans", plans);
}

TEST(knob_plan_grid_every_policy_both_ways)
{
	int64_t runtime[GRID_MAX], period[GRID_MAX];
	int n = grid_policies(runtime, period);

	CHECK(n == 88, "grid of %d policies", n);
	for (int cg = 0; cg <= 1; cg++) {
		grid_every_pair(&fair_server_default, cg);
		grid_every_pair(NULL, cg);
	}
}

/* A failed write rolls back from wherever it stopped: every prefix of every plan plans back. */
TEST(knob_plan_grid_rollback_from_every_prefix)
{
	const struct dl_floor *fs = &fair_server_default;
	int64_t runtime[GRID_MAX], period[GRID_MAX];
	int n = grid_policies(runtime, period), failures = 0;
	struct knobs home = policy_state(950000, 1000000, true);

	for (int b = 0; b < n && failures < 10; b++) {
		struct knobs target = policy_state(runtime[b], period[b], true), state = home;
		struct knob_plan plan, back;

		if (!knob_plan_make(&home, &target, fs, &plan))
			continue;
		for (int i = 0; i < plan.count; i++) {
			state.value[plan.step[i].knob] = plan.step[i].value;
			if (!knob_plan_make(&state, &home, fs, &back) || plan_replay("rollback", &state, &home, fs, &back)) {
				CHECK(0, "-> %" PRId64 "/%" PRId64 ": no way back after step %d", runtime[b], period[b], i + 1);
				failures++;
			}
		}
	}
}

TEST(knob_plan_refusal_names_the_constraint)
{
	const struct dl_floor *fs = &fair_server_default;
	struct knobs from = policy_state(950000, 1000000, true), to = policy_state(40000, 1000000, true);
	struct knob_plan plan;
	char why[400];

	CHECK(!knob_plan_make(&from, &to, fs, &plan), "40000/1000000 planned under the fair server");
	knob_plan_refusal(&from, &to, fs, why, sizeof(why));
	CHECK(strstr(why, "policy 40000/1000000: ratio 0.040 is below the deadline bandwidth the kernel has admitted "
			  "(fair server 50000/1000000 = 0.050 per CPU") != NULL,
	      "refusal: '%s'", why);
	CHECK(strstr(why, "EBUSY") != NULL, "refusal without the errno: '%s'", why);
	CHECK(dl_floor_policy_refused(fs, 40000, 1000000, why, sizeof(why)), "40000/1000000 not refused");
	CHECK(!dl_floor_policy_refused(fs, 45000, 50000, why, sizeof(why)), "45000/50000 refused: %s", why);

	/* Other rules keep their own words. */
	to = policy_state(1200000, 1000000, true);
	knob_plan_refusal(&from, &to, fs, why, sizeof(why));
	CHECK(strstr(why, "runtime exceeds period") != NULL, "runtime > period: '%s'", why);
	to = make_knobs(500000, 1000000, 950000, 1000000, true);
	knob_plan_refusal(&from, &to, fs, why, sizeof(why));
	CHECK(strstr(why, "root cgroup ratio above the global ratio") != NULL, "cgroup above global: '%s'", why);
	to = policy_state(500000, 1000000, false);
	knob_plan_refusal(&from, &to, fs, why, sizeof(why));
	CHECK(strstr(why, "cgroup") != NULL, "cgroup presence: '%s'", why);
}

TEST(knob_step_why_says_what_holds)
{
	const struct dl_floor *fs = &fair_server_default;
	struct knobs k = make_knobs(-1, 1000000, 950000, 1000000, true);
	char why[300];

	knob_step_why(&k, KNOB_SYSCTL_RUNTIME, fs, why, sizeof(why));
	CHECK(strstr(why, "no global limit") != NULL, "-1: '%s'", why);
	k.value[KNOB_SYSCTL_PERIOD] = 50000;
	knob_step_why(&k, KNOB_SYSCTL_PERIOD, fs, why, sizeof(why));
	CHECK(strstr(why, "-1") != NULL, "period under -1: '%s'", why);
	k = make_knobs(45000, 50000, 45000, 50000, true);
	knob_step_why(&k, KNOB_SYSCTL_RUNTIME, fs, why, sizeof(why));
	CHECK(strstr(why, "runtime 45000 <= period 50000") && strstr(why, "0.900 >= deadline floor 0.050") &&
		      strstr(why, "root cgroup ratio 0.900"),
	      "45000/50000: '%s'", why);
	knob_step_why(&k, KNOB_CGROUP_PERIOD, fs, why, sizeof(why));
	CHECK(strstr(why, "cgroup runtime 45000 <= period 50000; cgroup ratio 0.900 <= global ratio 0.900") != NULL,
	      "cgroup: '%s'", why);
}
