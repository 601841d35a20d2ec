// SPDX-License-Identifier: GPL-2.0-only
/*
 * knob_plan with the fair server as a knob: deadline admission couples it to the global ratio
 * from both sides, so lowering RT below the fair server's bandwidth goes through a fair-server
 * decrease first, and raising the fair server through an RT increase; every fair-server write
 * is made under runtime -1 (knob_write_allowed; plan_replay checks it).
 */
#include "knob_explain.h"
#include "knob_plan.h"
#include "plan_replay.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <inttypes.h>
#include <string.h>

#define MS_NS 1000000ll

/* A state with the root cgroup at the sysctl's pair and the fair server at fs_runtime/fs_period ns. */
static struct knobs with_fair_server(int64_t runtime, int64_t period, int64_t fs_runtime, int64_t fs_period)
{
	struct knobs k = make_knobs(runtime, period, runtime, period, true);

	k.has_fair_server = true;
	k.value[KNOB_FAIR_SERVER_RUNTIME] = fs_runtime;
	k.value[KNOB_FAIR_SERVER_PERIOD] = fs_period;
	return k;
}

static int step_of(const struct knob_plan *plan, enum knob_id id)
{
	for (int i = 0; i < plan->count; i++)
		if (plan->step[i].knob == id)
			return i;
	return -1;
}

/* The last write of a knob: the sysctl runtime's value after its detour through -1. */
static int last_step_of(const struct knob_plan *plan, enum knob_id id)
{
	for (int i = plan->count - 1; i >= 0; i--)
		if (plan->step[i].knob == id)
			return i;
	return -1;
}

/* Plans from -> to and back, replays both; false (after a failed check) when either is missing. */
static bool plan_there_and_back(const char *label, const struct knobs *from, const struct knobs *to,
				struct knob_plan *there, struct knob_plan *back)
{
	bool ok = knob_plan_make(from, to, &fair_server_default, there) &&
		  knob_plan_make(to, from, &fair_server_default, back);

	CHECK(ok, "%s: no plan there and back", label);
	if (!ok)
		return false;
	CHECK(plan_replay(label, from, to, &fair_server_default, there) == 0, "%s: replay there failed", label);
	CHECK(plan_replay(label, to, from, &fair_server_default, back) == 0, "%s: replay back failed", label);
	return true;
}

TEST(knob_fair_server_admission_rules)
{
	struct knobs k;

	k = with_fair_server(950000, 1000000, 50 * MS_NS, 1000 * MS_NS);
	CHECK(!knobs_invalid_reason(&k, &fair_server_default), "default refused: %s",
	      knobs_invalid_reason(&k, &fair_server_default));
	/* The state's own fair server is the floor, not the assumed one: 3% passes with the fair server off. */
	k = with_fair_server(30000, 1000000, 0, 1000 * MS_NS);
	CHECK(!knobs_invalid_reason(&k, &fair_server_default), "3%% with the fair server off refused: %s",
	      knobs_invalid_reason(&k, &fair_server_default));
	k = with_fair_server(30000, 1000000, 50 * MS_NS, 1000 * MS_NS);
	CHECK(knobs_invalid_reason(&k, &fair_server_default) &&
		      strstr(knobs_invalid_reason(&k, &fair_server_default), "fair server's bandwidth"),
	      "3%% under a 5%% fair server accepted");
	/* Equal is admitted, one fixed-point unit above is not (__dl_overflow: cap < total). */
	k = with_fair_server(500000, 1000000, 500 * MS_NS, 1000 * MS_NS);
	CHECK(!knobs_invalid_reason(&k, &fair_server_default), "equal ratios refused");
	k = with_fair_server(500000, 1000000, 500 * MS_NS + 1000, 1000 * MS_NS);
	CHECK(knobs_invalid_reason(&k, &fair_server_default), "a fair server above the global ratio accepted");
	/* Under runtime -1 the kernel admits any fair server. */
	k = with_fair_server(-1, 1000000, 1000 * MS_NS, 1000 * MS_NS);
	k.value[KNOB_CGROUP_RUNTIME] = -1;
	CHECK(!knobs_invalid_reason(&k, &fair_server_default), "-1 with a full fair server refused: %s",
	      knobs_invalid_reason(&k, &fair_server_default));
	/* The pair rules of sched_fair_server_write: runtime <= period, period 100 us..2^22 us. */
	k = with_fair_server(-1, 1000000, 60 * MS_NS, 50 * MS_NS);
	CHECK(knobs_invalid_reason(&k, &fair_server_default), "fair server runtime > period accepted");
	k = with_fair_server(-1, 1000000, 0, 99999);
	CHECK(knobs_invalid_reason(&k, &fair_server_default), "fair server period below 100 us accepted");
	k = with_fair_server(-1, 1000000, 0, 100000);
	CHECK(!knobs_invalid_reason(&k, &fair_server_default), "fair server period 100 us refused");
	k = with_fair_server(-1, 1000000, 0, (1ll << 22) * 1000 + 1);
	CHECK(knobs_invalid_reason(&k, &fair_server_default), "fair server period above 2^22 us accepted");
	k = with_fair_server(-1, 1000000, -1, 1000 * MS_NS);
	CHECK(knobs_invalid_reason(&k, &fair_server_default), "negative fair server runtime accepted");
}

TEST(knob_plan_lowers_the_fair_server_before_rt)
{
	/* 3% RT with a 1% fair server: writing the sysctl first would go below 5% (EBUSY). */
	struct knobs from = with_fair_server(950000, 1000000, 50 * MS_NS, 1000 * MS_NS);
	struct knobs to = with_fair_server(30000, 1000000, 10 * MS_NS, 1000 * MS_NS);
	struct knob_plan there, back;

	if (!plan_there_and_back("default -> 30000 fs 10ms", &from, &to, &there, &back))
		return;
	/* -1, the fair server, the cgroup, then the sysctl's own value, which only the lower fair server admits. */
	CHECK(there.count == 4, "there: %d steps, want 4", there.count);
	CHECK(step_of(&there, KNOB_FAIR_SERVER_RUNTIME) >= 0 &&
		      step_of(&there, KNOB_FAIR_SERVER_RUNTIME) < last_step_of(&there, KNOB_SYSCTL_RUNTIME),
	      "the fair server (step %d) must come down before the sysctl's last write (step %d)",
	      step_of(&there, KNOB_FAIR_SERVER_RUNTIME), last_step_of(&there, KNOB_SYSCTL_RUNTIME));
	CHECK(step_of(&there, KNOB_FAIR_SERVER_PERIOD) < 0, "the fair server's period written, unchanged");
	CHECK(there.step[0].knob == KNOB_SYSCTL_RUNTIME && there.step[0].value == -1, "there: step 0 is not -1");
	/* Back: the same detour, the fair server back up while RT is unlimited. */
	CHECK(back.count == 4 && back.step[0].knob == KNOB_SYSCTL_RUNTIME && back.step[0].value == -1,
	      "back: %d steps, step 0 %s", back.count, knob_name(back.step[0].knob));
}

TEST(knob_plan_fair_server_policies_of_the_debate)
{
	struct knobs from = with_fair_server(950000, 1000000, 50 * MS_NS, 1000 * MS_NS);
	struct knobs posix = with_fair_server(-1, 1000000, 0, 1000 * MS_NS);
	struct knobs no_fs = with_fair_server(950000, 1000000, 0, 1000 * MS_NS);
	struct knobs big_fs = with_fair_server(500000, 1000000, 400 * MS_NS, 1000 * MS_NS);
	struct knob_plan there, back;

	posix.value[KNOB_CGROUP_RUNTIME] = -1;
	if (plan_there_and_back("default -> posix", &from, &posix, &there, &back))
		CHECK(there.count == 3, "posix: %d steps, want 3", there.count);
	if (plan_there_and_back("default -> rt-no-fair-server", &from, &no_fs, &there, &back))
		CHECK(there.count == 3 && there.step[1].knob == KNOB_FAIR_SERVER_RUNTIME && there.step[1].value == 0,
		      "rt-no-fair-server: %d steps, step 1 %s", there.count, knob_name(there.step[1].knob));
	/* Half RT with a 40% fair server: both move, each in an order the other allows. */
	plan_there_and_back("default -> half fs 400ms", &from, &big_fs, &there, &back);
}

TEST(knob_plan_fair_server_period_and_short_rt_periods)
{
	/* The fair server at 10/100 ms (10%) and RT at 45000/50000: the detour through -1 carries both. */
	struct knobs from = with_fair_server(950000, 1000000, 50 * MS_NS, 1000 * MS_NS);
	struct knobs to = with_fair_server(45000, 50000, 10 * MS_NS, 100 * MS_NS);
	struct knob_plan there, back;

	plan_there_and_back("default -> 45000/50000 fs 10/100ms", &from, &to, &there, &back);
	/* Runtime above the old period: the period has to grow first. */
	to = with_fair_server(950000, 1000000, 200 * MS_NS, 2000 * MS_NS);
	from = with_fair_server(950000, 1000000, 50 * MS_NS, 100 * MS_NS);
	if (plan_there_and_back("fs 50/100ms -> 200ms/2s", &from, &to, &there, &back))
		CHECK(step_of(&there, KNOB_FAIR_SERVER_PERIOD) < step_of(&there, KNOB_FAIR_SERVER_RUNTIME),
		      "the fair server's period (step %d) must grow before its runtime (step %d)",
		      step_of(&there, KNOB_FAIR_SERVER_PERIOD), step_of(&there, KNOB_FAIR_SERVER_RUNTIME));
}

TEST(knob_plan_refuses_a_fair_server_above_rt)
{
	struct knobs from = with_fair_server(950000, 1000000, 50 * MS_NS, 1000 * MS_NS);
	struct knobs to = with_fair_server(500000, 1000000, 600 * MS_NS, 1000 * MS_NS);
	struct knobs unknown = make_knobs(950000, 1000000, 950000, 1000000, true);
	struct knob_plan plan;
	char why[400] = "";

	CHECK(!knob_plan_make(&from, &to, &fair_server_default, &plan), "a 60%% fair server under 50%% RT planned");
	knob_plan_refusal(&from, &to, &fair_server_default, why, sizeof(why));
	CHECK(strstr(why, "fair server 600000000/1000000000 ns") && strstr(why, "fair server's bandwidth"),
	      "refusal: '%s'", why);
	/* A state that cannot read the fair server cannot be led to one that sets it. */
	CHECK(!knob_plan_make(&unknown, &from, &fair_server_default, &plan), "planned from an unknown fair server");
	knob_plan_refusal(&unknown, &from, &fair_server_default, why, sizeof(why));
	CHECK(strstr(why, "fair server can be read in one state"), "refusal: '%s'", why);
}

TEST(knob_step_why_fair_server_writes)
{
	struct knobs k = with_fair_server(950000, 1000000, 10 * MS_NS, 1000 * MS_NS);
	char why[300];

	knob_step_why(&k, KNOB_FAIR_SERVER_RUNTIME, &fair_server_default, why, sizeof(why));
	CHECK(strstr(why, "fair server runtime 10000000 <= period 1000000000 ns") &&
		      strstr(why, "its ratio 0.010 <= global ratio 0.950"),
	      "fair server write: '%s'", why);
	knob_step_why(&k, KNOB_SYSCTL_RUNTIME, &fair_server_default, why, sizeof(why));
	CHECK(strstr(why, "deadline floor 0.010"), "the sysctl's floor is the state's fair server: '%s'", why);
	k.value[KNOB_SYSCTL_RUNTIME] = -1;
	knob_step_why(&k, KNOB_FAIR_SERVER_PERIOD, &fair_server_default, why, sizeof(why));
	CHECK(strstr(why, "admits any fair server"), "under -1: '%s'", why);
	knobs_describe(&k, why, sizeof(why));
	CHECK(strstr(why, ", fair server 10000000/1000000000 ns"), "described as '%s'", why);
}
