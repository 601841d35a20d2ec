// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel model (which regime a kernel is in), the expectation model built on it (limiter,
 * thresholds) and the judging of a FIFO hog beside a CFS victim with the shipped
 * fifo-hog-share scenario's checks.
 */
#include "expect.h"
#include "judge.h"
#include "quantity.h"
#include "kernel_model.h"
#include "run_case.h"
#include "scenario.h"
#include "scenario_task.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool NEAR(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static struct kernel_facts facts(int major, int minor, int rt_group_sched, int hz)
{
	return make_kernel_facts(major, minor, rt_group_sched, hz);
}

static struct kernel_model model(int major, int minor, int rt_group_sched)
{
	struct kernel_facts k = facts(major, minor, rt_group_sched, 250);
	struct kernel_model m;

	kernel_model_predict(&k, &m);
	return m;
}

static struct policy builtin(const char *name)
{
	struct policy p;

	memset(&p, 0, sizeof(p));
	if (!policy_find(name, &p))
		CHECK(0, "builtin %s missing", name);
	return p;
}

TEST(kernel_model_predict_versions)
{
	struct kernel_model m;

	m = model(6, 1, 0);
	CHECK(!m.fair_server && m.rt_bandwidth && !m.rt_runtime_share, "6.1: fs %d bw %d share %d",
	      m.fair_server, m.rt_bandwidth, m.rt_runtime_share);
	CHECK(NEAR(m.tick_us, 4000), "6.1 HZ=250: tick %g", m.tick_us);
	CHECK(strstr(m.basis, "6.1") != NULL, "basis does not name the kernel: %s", m.basis);
	/* Before 6.12 the config does not matter. */
	m = model(6, 1, 1);
	CHECK(!m.fair_server && m.rt_bandwidth && !m.rt_runtime_share, "6.1 rt_group_sched=1");
	m = model(6, 11, -1);
	CHECK(!m.fair_server && m.rt_bandwidth, "6.11: fs %d bw %d", m.fair_server, m.rt_bandwidth);

	m = model(6, 12, 0);
	CHECK(m.fair_server && !m.rt_bandwidth && !m.rt_runtime_share, "6.12 rg=0: fs %d bw %d share %d",
	      m.fair_server, m.rt_bandwidth, m.rt_runtime_share);
	CHECK(m.fs_runtime_us == 50000 && m.fs_period_us == 1000000, "fair server %lld/%lld",
	      (long long)m.fs_runtime_us, (long long)m.fs_period_us);

	m = model(6, 18, 1);
	CHECK(m.fair_server && m.rt_bandwidth && !m.rt_runtime_share, "6.18 rg=1: fs %d bw %d share %d",
	      m.fair_server, m.rt_bandwidth, m.rt_runtime_share);
	/* Config unknown on 6.12+: RT throttling assumed. */
	m = model(6, 18, -1);
	CHECK(m.fair_server && m.rt_bandwidth, "6.18 rg unknown: fs %d bw %d", m.fair_server, m.rt_bandwidth);
	m = model(7, 0, 0);
	CHECK(m.fair_server && !m.rt_bandwidth, "7.0 rg=0: fs %d bw %d", m.fair_server, m.rt_bandwidth);

	m = model(5, 4, -1);
	CHECK(!m.fair_server && m.rt_bandwidth && m.rt_runtime_share, "5.4: fs %d bw %d share %d",
	      m.fair_server, m.rt_bandwidth, m.rt_runtime_share);
	m = model(5, 9, -1);
	CHECK(m.rt_runtime_share, "5.9: runtime share off");
	m = model(5, 10, -1);
	CHECK(!m.rt_runtime_share, "5.10: runtime share on");
	m = model(4, 19, 1);
	CHECK(m.rt_runtime_share && m.rt_bandwidth && !m.fair_server, "4.19");

	/* HZ: 1000 -> 1 ms; unknown -> the coarsest tick, 10 ms. */
	{
		struct kernel_facts k = facts(6, 1, 0, 1000);

		kernel_model_predict(&k, &m);
		CHECK(NEAR(m.tick_us, 1000), "HZ=1000: tick %g", m.tick_us);
		k = facts(6, 1, 0, 0);
		kernel_model_predict(&k, &m);
		CHECK(NEAR(m.tick_us, 10000), "HZ unknown: tick %g", m.tick_us);
	}
}

TEST(kernel_model_fair_server_from_debugfs)
{
	struct kernel_facts k = facts(6, 12, 0, 250);
	struct kernel_model m;
	struct limiter l;
	struct policy unlimited = builtin("unlimited");

	/* What debugfs shows rules over the defaults: 100 ms every 500 ms leaves RT 0.8. */
	k.fair_server_readable = true;
	k.fair_server_runtime_ns = 100000000;
	k.fair_server_period_ns = 500000000;
	kernel_model_predict(&k, &m);
	CHECK(m.fs_from_debugfs && m.fair_server && m.fs_runtime_us == 100000 && m.fs_period_us == 500000,
	      "debugfs 100/500 ms: fs %d %lld/%lld", m.fair_server, (long long)m.fs_runtime_us,
	      (long long)m.fs_period_us);
	CHECK(strstr(m.basis, "debugfs") != NULL, "basis: %s", m.basis);
	limiter_for(&m, &unlimited, &l);
	CHECK(l.regime == REGIME_FAIR_SERVER_ONLY && NEAR(l.hog_share, 0.8) && NEAR(l.gap_us, 100000) &&
	      NEAR(l.interval_us, 500000), "-1 with 100/500 ms: %s share %g gap %g", regime_name(l.regime),
	      l.hog_share, l.gap_us);
	/* runtime 0 switches the fair server off: at -1 nothing gives CFS time. */
	k.fair_server_runtime_ns = 0;
	kernel_model_predict(&k, &m);
	CHECK(!m.fair_server && regime_for(&m, -1, 1000000) == REGIME_NO_LIMIT, "runtime 0: fs %d regime %s",
	      m.fair_server, regime_name(regime_for(&m, -1, 1000000)));
	/* Unreadable (or a value that did not parse): the defaults. */
	k.fair_server_readable = false;
	kernel_model_predict(&k, &m);
	CHECK(!m.fs_from_debugfs && m.fair_server && m.fs_runtime_us == 50000, "unreadable");
	k.fair_server_readable = true;
	k.fair_server_runtime_ns = -1;
	kernel_model_predict(&k, &m);
	CHECK(!m.fs_from_debugfs && m.fs_runtime_us == 50000, "runtime did not parse");
}

/*
 * A policy that sets the fair server is judged by the kernel with that setting: off, a 6.12
 * kernel without RT group scheduling has no limit left at -1 or at 950000 (nothing promised);
 * with group scheduling RT throttling stays. On 6.1 there is no fair server to set.
 */
TEST(kernel_model_for_a_policy_setting_the_fair_server)
{
	struct kernel_model m = model(6, 12, 0), out;
	struct policy posix = builtin("posix"), no_fs = builtin("rt-no-fair-server"), def = builtin("default");
	struct policy fs10 = def;

	kernel_model_for_policy(&m, &def, &out);
	CHECK(out.fair_server && out.fs_runtime_us == 50000 && regime_for(&out, -1, 1000000) == REGIME_FAIR_SERVER_ONLY,
	      "a policy without a fair server leaves the model as it is");
	kernel_model_for_policy(&m, &posix, &out);
	CHECK(!out.fair_server && regime_for(&out, -1, 1000000) == REGIME_NO_LIMIT, "posix: %s",
	      regime_name(regime_for(&out, -1, 1000000)));
	kernel_model_for_policy(&m, &no_fs, &out);
	CHECK(!out.fair_server && !out.rt_bandwidth && regime_for(&out, 950000, 1000000) == REGIME_NO_LIMIT,
	      "fair server off without RT groups: %s", regime_name(regime_for(&out, 950000, 1000000)));
	m = model(6, 12, 1);
	kernel_model_for_policy(&m, &no_fs, &out);
	CHECK(!out.fair_server && out.rt_bandwidth && regime_for(&out, 950000, 1000000) == REGIME_CLASSIC,
	      "fair server off with RT groups: %s", regime_name(regime_for(&out, 950000, 1000000)));
	fs10.fair_server = (struct policy_fair_server){ .set = true, .runtime_us = 10000, .period_us = 100000 };
	kernel_model_for_policy(&m, &fs10, &out);
	CHECK(out.fair_server && out.fs_runtime_us == 10000 && out.fs_period_us == 100000, "10 ms of 100 ms");
	fs10.fair_server.period_us = 0;
	kernel_model_for_policy(&m, &fs10, &out);
	CHECK(out.fs_runtime_us == 10000 && out.fs_period_us == m.fs_period_us, "the period in force kept");
	m = model(6, 1, 1);
	kernel_model_for_policy(&m, &fs10, &out);
	CHECK(!out.fair_server && out.rt_bandwidth, "6.1 has no fair server to set");
}

TEST(kernel_model_preempt_rt_timer_thread)
{
	struct kernel_facts k = facts(6, 1, 0, 250);
	struct kernel_model m;
	struct limiter l;
	struct policy dflt = builtin("default"), unlimited = builtin("unlimited");
	struct regime_observation o;

	/* 6.1 PREEMPT_RT, ktimers/N at FIFO 1: the hog is throttled, CFS timer wake-ups wait with it. */
	k.timer_thread_priority = 1;
	kernel_model_predict(&k, &m);
	CHECK(strstr(m.basis, "ktimers") != NULL, "basis: %s", m.basis);
	limiter_for(&m, &dflt, &l);
	CHECK(l.regime == REGIME_TIMERS_STARVED && l.limited && NEAR(l.hog_share, 0.95) && NEAR(l.gap_us, 50000) &&
	      NEAR(l.interval_us, 1000000), "6.1-rt default: %s share %g gap %g", regime_name(l.regime), l.hog_share,
	      l.gap_us);
	CHECK(!strcmp(regime_name(l.regime), "timers-starved"), "name %s", regime_name(l.regime));
	limiter_for(&m, &unlimited, &l);
	CHECK(l.regime == REGIME_NO_LIMIT && !l.limited, "6.1-rt -1: %s", regime_name(l.regime));
	/* What the probe saw there: a throttled lone hog, a starved CFS task at -1. */
	memset(&o, 0, sizeof(o));
	o.done = true;
	o.hog_alone_share = 0.95;
	o.hog_alone_gap_max_us = 48000;
	regime_observation_judge(&m, &o);
	CHECK(o.agrees, "6.1-rt behaviour disagrees: %s", o.evidence);

	/* 6.12 PREEMPT_RT without RT group scheduling: no throttle, and the fair server's time goes
	 * unused because the CFS task sleeping on a timer never wakes. */
	k = facts(6, 12, 0, 250);
	k.timer_thread_priority = 1;
	kernel_model_predict(&k, &m);
	CHECK(regime_for(&m, 950000, 1000000) == REGIME_NO_LIMIT && regime_for(&m, -1, 1000000) == REGIME_NO_LIMIT,
	      "6.12-rt: %s / %s", regime_name(regime_for(&m, 950000, 1000000)), regime_name(regime_for(&m, -1, 1000000)));
	o.hog_alone_share = 0.999;
	o.hog_alone_gap_max_us = 2000;
	o.victim_share_unlimited = 0;
	regime_observation_judge(&m, &o);
	CHECK(o.agrees, "6.12-rt with ktimers behaviour disagrees: %s", o.evidence);
	/* Without the RT thread the same kernel serves CFS through the fair server. */
	k.timer_thread_priority = 0;
	kernel_model_predict(&k, &m);
	CHECK(regime_for(&m, -1, 1000000) == REGIME_FAIR_SERVER_ONLY, "6.12 without ktimers");
}

TEST(kernel_model_regime_for)
{
	struct kernel_model classic = model(6, 1, 0), fs_only = model(6, 12, 0), both = model(6, 18, 1),
			    share = model(5, 4, -1);

	/* A limit below the period. */
	CHECK(regime_for(&classic, 950000, 1000000) == REGIME_CLASSIC, "6.1 default");
	CHECK(regime_for(&fs_only, 950000, 1000000) == REGIME_FAIR_SERVER_ONLY, "6.12 rg=0 default");
	CHECK(regime_for(&both, 950000, 1000000) == REGIME_CLASSIC, "6.18 rg=1 default");
	CHECK(regime_for(&share, 950000, 1000000) == REGIME_RUNTIME_SHARE, "5.4 default");
	CHECK(regime_for(&classic, 1, 1000000) == REGIME_CLASSIC, "6.1 tiny runtime");
	/* runtime -1: no RT limit. */
	CHECK(regime_for(&classic, -1, 1000000) == REGIME_NO_LIMIT, "6.1 -1");
	CHECK(regime_for(&fs_only, -1, 1000000) == REGIME_FAIR_SERVER_ONLY, "6.12 -1");
	CHECK(regime_for(&both, -1, 1000000) == REGIME_FAIR_SERVER_ONLY, "6.18 -1");
	CHECK(regime_for(&share, -1, 1000000) == REGIME_NO_LIMIT, "5.4 -1");
	/* runtime == period never throttles. */
	CHECK(regime_for(&classic, 1000000, 1000000) == REGIME_NO_LIMIT, "6.1 full");
	CHECK(regime_for(&both, 1000000, 1000000) == REGIME_FAIR_SERVER_ONLY, "6.18 full");
	CHECK(regime_for(&share, 1000000, 1000000) == REGIME_NO_LIMIT, "5.4 full");

	CHECK(!strcmp(regime_name(REGIME_CLASSIC), "classic-throttling"), "%s", regime_name(REGIME_CLASSIC));
	CHECK(!strcmp(regime_name(REGIME_NO_LIMIT), "no-limit"), "%s", regime_name(REGIME_NO_LIMIT));
	CHECK(!strcmp(regime_name(REGIME_FAIR_SERVER_ONLY), "fair-server-only"), "%s",
	      regime_name(REGIME_FAIR_SERVER_ONLY));
	CHECK(!strcmp(regime_name(REGIME_RUNTIME_SHARE), "rt-runtime-share"), "%s",
	      regime_name(REGIME_RUNTIME_SHARE));
}

struct limiter_case {
	const char *kernel;
	int major, minor, rg;
	const char *policy;
	enum regime regime;
	bool limited, at_least_only;
	double hog_share, gap_us, interval_us;
};

TEST(expect_limiter_for_table)
{
	static const struct limiter_case cases[] = {
		{ "6.1", 6, 1, 0, "default", REGIME_CLASSIC, true, false, 0.95, 50000, 1000000 },
		{ "6.1", 6, 1, 0, "half", REGIME_CLASSIC, true, false, 0.5, 500000, 1000000 },
		{ "6.1", 6, 1, 0, "unlimited", REGIME_NO_LIMIT, false, false, 1.0, 0, 0 },
		{ "6.1", 6, 1, 0, "full", REGIME_NO_LIMIT, false, false, 1.0, 0, 0 },
		{ "6.1", 6, 1, 0, "ten-second-window", REGIME_CLASSIC, true, false, 0.95, 500000, 10000000 },
		/* Without RT group scheduling only the fair server limits RT, whatever the policy. */
		{ "6.12 rg=0", 6, 12, 0, "default", REGIME_FAIR_SERVER_ONLY, true, false, 0.95, 50000, 1000000 },
		{ "6.12 rg=0", 6, 12, 0, "half", REGIME_FAIR_SERVER_ONLY, true, false, 0.95, 50000, 1000000 },
		{ "6.12 rg=0", 6, 12, 0, "unlimited", REGIME_FAIR_SERVER_ONLY, true, false, 0.95, 50000, 1000000 },
		{ "6.18 rg=1", 6, 18, 1, "default", REGIME_CLASSIC, true, false, 0.95, 50000, 1000000 },
		{ "6.18 rg=1", 6, 18, 1, "half", REGIME_CLASSIC, true, false, 0.5, 500000, 1000000 },
		{ "6.18 rg=1", 6, 18, 1, "unlimited", REGIME_FAIR_SERVER_ONLY, true, false, 0.95, 50000, 1000000 },
		{ "6.18 rg=1", 6, 18, 1, "full", REGIME_FAIR_SERVER_ONLY, true, false, 0.95, 50000, 1000000 },
		/* Equal shares, but CFS would wait 9.5 s for RT throttling: the fair server comes first. */
		{ "6.18 rg=1", 6, 18, 1, "ten-second-window", REGIME_CLASSIC, true, false, 0.95, 50000, 1000000 },
		{ "5.4", 5, 4, -1, "default", REGIME_RUNTIME_SHARE, true, true, 0.95, 50000, 1000000 },
		{ "5.4", 5, 4, -1, "half", REGIME_RUNTIME_SHARE, true, true, 0.5, 500000, 1000000 },
		{ "5.4", 5, 4, -1, "unlimited", REGIME_NO_LIMIT, false, false, 1.0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct limiter_case *c = &cases[i];
		struct kernel_model m = model(c->major, c->minor, c->rg);
		struct policy p = builtin(c->policy);
		struct limiter l;

		limiter_for(&m, &p, &l);
		CHECK(l.regime == c->regime, "%s %s: regime %s, want %s", c->kernel, c->policy,
		      regime_name(l.regime), regime_name(c->regime));
		CHECK(l.limited == c->limited && l.at_least_only == c->at_least_only,
		      "%s %s: limited %d at_least_only %d", c->kernel, c->policy, l.limited, l.at_least_only);
		CHECK(NEAR(l.hog_share, c->hog_share), "%s %s: hog_share %g, want %g", c->kernel, c->policy,
		      l.hog_share, c->hog_share);
		CHECK(NEAR(l.gap_us, c->gap_us), "%s %s: gap_us %g, want %g", c->kernel, c->policy, l.gap_us,
		      c->gap_us);
		CHECK(NEAR(l.interval_us, c->interval_us), "%s %s: interval_us %g, want %g", c->kernel,
		      c->policy, l.interval_us, c->interval_us);
		CHECK(l.why[0] != '\0', "%s %s: no reason", c->kernel, c->policy);
	}
}

TEST(expect_limiter_fair_server_cuts_in_first)
{
	struct kernel_model both = model(6, 18, 1), classic = model(6, 1, 0);
	struct policy p;
	struct limiter l;

	/* 99% for RT: the fair server's 5% wins on 6.12+. */
	policy_make_adhoc(990000, 1000000, &p);
	limiter_for(&both, &p, &l);
	CHECK(l.regime == REGIME_CLASSIC && l.limited, "regime %s", regime_name(l.regime));
	CHECK(NEAR(l.hog_share, 0.95) && NEAR(l.gap_us, 50000) && NEAR(l.interval_us, 1000000),
	      "6.18 99%%: share %g gap %g interval %g", l.hog_share, l.gap_us, l.interval_us);
	CHECK(strstr(l.why, "fair server") != NULL, "why: %s", l.why);
	/* Without a fair server the policy's own numbers hold. */
	limiter_for(&classic, &p, &l);
	CHECK(NEAR(l.hog_share, 0.99) && NEAR(l.gap_us, 10000) && NEAR(l.interval_us, 1000000),
	      "6.1 99%%: share %g gap %g interval %g", l.hog_share, l.gap_us, l.interval_us);
}

TEST(expect_thresholds)
{
	struct noise_floor quiet = { .window_s = 10, .gap_max_us = 100, .loss_share = 0.001 };
	struct noise_floor noisy = { .window_s = 10, .gap_max_us = 30000, .loss_share = 0.01 };
	struct kernel_model classic = model(6, 1, 0), fs_only = model(6, 12, 0);
	struct policy def = builtin("default"), half = builtin("half"), unl = builtin("unlimited");
	struct limiter l;
	double t;

	limiter_for(&classic, &def, &l);
	t = throttle_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 25000), "classic default throttle threshold %g, want 25000", t);
	t = starvation_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 475000), "classic default starvation threshold %g, want 475000", t);

	limiter_for(&classic, &half, &l);
	t = throttle_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 250000), "classic half throttle threshold %g", t);
	t = starvation_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 250000), "classic half starvation threshold %g", t);

	limiter_for(&fs_only, &unl, &l);
	t = throttle_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 25000), "fair server throttle threshold %g", t);
	t = starvation_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 475000), "fair server starvation threshold %g", t);

	/* Nothing promised: ten ticks, or twice the noise when that is longer. */
	limiter_for(&classic, &unl, &l);
	t = throttle_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 40000), "no-limit throttle threshold %g, want 40000", t);
	t = starvation_threshold_us(&l, &quiet, 4000);
	CHECK(NEAR(t, 40000), "no-limit starvation threshold %g, want 40000", t);
	t = throttle_threshold_us(&l, &noisy, 4000);
	CHECK(NEAR(t, 60000), "no-limit noisy throttle threshold %g, want 60000", t);
	t = starvation_threshold_us(&l, &noisy, 1000);
	CHECK(NEAR(t, 60000), "no-limit noisy starvation threshold %g, want 60000", t);
}

/* The check of task.metric that applies here (one whose condition does not hold is none). */
static const struct check *find_check(const struct check *checks, int n, const char *task, const char *metric)
{
	for (int i = 0; i < n; i++)
		if (!checks[i].not_applicable && !strcmp(checks[i].task, task) && !strcmp(checks[i].metric, metric))
			return &checks[i];
	return NULL;
}

static int failed_checks(const struct check *checks, int n)
{
	int failed = 0;

	for (int i = 0; i < n; i++)
		failed += checks[i].was_measured && !checks[i].passed;
	return failed;
}

static void report_failures(const char *label, const struct check *checks, int n)
{
	for (int i = 0; i < n; i++)
		if (!checks[i].passed && !checks[i].not_applicable)
			CHECK(0, "%s: %s %s measured %g expected %g tol %g (%s)%s", label, checks[i].task,
			      checks[i].metric, checks[i].measured, checks[i].expected, checks[i].tolerance,
			      check_kind_name(checks[i].kind), checks[i].was_measured ? "" : " not measured");
}

/* The shipped scenario of a FIFO hog beside a CFS victim, and the judging context around it. */
struct hog_case {
	struct scenario s;
	bool loaded;
	int hog, victim;
	struct kernel_model km;
	struct policy policy;
	struct limiter limiter;
	struct noise_floor noise;
	struct judge_context jc;
	struct check checks[SCENARIO_CHECKS_MAX];
	int n;
	const char *trace_json;	/* the result's trace block; NULL: one that agrees with the hog */
};

static struct hog_case hc;
/* The noise floor the next hog_case_judge uses; a quiet machine's when unset. */
static const struct noise_floor *hc_noise;
/* CPU time other tasks took on the measured CPU in its window (-1: unknown). */
static double hc_others_us;
static double hc_window_s;	/* the window judged; 10 s unless a test sets it */
static double hc_steal_most_us;	/* the most steal /proc/stat allows; 0 unknown */

static bool hog_case_load(void)
{
	char path[PATH_MAX];

	if (hc.loaded)
		return true;
	snprintf(path, sizeof(path), "%.4000s/fifo-hog-share.json", scenario_dir());
	if (!scenario_parse_file(path, &hc.s)) {
		CHECK(0, "cannot load %s", path);
		return false;
	}
	hc.hog = scenario_task_index(&hc.s, "hog");
	hc.victim = scenario_task_index(&hc.s, "victim");
	CHECK(hc.hog >= 0 && hc.victim >= 0, "fifo-hog-share has no hog or victim task");
	hc.loaded = hc.hog >= 0 && hc.victim >= 0;
	return hc.loaded;
}

static void hog_case_unload(void)
{
	for (int i = 0; i < hc.s.task_count; i++)
		json_object_put(hc.s.tasks[i].params);
	hc.s.task_count = 0;
	hc.loaded = false;
}

static json_object *parse(const char *text)
{
	json_object *obj = json_tokener_parse(text);

	CHECK(obj != NULL, "bad test JSON: %s", text);
	return obj;
}

/* Judges hog and victim metrics (JSON text, as metrics_to_json names them) on a kernel and policy. */
static int hog_case_judge(int major, int minor, int rg, const char *policy, double steal_us, const char *hog_json,
			  const char *victim_json)
{
	hc.km = model(major, minor, rg);
	hc.policy = builtin(policy);
	limiter_for(&hc.km, &hc.policy, &hc.limiter);
	hc.noise = hc_noise ? *hc_noise : (struct noise_floor){ .window_s = 10, .gap_max_us = 100, .loss_share = 0.001 };
	memset(&hc.jc, 0, sizeof(hc.jc));
	hc.jc.scenario = &hc.s;
	hc.jc.model = &hc.km;
	hc.jc.limiter = &hc.limiter;
	hc.jc.policy = &hc.policy;
	hc.jc.noise = &hc.noise;
	hc.jc.window_s = hc_window_s > 0 ? hc_window_s : 10;
	hc.jc.steal_us = steal_us;
	hc.jc.steal_most_us = hc_steal_most_us;
	hc.jc.others_us = hc_others_us;
	hc.jc.metrics[hc.hog] = parse(hog_json);
	hc.jc.metrics[hc.victim] = parse(victim_json);
	if (hc.trace_json) {
		hc.jc.trace = parse(hc.trace_json);
	} else {
		json_object *v;

		/* sched_switch saw what the hog saw. */
		hc.jc.trace = parse("{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0}");
		if (json_object_object_get_ex(hc.jc.metrics[hc.hog], "throttle_events", &v))
			json_object_object_add(hc.jc.trace, "throttle_events", json_object_get(v));
		if (json_object_object_get_ex(hc.jc.metrics[hc.hog], "gap_max_us", &v))
			json_object_object_add(hc.jc.trace, "gap_max_us", json_object_get(v));
	}
	hc.n = judge_result(&hc.jc, hc.checks, SCENARIO_CHECKS_MAX);
	json_object_put(hc.jc.trace);
	hc.jc.trace = NULL;
	json_object_put(hc.jc.metrics[hc.hog]);
	json_object_put(hc.jc.metrics[hc.victim]);
	hc.jc.metrics[hc.hog] = hc.jc.metrics[hc.victim] = NULL;
	return hc.n;
}

/* A 10 s window of textbook classic throttling at 950000/1000000. */
static const char textbook_hog[] =
	"{\"window_s\": 10, \"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 9,"
	" \"gap_max_us\": 50000, \"throttle_events\": 10, \"throttle_interval_us\": 1000000,"
	" \"throttle_gap_median_us\": 50000, \"rt_budget_excess_us\": 0, \"grid_step_us\": 100, \"grid_searched\": 1, \"stall_max_us\": 0, \"cpu_sample_us\": 250,"
	" \"rt_periods\": 9, \"rt_period_top_us\": 950000, \"rt_timer_drift_us\": 0, \"rt_timer_intervals\": 9}";
static const char textbook_victim[] =
	"{\"window_s\": 10, \"cpu_share\": 0.05, \"cpu_share_periods\": 0.05, \"periods_span_s\": 9,"
	" \"starvation_max_us\": 950000, \"starvation_events\": 10, \"starvation_median_us\": 950000,"
	" \"cfs_period_min_us\": 50000, \"fs_period_min_us\": 50000, \"fs_grid_step_us\": 500, \"cfs_grid_step_us\": 100, \"cfs_placement_us\": 500, \"fs_placement_us\": 500, \"stall_max_us\": 0, \"cpu_sample_us\": 250}";

TEST(judge_fifo_hog_textbook_classic)
{
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	CHECK(n >= 5, "only %d checks apply to classic throttling", n);
	CHECK(failed_checks(hc.checks, n) == 0, "textbook classic throttling fails %d checks",
	      failed_checks(hc.checks, n));
	report_failures("textbook", hc.checks, n);
	for (int i = 0; i < n; i++)
		CHECK((hc.checks[i].was_measured || hc.checks[i].not_applicable) && hc.checks[i].rule[0] && hc.checks[i].unit,
		      "check %s %s not measured or without a rule", hc.checks[i].task, hc.checks[i].metric);
	/* The checks carry the model's numbers. */
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && NEAR(c->expected, 0.95) && c->kind == CHECK_APPROX, "hog cpu_share_periods check");
	c = find_check(hc.checks, n, "hog", "gap_max_us");
	CHECK(c && NEAR(c->expected, 50000), "hog gap_max_us check expects %g", c ? c->expected : -1);
	c = find_check(hc.checks, n, "hog", "throttle_events");
	CHECK(c && NEAR(c->expected, 10), "hog throttle_events check expects %g", c ? c->expected : -1);
	c = find_check(hc.checks, n, "hog", "throttle_interval_us");
	CHECK(c && NEAR(c->expected, 1000000), "hog throttle_interval_us check expects %g", c ? c->expected : -1);
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->kind == CHECK_AT_MOST && NEAR(c->expected, 1900000), "victim starvation_max_us check");

	/* A tick off everywhere still passes. */
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"cpu_share\": 0.95, \"cpu_share_periods\": 0.951, \"periods_span_s\": 9,"
			   " \"gap_max_us\": 54000, \"throttle_events\": 11, \"throttle_interval_us\": 1004000,"
			   " \"rt_budget_excess_us\": 4000, \"grid_step_us\": 100, \"grid_searched\": 1, \"stall_max_us\": 0, \"cpu_sample_us\": 250,"
			   " \"rt_periods\": 9, \"rt_period_top_us\": 946000, \"rt_timer_drift_us\": 4000, \"rt_timer_intervals\": 9}",
			   textbook_victim);
	CHECK(failed_checks(hc.checks, n) == 0, "a tick off fails %d checks", failed_checks(hc.checks, n));
	report_failures("tick off", hc.checks, n);

	/* The fair-server-only kernel gives the same picture at the default policy. */
	n = hog_case_judge(6, 12, 0, "default", 0, textbook_hog, textbook_victim);
	CHECK(hc.limiter.regime == REGIME_FAIR_SERVER_ONLY && n >= 5 && failed_checks(hc.checks, n) == 0,
	      "fair-server-only textbook: %d checks, %d fail", n, failed_checks(hc.checks, n));
	report_failures("fair server", hc.checks, n);
	hog_case_unload();
}

/*
 * A window ended just before a firing of the period timer (the timer settle's cut) closes one
 * slot per firing in it, the first only when the hog had run its runtime by then: 9.7 s from
 * just after a firing sees 8 slots close (measured 28 in 2.977 s at 80000/100000). Expected
 * 9, one away; rounding expected 10.
 */
/*
 * The 2008 argument: a kernel that throttles RT at 0.90 although the settings leave it 0.95.
 * The hog's share lies in the fair server's band and every one-sided check holds; the most RT
 * ran in a whole period (900 ms of 950, the same in each) shows it. A 50 ms fair server beside
 * a 1 s period may take its slot besides the throttle's, so 0.90 of a 500 ms period passes.
 */
TEST(judge_rt_throttled_short_of_its_runtime_fails)
{
	static const char short_hog[] =
		"{\"window_s\": 10, \"cpu_share\": 0.90, \"cpu_share_periods\": 0.90, \"periods_span_s\": 9,"
		" \"gap_max_us\": 100000, \"throttle_events\": 10, \"throttle_interval_us\": 1000000,"
		" \"throttle_gap_median_us\": 100000, \"rt_budget_excess_us\": -450000, \"grid_step_us\": 0,"
		" \"grid_searched\": 0, \"stall_max_us\": 0, \"cpu_sample_us\": 250, \"rt_periods\": 9,"
		" \"rt_period_top_us\": 900000}";
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	n = hog_case_judge(6, 1, 0, "default", 0, short_hog, textbook_victim);
	c = find_check(hc.checks, n, "hog", "rt_period_top_us");
	CHECK(c && c->was_measured && !c->hollow && !c->passed && NEAR(c->expected, 950000) && c->detects == 50000,
	      "900 ms of 950 a period: %s against %.0f +- %.0f", c ? (c->passed ? "passed" : "failed") : "no check",
	      c ? c->expected : -1, c ? c->tolerance : -1);
	c = find_check(hc.checks, n, "hog", "rt_budget_excess_us");
	CHECK(c && c->passed, "the budget's upper side holds: excess %.0f", c ? c->measured : -1);
	hog_case_unload();
}

/*
 * RT refilled every 1.05 s under a 1 s period: on the grid its own timer lays, RT runs its
 * runtime in every period and CFS gets more than the rest, so every per-period check holds.
 * The timer's firings drift 50 ms a period off the policy's grid (100 ms over two intervals).
 */
TEST(judge_rt_refilled_on_another_period_fails)
{
	char drifting[sizeof(textbook_hog) + 64];
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	snprintf(drifting, sizeof(drifting), "%.*s\"rt_timer_drift_us\": 100000, \"rt_timer_intervals\": 2}",
		 (int)(strstr(textbook_hog, "\"rt_timer_drift_us\"") - textbook_hog), textbook_hog);
	n = hog_case_judge(6, 1, 0, "default", 0, drifting, textbook_victim);
	c = find_check(hc.checks, n, "hog", "rt_timer_drift_us");
	CHECK(c && c->was_measured && !c->hollow && !c->passed && c->detects == 100000 && NEAR(c->tolerance, 4000),
	      "a timer 100 ms off its grid: %s, tolerance %.0f, detects %.0f", c ? (c->passed ? "passed" : "failed") : "no check",
	      c ? c->tolerance : -1, c ? c->detects : -1);
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	c = find_check(hc.checks, n, "hog", "rt_timer_drift_us");
	CHECK(c && c->passed, "on its grid it passes");
	hog_case_unload();
}

/* Without a trace the timer's drift, a figure only the trace gives, is a cross-check that does not apply. */
TEST(judge_timer_drift_without_a_trace_does_not_apply)
{
	char untraced[sizeof(textbook_hog) + 96];
	const struct check *c;
	char why[512];
	int n;

	if (!hog_case_load())
		return;
	snprintf(untraced, sizeof(untraced), "%.*s\"rt_timer_drift_us_unmeasured\": \"not traced (skipped)\"}",
		 (int)(strstr(textbook_hog, "\"rt_timer_drift_us\"") - textbook_hog), textbook_hog);
	hc.trace_json = "{\"status\": \"skipped\", \"reason\": \"built without libtracefs\"}";
	n = hog_case_judge(6, 1, 0, "default", 0, untraced, textbook_victim);
	hc.trace_json = NULL;
	c = find_check(hc.checks, n, "hog", "rt_timer_drift_us");
	CHECK(c && c->no_trace && !c->was_measured && strstr(c->rule, "no trace (built without libtracefs)"),
	      "no trace: %s", c ? c->rule : "no check");
	CHECK(judge_verdict(hc.checks, n, why, sizeof(why)) != VERDICT_UNJUDGED || !strstr(why, "rt_timer_drift_us"),
	      "the result is not left unjudged by it: %s", why);
	hog_case_unload();
}

/*
 * A check whose condition does not hold is recorded, not dropped: the fair server's promise on
 * 6.1 (no fair server) says it does not apply and why, with the result still passing.
 */
TEST(judge_a_check_whose_condition_is_false_is_not_applicable)
{
	const struct check *c = NULL;
	char why[512];
	json_object *o;
	int n;

	if (!hog_case_load())
		return;
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	for (int i = 0; i < n; i++)
		if (!strcmp(hc.checks[i].metric, "fs_period_min_us"))
			c = &hc.checks[i];
	CHECK(c && c->not_applicable && !c->was_measured && !c->passed &&
	      !strncmp(c->rule, "not applicable: its condition (fair_server * fs_periods_in_window >= 1.98)", 74),
	      "recorded with why: %s", c ? c->rule : "none");
	o = c ? check_to_json(c) : NULL;
	CHECK(o && !strcmp(json_object_get_string(json_object_object_get(o, "verdict")), "not-applicable"),
	      "its verdict says so");
	json_object_put(o);
	CHECK(judge_verdict(hc.checks, n, why, sizeof(why)) == VERDICT_PASS, "the result still passes: %s", why);
	hog_case_unload();
}

TEST(judge_throttle_events_of_a_window_cut_at_a_firing)
{
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	hc_window_s = 9.7;
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"window_s\": 9.7, \"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 8,"
			   " \"gap_max_us\": 50000, \"throttle_events\": 8, \"throttle_interval_us\": 1000000,"
			   " \"throttle_gap_median_us\": 50000, \"rt_budget_excess_us\": 0, \"grid_step_us\": 100, \"grid_searched\": 1,"
			   " \"stall_max_us\": 0, \"cpu_sample_us\": 250}",
			   textbook_victim);
	c = find_check(hc.checks, n, "hog", "throttle_events");
	CHECK(c && NEAR(c->expected, 9) && c->was_measured && c->passed, "8 slots in 9.7 s: expected %g, passed %d",
	      c ? c->expected : -1, c ? (int)c->passed : -1);
	/* Two short of the whole intervals is a slot lost. */
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"window_s\": 9.7, \"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 8,"
			   " \"gap_max_us\": 50000, \"throttle_events\": 7, \"throttle_interval_us\": 1000000,"
			   " \"throttle_gap_median_us\": 50000, \"rt_budget_excess_us\": 0, \"grid_step_us\": 100, \"grid_searched\": 1,"
			   " \"stall_max_us\": 0, \"cpu_sample_us\": 250}",
			   textbook_victim);
	c = find_check(hc.checks, n, "hog", "throttle_events");
	CHECK(c && c->was_measured && !c->passed, "7 slots in 9.7 s: passed %d", c ? (int)c->passed : -1);
	hc_window_s = 0;
	hog_case_unload();
}

/*
 * Measured in a QEMU/TCG guest of 6.12: the noise floor lost 38.9% of its second, with a 48 ms
 * gap, and every share tolerance became +-0.399. A dead throttle (hog 1.0, CFS nothing) then
 * passed. Such checks could not have failed: unjudged, never a pass.
 */
TEST(judge_hollow_tolerance_is_unjudged_not_passed)
{
	static const struct noise_floor emulator = { .window_s = 1, .gap_max_us = 48000, .loss_share = 0.389,
						     .cpu_loss_share = 0.389 };
	static const char dead_hog[] =
		"{\"window_s\": 10, \"cpu_share\": 1.0, \"cpu_share_periods\": 1.0, \"periods_span_s\": 9,"
		" \"gap_max_us\": 100, \"throttle_events\": 0, \"rt_budget_excess_us\": 450000, \"rt_periods\": 9,"
		" \"grid_step_us\": 100, \"grid_searched\": 1, \"stall_max_us\": 0, \"cpu_sample_us\": 250}";
	static const char starved_victim[] =
		"{\"window_s\": 10, \"cpu_share\": 0.0, \"cpu_share_periods\": 0.0, \"periods_span_s\": 9,"
		" \"starvation_max_us\": 10000000, \"cfs_period_min_us\": 0, \"fs_period_min_us\": 0,"
		" \"fs_grid_step_us\": 500, \"cfs_grid_step_us\": 100, \"cfs_placement_us\": 500, \"fs_placement_us\": 500, \"stall_max_us\": 0, \"cpu_sample_us\": 250}";
	const struct check *c;
	int n, hollow = 0;

	if (!hog_case_load())
		return;
	hc_noise = &emulator;
	n = hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && c->hollow && !c->was_measured && c->tolerance >= 0.39 && c->detects == 0.05,
	      "share +-%.3f judged against a 0.05 regression", c ? c->tolerance : -1);
	CHECK(c && !strncmp(c->rule, "unjudged: tolerance", 19), "the rule says why: %s", c ? c->rule : "");
	/* The regression in words, the metric default's here, in the rule and the check. */
	CHECK(c && c->detects_why && strstr(c->rule, c->detects_why) && strstr(c->detects_why, "5% off"),
	      "the rule names the regression: %s", c ? c->rule : "");
	for (int i = 0; i < n; i++)
		hollow += hc.checks[i].hollow;
	CHECK(hollow >= 3, "only %d hollow checks under the emulator's noise", hollow);
	/*
	 * The broken kernel: nothing that could not fail passes it; what it breaks beyond even the
	 * noise fails. The cross-checks on the trace pass: the hog and sched_switch agree that
	 * nothing throttled (they exist to catch one witness disagreeing with the other).
	 */
	n = hog_case_judge(6, 12, 1, "default", 0, dead_hog, starved_victim);
	for (int i = 0; i < n; i++)
		CHECK(!hc.checks[i].was_measured || !hc.checks[i].passed || !strcmp(hc.checks[i].label, "vs_trace"),
		      "%s.%s passes a dead throttle within +-%.4g", hc.checks[i].task, hc.checks[i].metric,
		      hc.checks[i].tolerance);
	c = find_check(hc.checks, n, "hog", "rt_budget_excess_us");
	CHECK(c && c->was_measured && !c->passed && !c->hollow && c->detects == 9 * 4000,
	      "450 ms over budget fails even within +-%.0f us", c ? c->tolerance : -1);
	/* On a quiet machine the same checks are judged, and the dead throttle fails them. */
	hc_noise = NULL;
	n = hog_case_judge(6, 12, 1, "default", 0, dead_hog, starved_victim);
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && c->was_measured && !c->hollow && !c->passed, "a quiet machine judges the share");
	c = find_check(hc.checks, n, "hog", "rt_budget_excess_us");
	CHECK(c && c->was_measured && !c->passed, "a quiet machine judges the budget");
	hog_case_unload();
}

TEST(judge_fifo_hog_share_too_high_or_low)
{
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	/* A hog share of 0.80 at default fails the share check, and only that. */
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"cpu_share\": 0.80, \"cpu_share_periods\": 0.80, \"periods_span_s\": 9,"
			   " \"gap_max_us\": 50000, \"throttle_events\": 10, \"throttle_interval_us\": 1000000}",
			   "{\"cpu_share\": 0.20, \"cpu_share_periods\": 0.20, \"periods_span_s\": 9,"
			   " \"starvation_max_us\": 950000, \"starvation_median_us\": 950000}");
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && c->was_measured && !c->passed, "a hog share of 0.80 at default passes");
	CHECK(failed_checks(hc.checks, n) == 1, "%d checks fail, want only the share", failed_checks(hc.checks, n));

	/* Without whole periods the window share is judged instead (the fallback metric). */
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"cpu_share\": 0.80, \"gap_max_us\": 50000, \"throttle_events\": 10}",
			   "{\"cpu_share\": 0.20, \"starvation_max_us\": 950000}");
	c = find_check(hc.checks, n, "hog", "cpu_share");
	CHECK(c && c->was_measured && !c->passed, "window share 0.80 at default passes");
	CHECK(!find_check(hc.checks, n, "hog", "cpu_share_periods"), "periods judged without periods");

	/* 0.93 is outside the share tolerance; 3% VM steal widens it enough. */
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"cpu_share\": 0.93, \"cpu_share_periods\": 0.93, \"periods_span_s\": 9,"
			   " \"gap_max_us\": 50000, \"throttle_events\": 10, \"throttle_interval_us\": 1000000}",
			   textbook_victim);
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && !c->passed, "0.93 passes without steal (tolerance %g)", c ? c->tolerance : -1);
	n = hog_case_judge(6, 1, 0, "default", 0.03 * 10e6,
			   "{\"cpu_share\": 0.93, \"cpu_share_periods\": 0.93, \"periods_span_s\": 9,"
			   " \"gap_max_us\": 50000, \"throttle_events\": 10, \"throttle_interval_us\": 1000000}",
			   textbook_victim);
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && c->passed, "0.93 fails with 3%% steal (tolerance %g)", c ? c->tolerance : -1);

	/* Runtime sharing (5.4): the hog may borrow beyond its share, not fall below it. */
	n = hog_case_judge(5, 4, -1, "default", 0, "{\"cpu_share\": 0.99}", "{\"cpu_share\": 0.01}");
	c = find_check(hc.checks, n, "hog", "cpu_share");
	CHECK(c && c->kind == CHECK_AT_LEAST && c->passed, "runtime share: borrowing to 0.99 fails");
	CHECK(failed_checks(hc.checks, n) == 0, "runtime share borrowing fails %d checks", failed_checks(hc.checks, n));
	n = hog_case_judge(5, 4, -1, "default", 0, "{\"cpu_share\": 0.80}", "{\"cpu_share\": 0.20}");
	c = find_check(hc.checks, n, "hog", "cpu_share");
	CHECK(c && !c->passed, "runtime share: 0.80 passes");
	hog_case_unload();
}

/*
 * Measured on 6.18 (RT groups, a fair server) at the default policy: a hog gap of 83 ms, the
 * 50 ms throttle slot then 33 ms of the fair server's, whose period ran out of phase with the RT
 * timer; the hog got 0.9197 of the periods. Both promises held: RT's share lies between the
 * policy's ratio and that less the server's share, and a dead or doubled throttle is outside.
 */
TEST(judge_hog_share_band_where_the_fair_server_interleaves)
{
	static const char *const shares[] = { "0.95", "0.9197", "0.905", "0.999", "0.85", "0.475" };
	static const bool healthy[] = { true, true, true, false, false, false };
	char hog[256];
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		snprintf(hog, sizeof(hog), "{\"cpu_share\": %s, \"cpu_share_periods\": %s, \"periods_span_s\": 9,"
			 " \"gap_max_us\": 83000, \"throttle_events\": 10}", shares[i], shares[i]);
		n = hog_case_judge(6, 18, 1, "default", 0, hog, textbook_victim);
		c = find_check(hc.checks, n, "hog", "cpu_share_periods");
		CHECK(hc.limiter.regime == REGIME_CLASSIC, "6.18 rg=1 default: regime %s", regime_name(hc.limiter.regime));
		CHECK(c && c->was_measured && !c->hollow && c->passed == healthy[i],
		      "hog share %s: %s within %g +- %g (%s)", shares[i], c && c->passed ? "passed" : "failed",
		      c ? c->expected : -1, c ? c->tolerance : -1, c ? c->rule : "no check");
		CHECK(c && NEAR(c->expected, 0.925) && c->tolerance < c->detects, "band 0.90-0.95: expect %g +- %g",
		      c ? c->expected : -1, c ? c->tolerance : -1);
	}
	/* No fair server, no band: the policy's ratio alone, as tight as before. */
	n = hog_case_judge(6, 1, 0, "default", 0,
			   "{\"cpu_share\": 0.9197, \"cpu_share_periods\": 0.9197, \"periods_span_s\": 9,"
			   " \"gap_max_us\": 50000, \"throttle_events\": 10}", textbook_victim);
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	CHECK(c && NEAR(c->expected, 0.95) && !c->passed, "6.1: 0.9197 passes against %g +- %g",
	      c ? c->expected : -1, c ? c->tolerance : -1);
	/* The victim's floor stays the throttle's rest, not raised by the band. */
	n = hog_case_judge(6, 18, 1, "default", 0, textbook_hog, textbook_victim);
	c = find_check(hc.checks, n, "victim", "cpu_share_periods");
	CHECK(c && NEAR(c->expected, 0.05) && c->passed, "victim floor %g", c ? c->expected : -1);
	hog_case_unload();
}

/*
 * Measured on 6.12 built from source (no cpuacct) under QEMU at -1 with the fair server off: the
 * hog got 0.9997 while the noise floor lost 5.75% of its wall time. Unmeasured, others' time is
 * only bounded by that loss: the no-limit share spans both ends instead of moving by it.
 */
TEST(judge_no_limit_share_where_others_are_unmeasured)
{
	static const struct noise_floor emulator = { .window_s = 1, .gap_max_us = 600, .loss_share = 0.0575,
						     .cpu_loss_share = 0.0007 };
	static const char *const shares[] = { "0.9997", "0.95", "0.90" };
	static const bool healthy[] = { true, true, false };
	char hog[128];
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	hc_noise = &emulator;
	hc_others_us = -1;
	for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		snprintf(hog, sizeof(hog), "{\"cpu_share\": %s, \"gap_max_us\": 500, \"throttle_events\": 0}", shares[i]);
		n = hog_case_judge(6, 1, 0, "unlimited", 0, hog, "{\"cpu_share\": 0.0}");
		c = find_check(hc.checks, n, "hog", "cpu_share");
		CHECK(hc.limiter.regime == REGIME_NO_LIMIT && c && c->was_measured && c->passed == healthy[i] &&
			      c->tolerance < c->detects,
		      "unmeasured others: hog %s %s against %g +- %g", shares[i], c && c->passed ? "passed" : "failed",
		      c ? c->expected : -1, c ? c->tolerance : -1);
	}
	/* Measured, the expectation is what the others left, as tight as before. */
	hc_others_us = 0;
	n = hog_case_judge(6, 1, 0, "unlimited", 0, "{\"cpu_share\": 0.95, \"gap_max_us\": 500, \"throttle_events\": 0}",
			   "{\"cpu_share\": 0.0}");
	c = find_check(hc.checks, n, "hog", "cpu_share");
	CHECK(c && NEAR(c->expected, 1.0) && !c->passed, "measured: 0.95 passes against %g +- %g",
	      c ? c->expected : -1, c ? c->tolerance : -1);
	hc_noise = NULL;
	hog_case_unload();
}

/* One table names every quantity: unique, documented, with a unit, and each computes for a case. */
TEST(quantity_table_is_whole)
{
	static const char *const units[] = { "ratio", "us", "s", "count", "flag" };
	size_t count;
	const struct quantity_info *q = quantity_table(&count);
	double v;

	CHECK(count >= 30, "only %zu quantities", count);
	if (!hog_case_load())
		return;
	hog_case_judge(6, 18, 1, "default", 0, textbook_hog, textbook_victim);
	for (size_t i = 0; i < count; i++) {
		bool unit_known = false;

		for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
			unit_known |= !strcmp(q[i].unit, units[k]);
		CHECK(unit_known && strlen(q[i].doc) > 10, "%s: unit %s, doc '%s'", q[i].name, q[i].unit, q[i].doc);
		CHECK(quantity_find(q[i].name) == &q[i], "%s is not found as itself (a duplicate name?)", q[i].name);
		CHECK(judge_is_quantity(q[i].name), "%s is no quantity to the parser", q[i].name);
		/* The fifo-hog-share tasks are in no cgroup: those quantities have no value there. */
		CHECK(judge_quantity(&hc.jc, q[i].name, &v) != q[i].needs_cgroup && isfinite(v), "%s = %g",
		      q[i].name, v);
	}
	CHECK(!quantity_find("share") && !judge_is_quantity("hog"), "an alias or a task taken for a quantity");
	hog_case_unload();
}

TEST(judge_fifo_hog_starved_victim)
{
	static const char hog[] = "{\"cpu_share\": 0.999, \"gap_max_us\": 20, \"throttle_events\": 0}";
	static const char starved[] = "{\"cpu_share\": 0.0, \"starvation_max_us\": 10000000, \"starvation_events\": 1}";
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	/* No limit (6.1 at runtime -1): a victim off the CPU for the whole window is the expectation. */
	n = hog_case_judge(6, 1, 0, "unlimited", 0, hog, starved);
	CHECK(hc.limiter.regime == REGIME_NO_LIMIT && n >= 3, "regime %s, %d checks", regime_name(hc.limiter.regime), n);
	CHECK(failed_checks(hc.checks, n) == 0, "starvation under no-limit fails %d checks", failed_checks(hc.checks, n));
	report_failures("no-limit", hc.checks, n);
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->kind == CHECK_AT_LEAST && NEAR(c->expected, 10e6), "no-limit starvation check");

	/* A victim that got 5% under no-limit contradicts it. */
	n = hog_case_judge(6, 1, 0, "unlimited", 0, hog, "{\"cpu_share\": 0.05, \"starvation_max_us\": 950000}");
	c = find_check(hc.checks, n, "victim", "cpu_share");
	CHECK(c && !c->passed, "a victim with 5%% under no-limit passes");

	/* The same starvation under classic throttling fails. */
	n = hog_case_judge(6, 1, 0, "default", 0, hog, starved);
	c = find_check(hc.checks, n, "victim", "cpu_share");
	CHECK(c && !c->passed, "a starved victim passes its share check under classic throttling");
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && !c->passed, "a whole-window starvation passes under classic throttling");
	c = find_check(hc.checks, n, "hog", "cpu_share");
	CHECK(c && !c->passed, "an unthrottled hog passes under classic throttling");
	hog_case_unload();
}

TEST(kernel_model_observation_judge)
{
	struct kernel_model classic = model(6, 1, 0), fs_only = model(6, 12, 0), both = model(6, 18, 1);
	struct regime_observation o;

	memset(&o, 0, sizeof(o));
	o.done = true;
	o.hog_alone_share = 0.95;
	o.hog_alone_gap_max_us = 50000;
	o.victim_share_unlimited = 0.0;
	regime_observation_judge(&classic, &o);
	CHECK(o.throttle_seen && !o.fair_server_seen && o.agrees, "6.1 classic behaviour: seen %d/%d agrees %d",
	      o.throttle_seen, o.fair_server_seen, o.agrees);
	CHECK(o.evidence[0] != '\0', "no evidence");
	regime_observation_judge(&fs_only, &o);
	CHECK(!o.agrees, "classic behaviour agrees with a fair-server-only model");
	regime_observation_judge(&both, &o);
	CHECK(!o.agrees, "no fair server seen agrees with a 6.18 model");

	/* A lone hog not throttled, CFS served at -1: the fair-server-only kernel. */
	o.hog_alone_share = 0.999;
	o.hog_alone_gap_max_us = 30;
	o.victim_share_unlimited = 0.05;
	regime_observation_judge(&fs_only, &o);
	CHECK(!o.throttle_seen && o.fair_server_seen && o.agrees, "6.12 rg=0 behaviour: seen %d/%d agrees %d",
	      o.throttle_seen, o.fair_server_seen, o.agrees);
	regime_observation_judge(&classic, &o);
	CHECK(!o.agrees, "fair-server behaviour agrees with 6.1");
	regime_observation_judge(&both, &o);
	CHECK(!o.agrees, "no throttling agrees with a 6.18 rg=1 model");

	/* Throttled and a fair server: 6.18 with RT group scheduling. */
	o.hog_alone_share = 0.95;
	o.hog_alone_gap_max_us = 50000;
	o.victim_share_unlimited = 0.05;
	regime_observation_judge(&both, &o);
	CHECK(o.throttle_seen && o.fair_server_seen && o.agrees, "6.18 rg=1 behaviour: seen %d/%d agrees %d",
	      o.throttle_seen, o.fair_server_seen, o.agrees);

	/* One 48 ms slot in a window whose phase held only one: 0.9757, still throttling (6.1-rt). */
	o.hog_alone_share = 0.9757;
	o.hog_alone_gap_max_us = 48200;
	o.victim_share_unlimited = 0.0;
	regime_observation_judge(&classic, &o);
	CHECK(o.throttle_seen && o.agrees, "one slot in the window: seen %d agrees %d", o.throttle_seen, o.agrees);
	o.hog_alone_gap_max_us = 4000;	/* a few ms of VM noise is no throttling */
	regime_observation_judge(&classic, &o);
	CHECK(!o.throttle_seen, "a 4 ms gap at 0.9757 taken for throttling");
	/* An emulated guest loses 3% in short gaps (6.12-rt under TCG): still no throttling. */
	o.hog_alone_share = 0.9704;
	o.hog_alone_gap_max_us = 3700;
	regime_observation_judge(&fs_only, &o);
	CHECK(!o.throttle_seen, "0.9704 in gaps of 3.7 ms at most taken for throttling");
	o.hog_alone_gap_max_us = 30;

	/* Nothing limits anything: agrees with no model here. */
	o.hog_alone_share = 1.0;
	o.victim_share_unlimited = 0.0;
	regime_observation_judge(&classic, &o);
	CHECK(!o.throttle_seen && !o.fair_server_seen && !o.agrees, "no-limit behaviour agrees with 6.1");
}

TEST(kernel_model_json_shape)
{
	struct kernel_model m = model(6, 18, 1);
	struct regime_observation o;
	json_object *obj, *pred, *v;

	memset(&o, 0, sizeof(o));
	obj = kernel_model_to_json(&m, NULL);
	CHECK(json_object_object_get_ex(obj, "predicted", &pred), "no predicted");
	CHECK(json_object_object_get_ex(pred, "fair_server", &v) && json_object_get_boolean(v), "fair_server");
	CHECK(json_object_object_get_ex(pred, "rt_bandwidth", &v) && json_object_get_boolean(v), "rt_bandwidth");
	CHECK(!json_object_object_get_ex(obj, "observed", NULL), "observed without a probe");
	json_object_put(obj);

	o.done = true;
	o.hog_alone_share = 0.95;
	o.hog_alone_gap_max_us = 50000;
	o.victim_share_unlimited = 0.05;
	regime_observation_judge(&m, &o);
	obj = kernel_model_to_json(&m, &o);
	CHECK(json_object_object_get_ex(obj, "observed", NULL), "no observed after the probe");
	CHECK(json_object_object_get_ex(obj, "agrees", &v) && json_object_get_boolean(v), "agrees");
	json_object_put(obj);
}

/* The trace checks: the hog's own gaps against sched_switch, and a result without a trace. */
TEST(judge_fifo_hog_against_the_trace)
{
	const struct check *c = NULL;
	int n;

	if (!hog_case_load())
		return;
	/* The hog missed half the throttles sched_switch shows, and its longest gap is 20 ms off. */
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 1,"
			" \"throttle_events\": 5, \"gap_max_us\": 30000}";
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	for (int i = 0; i < n; i++)
		if (!strcmp(hc.checks[i].metric, "throttle_events") && NEAR(hc.checks[i].expected, 5))
			c = &hc.checks[i];
	CHECK(c && c->was_measured && !c->passed && NEAR(c->tolerance, 2), "throttle events against the trace");
	c = NULL;
	for (int i = 0; i < n; i++)
		if (!strcmp(hc.checks[i].metric, "gap_max_us") && NEAR(hc.checks[i].expected, 30000))
			c = &hc.checks[i];
	CHECK(c && c->was_measured && !c->passed && NEAR(c->tolerance, 200), "longest gap against the trace: 2 x noise");
	/* Lost events: the longest gap is not compared. */
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 3, \"gaps_unresolved\": 0,"
			" \"throttle_events\": 10, \"gap_max_us\": 30000}";
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	for (int i = 0; i < n; i++)
		CHECK(hc.checks[i].not_applicable || !NEAR(hc.checks[i].expected, 30000),
		      "a trace with lost events judged the longest gap");
	/* No trace: the trace checks are not measured, and say why. */
	hc.trace_json = "{\"status\": \"skipped\", \"reason\": \"built without libtracefs\"}";
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	c = NULL;
	for (int i = 0; i < n; i++)
		if (!hc.checks[i].was_measured)
			c = &hc.checks[i];
	CHECK(c && strstr(c->rule, "no trace (built without libtracefs)"), "rule of an unmeasured trace check: %s",
	      c ? c->rule : "none");
	CHECK(failed_checks(hc.checks, n) == 0, "no trace fails nothing");
	hc.trace_json = NULL;
	hog_case_unload();
}

/*
 * The hypervisor stole a slot's worth while the hog ran: RT reached its runtime only after
 * the period ended, no throttle, CFS waited a period more (seen: 10.1 ms of a 200 ms period
 * with a 10 ms slot, CFS 1 us in it, its longest wait 484 ms against 380 ms). That is what a
 * missed throttle looks like: the longest wait is unjudged then, and judged when less was stolen.
 */
TEST(judge_a_slot_the_hypervisor_took_leaves_the_longest_cfs_wait_unjudged)
{
	static const char victim_lost_a_slot[] =
		"{\"window_s\": 10, \"cpu_share\": 0.045, \"cpu_share_periods\": 0.045, \"periods_span_s\": 9,"
		" \"starvation_max_us\": 2900000, \"starvation_events\": 9, \"starvation_median_us\": 950000,"
		" \"cfs_period_min_us\": 50000, \"fs_period_min_us\": 50000, \"fs_grid_step_us\": 500, \"cfs_grid_step_us\": 100,"
		" \"cfs_placement_us\": 500, \"fs_placement_us\": 500, \"stall_max_us\": 0, \"cpu_sample_us\": 250}";
	const struct check *c;
	int n;

	if (!hog_case_load())
		return;
	/* 20 ms stolen of a 50 ms slot: no slot lost, a wait of three RT runs fails. */
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
			" \"throttle_events\": 10, \"gap_max_us\": 50000, \"uncharged_us\": 20000}";
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, victim_lost_a_slot);
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->was_measured && !c->passed, "20 ms stolen: the 2.9 s wait fails");
	/* 50.5 ms stolen while the hog ran (/proc/stat read 0): a slot may be lost, unjudged. */
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
			" \"throttle_events\": 10, \"gap_max_us\": 50000, \"uncharged_us\": 50500}";
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, victim_lost_a_slot);
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->hollow && !c->was_measured && strstr(c->rule, "slots_stolen"),
	      "a slot stolen: unjudged naming it: %s", c ? c->rule : "none");
	/* As much stolen, but no 1 s period held 50 ms of it: no slot could be lost, judged. */
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
			" \"throttle_events\": 10, \"gap_max_us\": 50000, \"uncharged_us\": 50500,"
			" \"uncharged_max_us\": 30000, \"uncharged_span_us\": 1000000}";
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, victim_lost_a_slot);
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->was_measured && !c->passed, "50.5 ms stolen, at most 30 ms in a period: judged, fails");
	/*
	 * 50.5 ms uncharged in one period, but /proc/stat read 10 ms (20 ms at most): the rest was
	 * each switch's uncharged microseconds, not steal. Judged, fails.
	 */
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
			" \"throttle_events\": 10, \"gap_max_us\": 50000, \"uncharged_us\": 50500}";
	hc_steal_most_us = 20000;
	n = hog_case_judge(6, 1, 0, "default", 10000, textbook_hog, victim_lost_a_slot);
	hc_steal_most_us = 0;
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->was_measured && !c->passed, "uncharged past what /proc/stat allows: judged, fails");
	/* Untraced: the window's /proc/stat steal stands in. */
	hc.trace_json = "{\"status\": \"skipped\", \"reason\": \"built without libtracefs\"}";
	n = hog_case_judge(6, 1, 0, "default", 60000, textbook_hog, victim_lost_a_slot);
	c = find_check(hc.checks, n, "victim", "starvation_max_us");
	CHECK(c && c->hollow, "untraced, 60 ms of steal: unjudged");
	hc.trace_json = NULL;
	hog_case_unload();
}

/* The regime a scenario meets on 6.12 PREEMPT_RT (ktimers, a fair server, no RT throttling). */
static enum regime scenario_regime_612rt(const char *file, const char *policy)
{
	struct kernel_facts k = facts(6, 12, 0, 250);
	struct kernel_model m;
	struct scenario s;
	struct policy p = builtin(policy);
	struct limiter l;
	char path[PATH_MAX];

	k.timer_thread_priority = 1;
	kernel_model_predict(&k, &m);
	snprintf(path, sizeof(path), "%.4000s/%s", scenario_dir(), file);
	if (!scenario_parse_file(path, &s)) {
		CHECK(0, "cannot load %s", path);
		return REGIME_COUNT;
	}
	run_scenario_limiter(&m, &s, &p, &l);
	scenario_release(&s);
	return l.regime;
}

TEST(scenario_regime_on_preempt_rt_follows_how_cfs_wakes)
{
	enum regime r;

	/* The victim sleeps on a timer until the hog already spins: ktimers never wakes it. */
	r = scenario_regime_612rt("fifo-hog-share.json", "default");
	CHECK(r == REGIME_NO_LIMIT, "fifo-hog-share: %s", regime_name(r));
	/* The kworker is woken by its work queue: the fair server serves it. */
	r = scenario_regime_612rt("kernel-work.json", "unlimited");
	CHECK(r == REGIME_FAIR_SERVER_ONLY, "kernel-work: %s", regime_name(r));
	/* The victim runs before the first burst: the fair server serves it during bursts. */
	r = scenario_regime_612rt("burst.json", "default");
	CHECK(r == REGIME_FAIR_SERVER_ONLY, "burst: %s", regime_name(r));
	/* No CFS task of the scenario at all: RT throttling or nothing (none here). */
	r = scenario_regime_612rt("rt-probe-collateral.json", "default");
	CHECK(r == REGIME_NO_LIMIT, "rt-probe-collateral: %s", regime_name(r));
}

/*
 * A shipped scenario judged on a kernel as run_case.c judges it: the scenario's limiter (which
 * regime its tasks meet), then its checks on the given metrics. The noise floor and window are
 * those of a QEMU/TCG guest (Debian 6.12-rt, make matrix).
 */
static struct {
	struct scenario s;
	struct kernel_model km;
	struct policy policy;
	struct limiter limiter;
	struct noise_floor noise;
	struct check checks[SCENARIO_CHECKS_MAX];
	int n;
} sj;

static struct kernel_facts facts_rt(int major, int minor)
{
	struct kernel_facts k = facts(major, minor, 0, 250);

	k.timer_thread_priority = 1;	/* ktimers/N at FIFO 1 */
	return k;
}

/* CPU time other tasks took on the measured CPU in the window (judge_context.others_us). */
static double sj_others_us;
static const char *sj_trace;	/* the window's trace block as JSON, or NULL: not traced */
/* The noise floor's wall-time loss, when not the QEMU guest's (0: 0.062). */
static double sj_noise_wall;

/* metrics: task name, metrics JSON, ... , NULL. Returns how many checks apply. */
static int scenario_judge(const char *file, const struct kernel_facts *k, double sweep_value, const char *const *metrics)
{
	struct judge_context jc;
	char path[PATH_MAX];

	memset(&sj, 0, sizeof(sj));
	snprintf(path, sizeof(path), "%.4000s/%s", scenario_dir(), file);
	if (!scenario_parse_file(path, &sj.s)) {
		CHECK(0, "cannot load %s", path);
		return -1;
	}
	kernel_model_predict(k, &sj.km);
	sj.policy = sj.s.policies[0];
	run_scenario_limiter(&sj.km, &sj.s, &sj.policy, &sj.limiter);
	sj.noise = (struct noise_floor){ .window_s = 1, .gap_max_us = 2418, .loss_share = sj_noise_wall > 0 ? sj_noise_wall : 0.062,
					 .cpu_loss_share = 0.001 };
	memset(&jc, 0, sizeof(jc));
	jc.scenario = &sj.s;
	jc.model = &sj.km;
	jc.limiter = &sj.limiter;
	jc.policy = &sj.policy;
	jc.noise = &sj.noise;
	jc.window_s = 2;
	jc.others_us = sj_others_us;
	jc.sweep_value = sweep_value;
	jc.trace = sj_trace ? parse(sj_trace) : NULL;
	for (int i = 0; metrics[i]; i += 2) {
		int t = scenario_task_index(&sj.s, metrics[i]);

		CHECK(t >= 0, "%s has no task %s", file, metrics[i]);
		if (t >= 0)
			jc.metrics[t] = parse(metrics[i + 1]);
	}
	sj.n = judge_result(&jc, sj.checks, SCENARIO_CHECKS_MAX);
	for (int i = 0; i < TASKS_MAX; i++)
		json_object_put(jc.metrics[i]);
	json_object_put(jc.trace);
	scenario_release(&sj.s);
	return sj.n;
}

/* remote-refill's tasks as the Debian 6.12 guest measured them: no throttle in any burst. */
static const char *const refill_612[] = {
	"remote", "{\"cpu_share\": 0.0769, \"wakeups\": 1918, \"latency_us\": {\"max\": 2118.4}}",
	"hog", "{\"cpu_share\": 0.5033, \"gap_max_us\": 5121.3, \"throttle_events\": 0, \"bursts\": 3,"
	       " \"throttle_events_in_bursts\": 0, \"throttle_events_outside_bursts\": 0}",
	"victim", "{\"cpu_share\": 0.4948, \"starvation_max_us\": 301205}",
	NULL,
};

TEST(remote_refill_without_rt_groups_expects_no_throttle)
{
	struct kernel_facts k612 = facts(6, 12, 0, 250), k612rt = facts_rt(6, 12), k618 = facts(6, 18, 1, 250);
	const char *const refill_slow_fs[] = {
		"remote", refill_612[1],
		"hog", "{\"cpu_share\": 0.45, \"gap_max_us\": 120000, \"throttle_events\": 2, \"bursts\": 3,"
		       " \"throttle_events_in_bursts\": 2, \"throttle_events_outside_bursts\": 0}",
		"victim", refill_612[5], NULL,
	};
	const char *const refill_remote_stalled[] = {
		"remote", "{\"cpu_share\": 0.05, \"wakeups\": 1800, \"latency_us\": {\"max\": 120000.0}}",
		"hog", refill_612[3], "victim", refill_612[5], NULL,
	};
	const char *const refill_throttled[] = {
		"remote", refill_612[1],
		"hog", "{\"cpu_share\": 0.48, \"gap_max_us\": 9000, \"throttle_events\": 9, \"bursts\": 3,"
		       " \"throttle_events_in_bursts\": 9, \"throttle_events_outside_bursts\": 0}",
		"victim", refill_612[5], NULL,
	};
	const struct check *c;
	int n;

	/*
	 * 6.12 without RT group scheduling: rt.c accounts no RT runtime (update_curr_rt's
	 * accounting and the period timer are CONFIG_RT_GROUP_SCHED only), so 95000/100000 throttles
	 * nothing and there is nothing to refill: the fair server is the only limit.
	 */
	n = scenario_judge("remote-refill.json", &k612, 0, refill_612);
	CHECK(sj.limiter.regime == REGIME_FAIR_SERVER_ONLY, "6.12: %s", regime_name(sj.limiter.regime));
	CHECK(!find_check(sj.checks, n, "hog", "throttle_events_in_bursts"), "6.12: a throttle in every burst expected");
	c = find_check(sj.checks, n, "hog", "gap_max_us");
	CHECK(c && c->was_measured && c->passed && NEAR(c->expected, 50000), "6.12: the hog's longest gap against the fair server's runtime (%g)",
	      c ? c->expected : -1);
	c = find_check(sj.checks, n, "remote", "latency_us.max");
	CHECK(c && c->passed && NEAR(c->expected, 99000), "6.12: the remote probe not judged woken every period (%g)",
	      c ? c->expected : -1);
	CHECK(n >= 2 && failed_checks(sj.checks, n) == 0, "6.12 guest: %d checks, %d fail", n, failed_checks(sj.checks, n));
	report_failures("remote-refill 6.12", sj.checks, n);
	/* The fair server holding RT off for longer than its runtime is caught. */
	n = scenario_judge("remote-refill.json", &k612, 0, refill_slow_fs);
	c = find_check(sj.checks, n, "hog", "gap_max_us");
	CHECK(c && c->was_measured && !c->passed, "6.12: a 120 ms gap passes under the fair server alone");
	/* A remote probe that missed a whole period let the timer stop there: the premise is not met. */
	n = scenario_judge("remote-refill.json", &k612, 0, refill_remote_stalled);
	c = find_check(sj.checks, n, "remote", "latency_us.max");
	CHECK(c && c->was_measured && !c->passed, "6.12: a remote probe 120 ms late passes");
	/* PREEMPT_RT: the burst hog sleeps between bursts, the victim wakes and runs: the same. */
	n = scenario_judge("remote-refill.json", &k612rt, 0, refill_612);
	CHECK(sj.limiter.regime == REGIME_FAIR_SERVER_ONLY && n >= 2 && failed_checks(sj.checks, n) == 0,
	      "6.12-rt: %s, %d checks, %d fail", regime_name(sj.limiter.regime), n, failed_checks(sj.checks, n));

	/* With RT group scheduling (6.18) the bursts must be throttled, and refilled each period. */
	n = scenario_judge("remote-refill.json", &k618, 0, refill_612);
	c = find_check(sj.checks, n, "hog", "throttle_events_in_bursts");
	CHECK(sj.limiter.regime == REGIME_CLASSIC && c && c->was_measured && !c->passed,
	      "6.18: bursts without a throttle pass (%s)", regime_name(sj.limiter.regime));
	n = scenario_judge("remote-refill.json", &k618, 0, refill_throttled);
	CHECK(n >= 3 && failed_checks(sj.checks, n) == 0, "6.18 throttled in every burst: %d checks, %d fail", n,
	      failed_checks(sj.checks, n));
	report_failures("remote-refill 6.18", sj.checks, n);
	/* 6.1 and 6.1-rt throttle RT classically (the victim runs before the first burst). */
	k612 = facts(6, 1, 0, 250);
	scenario_judge("remote-refill.json", &k612, 0, refill_throttled);
	CHECK(sj.limiter.regime == REGIME_CLASSIC, "6.1: %s", regime_name(sj.limiter.regime));
	k612rt = facts_rt(6, 1);
	scenario_judge("remote-refill.json", &k612rt, 0, refill_throttled);
	CHECK(sj.limiter.regime == REGIME_CLASSIC, "6.1-rt: %s", regime_name(sj.limiter.regime));
}

TEST(lone_hog_without_rt_groups_is_not_throttled)
{
	struct kernel_facts k612 = facts(6, 12, 0, 250), k618 = facts(6, 18, 1, 250), k61rt = facts_rt(6, 1);
	const char *const lone_612[] = {
		"hog", "{\"cpu_share\": 0.9992, \"cpu_share_periods\": 0.9992, \"periods_span_s\": 1, \"gap_max_us\": 3259}", NULL,
	};
	const char *const lone_throttled[] = {
		"hog", "{\"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 1, \"gap_max_us\": 50000,"
		       " \"rt_budget_excess_us\": 0, \"grid_step_us\": 100, \"grid_searched\": 1, \"cpu_sample_us\": 250}", NULL,
	};
	struct regime_observation o;
	const struct check *c;
	int n;

	/* No RT throttling and no CFS task for the fair server: the lone hog gets the whole CPU. */
	n = scenario_judge("regime.json", &k612, 0, lone_612);
	CHECK(sj.limiter.regime == REGIME_NO_LIMIT, "6.12 lone hog: %s", regime_name(sj.limiter.regime));
	c = find_check(sj.checks, n, "hog", "cpu_share_periods");
	CHECK(c && NEAR(c->expected, 1.0) && c->passed, "6.12 lone hog: expects %g", c ? c->expected : -1);
	CHECK(failed_checks(sj.checks, n) == 0, "6.12 lone hog: %d fail", failed_checks(sj.checks, n));
	/* The same figures where RT throttling acts (6.18 with RT groups) fail. */
	n = scenario_judge("regime.json", &k618, 0, lone_612);
	CHECK(sj.limiter.regime == REGIME_CLASSIC && failed_checks(sj.checks, n) > 0, "6.18: an unthrottled lone hog passes");
	/* 6.1-rt: a lone hog is throttled (no CFS task waits for ktimers). */
	n = scenario_judge("regime.json", &k61rt, 0, lone_throttled);
	c = find_check(sj.checks, n, "hog", "cpu_share_periods");
	CHECK(sj.limiter.regime == REGIME_CLASSIC && c && NEAR(c->expected, 0.95) && failed_checks(sj.checks, n) == 0,
	      "6.1-rt lone hog: %s expects %g, %d fail", regime_name(sj.limiter.regime), c ? c->expected : -1,
	      failed_checks(sj.checks, n));

	/*
	 * 6.18 host: a task woken on the hog's CPU took 18 ms of a period's rest before the
	 * throttle (the fair server serves it), which then idled the CPU 31.6 ms: the promise
	 * holds, the longest gap is shorter than the slot by what the other took. With no other
	 * task there the same gap is a throttle cut short, and one beyond the slot fails either way.
	 */
	{
		const char *const shortened[] = {
			"hog", "{\"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 2, \"gap_max_us\": 31612,"
			       " \"rt_budget_excess_us\": 0, \"grid_step_us\": 100, \"grid_searched\": 1, \"cpu_sample_us\": 250}", NULL,
		};
		const char *const too_long[] = {
			"hog", "{\"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 2, \"gap_max_us\": 70000,"
			       " \"rt_budget_excess_us\": 0, \"grid_step_us\": 100, \"grid_searched\": 1, \"cpu_sample_us\": 250}", NULL,
		};

		sj_others_us = 18400;
		n = scenario_judge("regime.json", &k618, 0, shortened);
		CHECK(failed_checks(sj.checks, n) == 0, "6.18, 18 ms to another task: a 31.6 ms throttle fails (%d)",
		      failed_checks(sj.checks, n));
		n = scenario_judge("regime.json", &k618, 0, too_long);
		c = find_check(sj.checks, n, "hog", "gap_max_us");
		CHECK(failed_checks(sj.checks, n) == 1 && c && !c->passed, "6.18: a 70 ms throttle passes");
		sj_others_us = 0;
		n = scenario_judge("regime.json", &k618, 0, shortened);
		CHECK(failed_checks(sj.checks, n) == 1, "6.18, nothing else there: a 31.6 ms throttle passes");
	}

	/* The regime probe saw the same on the 6.12 guest: it agrees with the model. */
	kernel_model_predict(&k612, &sj.km);
	memset(&o, 0, sizeof(o));
	o.done = true;
	o.hog_alone_share = 0.9992;
	o.hog_alone_gap_max_us = 3259;
	o.victim_share_unlimited = 0.0469;
	regime_observation_judge(&sj.km, &o);
	CHECK(!o.throttle_seen && o.fair_server_seen && o.agrees, "6.12 probe: %s", o.evidence);
}

/* duty-cycle at 0.96 as the Debian 6.12-rt guest measured it. */
static const char *const duty_612rt_096[] = {
	"app", "{\"cpu_share\": 0.9515, \"jobs\": 200, \"deadline_misses\": 161, \"throttled_misses\": 102, \"gaps_without_cfs\": 0,"
	       " \"job_cpu_us\": 9611.5}",
	"cfs", "{\"cpu_share\": 0.0390, \"starvation_max_us\": 730965, \"fs_periods\": 1, \"fs_period_min_us\": 52000,"
	       " \"fs_grid_step_us\": 250, \"fs_placement_us\": 500}",
	NULL,
};

TEST(duty_cycle_on_preempt_rt_meets_the_fair_server)
{
	struct kernel_facts k612rt = facts_rt(6, 12), k61rt = facts_rt(6, 1);
	const char *const starved_cfs[] = {
		"app", duty_612rt_096[1],
		"cfs", "{\"cpu_share\": 0.0, \"starvation_max_us\": 2000000, \"fs_periods\": 1, \"fs_period_min_us\": 0,"
		       " \"fs_grid_step_us\": 250, \"fs_placement_us\": 500}",
		NULL,
	};
	const char *const app_05[] = {
		"app", "{\"cpu_share\": 0.515, \"jobs\": 200, \"deadline_misses\": 1, \"throttled_misses\": 3, \"gaps_without_cfs\": 0, \"job_cpu_us\": 5005}",
		"cfs", "{\"cpu_share\": 0.479, \"starvation_max_us\": 12460, \"fs_periods\": 1, \"fs_period_min_us\": 480000,"
		       " \"fs_grid_step_us\": 250, \"fs_placement_us\": 500}",
		NULL,
	};
	const struct check *c;
	int n;

	/*
	 * The app sleeps between jobs: ktimers runs, the CFS task wakes and from then on spins, so
	 * the fair server serves it (it got 0.046 beside a 0.96 app in the guest) and takes its
	 * 50 ms a second from RT: throttled misses above 0.95 are the fair server's, not a failure.
	 */
	n = scenario_judge("duty-cycle.json", &k612rt, 0.96, duty_612rt_096);
	CHECK(sj.limiter.regime == REGIME_FAIR_SERVER_ONLY && NEAR(sj.limiter.hog_share, 0.95),
	      "6.12-rt duty-cycle: %s share %g", regime_name(sj.limiter.regime), sj.limiter.hog_share);
	c = find_check(sj.checks, n, "cfs", "fs_period_min_us");
	CHECK(c && c->was_measured && c->passed, "6.12-rt duty-cycle: the fair server's promise not judged or failed");
	c = find_check(sj.checks, n, "app", "throttled_misses");
	CHECK(!c || c->passed, "6.12-rt duty-cycle 0.96: throttled misses expected 0 beside the fair server");
	CHECK(failed_checks(sj.checks, n) == 0, "6.12-rt duty-cycle 0.96: %d fail", failed_checks(sj.checks, n));
	report_failures("duty-cycle 6.12-rt", sj.checks, n);
	/* A CFS task the fair server never served breaks its promise. */
	n = scenario_judge("duty-cycle.json", &k612rt, 0.96, starved_cfs);
	c = find_check(sj.checks, n, "cfs", "fs_period_min_us");
	CHECK(c && c->was_measured && !c->passed, "6.12-rt duty-cycle: a starved CFS task passes");
	/* Far below the RT share, a throttled miss is still a failure. */
	n = scenario_judge("duty-cycle.json", &k612rt, 0.5, app_05);
	c = find_check(sj.checks, n, "app", "throttled_misses");
	CHECK(c && c->was_measured && !c->passed, "6.12-rt duty-cycle 0.5: 3 throttled misses pass");
	/*
	 * One miss whose gap the CFS task slept through (the debate suite's ten-second window: a
	 * 19 ms stall, then 200 ms of catching up) is the machine's: the count cannot be judged
	 * to 0 there, and it is not failed; a second miss beyond it still is.
	 */
	{
		const char *const stalled[] = {
			"app", "{\"cpu_share\": 0.515, \"jobs\": 200, \"deadline_misses\": 1, \"throttled_misses\": 1,"
			       " \"gaps_without_cfs\": 1, \"job_cpu_us\": 5005}",
			"cfs", app_05[3], NULL,
		};
		const char *const beyond[] = {
			"app", "{\"cpu_share\": 0.515, \"jobs\": 200, \"deadline_misses\": 2, \"throttled_misses\": 3,"
			       " \"gaps_without_cfs\": 1, \"job_cpu_us\": 5005}",
			"cfs", app_05[3], NULL,
		};

		n = scenario_judge("duty-cycle.json", &k612rt, 0.5, stalled);
		c = find_check(sj.checks, n, "app", "throttled_misses");
		CHECK(c && c->was_measured && (c->passed || c->hollow) && failed_checks(sj.checks, n) == 0,
		      "a stall's miss: %s", c ? (c->passed ? "passed" : "failed") : "absent");
		n = scenario_judge("duty-cycle.json", &k612rt, 0.5, beyond);
		c = find_check(sj.checks, n, "app", "throttled_misses");
		CHECK(c && c->was_measured && !c->passed && !c->hollow, "3 misses, 1 stall: not failed");
	}
	/*
	 * The Debian 6.12-rt guest: timer interrupts held back 28.5 ms while the CFS task ran
	 * through, so the job released in them answered in 30.3 ms (a 25 ms throttle gap), and
	 * the backlog could hold the next one 5 ms less: 2 misses are the machine's, as many as a
	 * throttle cutting into one job a period would make in 2 s, so 1 is not judged, 3 fail.
	 * 6.1: held back 37.4 ms, 3 misses at 0.5, up to 4 the machine's. With the tick on time
	 * one miss fails.
	 */
	{
		const char *const held[] = {
			"app", "{\"cpu_share\": 0.5235, \"jobs\": 200, \"deadline_misses\": 8, \"throttled_misses\": 1,"
			       " \"gaps_without_cfs\": 0, \"throttle_gap_us\": 25000, \"job_cpu_us\": 5007}",
			"cfs", app_05[3], NULL,
		};
		const char *const three[] = {
			"app", "{\"cpu_share\": 0.5235, \"jobs\": 200, \"deadline_misses\": 8, \"throttled_misses\": 3,"
			       " \"gaps_without_cfs\": 0, \"throttle_gap_us\": 25000, \"job_cpu_us\": 5007}",
			"cfs", app_05[3], NULL,
		};

		sj_trace = "{\"status\": \"recorded\", \"tick\": {\"late_max_us\": 28552.9}}";
		n = scenario_judge("duty-cycle.json", &k612rt, 0.5, held);
		c = find_check(sj.checks, n, "app", "throttled_misses");
		CHECK(c && !c->passed && c->hollow && NEAR(c->tolerance, 2) && NEAR(c->detects, 2),
		      "held back 28.5 ms: %s, tolerance %g, detects %g", c ? (c->passed ? "passed" : "not passed") : "absent",
		      c ? c->tolerance : -1, c ? c->detects : -1);
		CHECK(failed_checks(sj.checks, n) == 0, "held back 28.5 ms: %d fail", failed_checks(sj.checks, n));
		n = scenario_judge("duty-cycle.json", &k612rt, 0.5, three);
		c = find_check(sj.checks, n, "app", "throttled_misses");
		CHECK(c && c->was_measured && !c->passed && !c->hollow, "held back 28.5 ms: 3 misses pass");
		sj_trace = "{\"status\": \"recorded\", \"tick\": {\"late_max_us\": 37431.3}}";
		n = scenario_judge("duty-cycle.json", &k612rt, 0.5, three);
		c = find_check(sj.checks, n, "app", "throttled_misses");
		CHECK(c && NEAR(c->tolerance, 4) && failed_checks(sj.checks, n) == 0, "held back 37.4 ms: tolerance %g",
		      c ? c->tolerance : -1);
		sj_trace = "{\"status\": \"recorded\", \"tick\": {\"late_max_us\": 3000}}";
		n = scenario_judge("duty-cycle.json", &k612rt, 0.5, held);
		c = find_check(sj.checks, n, "app", "throttled_misses");
		CHECK(c && c->was_measured && !c->passed && !c->hollow, "the tick on time: a throttled miss passes");
		sj_trace = NULL;
	}
	/*
	 * The machine charges the wall time it takes to the running task, RT included: in a QEMU
	 * guest (6% of wall time lost) a 0.94 app is not below the RT share (the Debian 6.12 guest:
	 * 98 throttled misses at 0.94, its jobs and wake-ups 0.947 of the CPU); with 2% lost (this
	 * VM) a 0.9 app is, and a throttled miss there fails.
	 */
	{
		const char *const app_094[] = {
			"app", "{\"cpu_share\": 0.947, \"jobs\": 200, \"deadline_misses\": 108, \"throttled_misses\": 98, \"gaps_without_cfs\": 0,"
			       " \"job_cpu_us\": 9406}",
			"cfs", "{\"cpu_share\": 0.05, \"fs_periods\": 1, \"fs_period_min_us\": 60000, \"fs_grid_step_us\": 250, \"fs_placement_us\": 500}",
			NULL,
		};
		const char *const app_09[] = {
			"app", "{\"cpu_share\": 0.903, \"jobs\": 200, \"deadline_misses\": 3, \"throttled_misses\": 3, \"gaps_without_cfs\": 0,"
			       " \"job_cpu_us\": 9001}",
			"cfs", app_094[3], NULL,
		};
		struct kernel_facts k612 = facts(6, 12, 0, 250);
		const struct check *b;

		n = scenario_judge("duty-cycle.json", &k612, 0.94, app_094);
		for (int i = 0; i < n; i++)
			CHECK(sj.checks[i].not_applicable || strcmp(sj.checks[i].label, "below_share"),
			      "6.12 guest at 0.94: judged below the RT share");
		sj_noise_wall = 0.02;
		n = scenario_judge("duty-cycle.json", &k612, 0.9, app_09);
		sj_noise_wall = 0;
		b = NULL;
		for (int i = 0; i < n; i++)
			if (!strcmp(sj.checks[i].label, "below_share"))
				b = &sj.checks[i];
		CHECK(b && b->was_measured && !b->passed, "0.9 with 2%% wall-time noise: 3 throttled misses pass");
	}
	/* 6.1-rt: RT throttling acts and the CFS task is awake: classic throttling. */
	scenario_judge("duty-cycle.json", &k61rt, 0.5, app_05);
	CHECK(sj.limiter.regime == REGIME_CLASSIC, "6.1-rt duty-cycle: %s", regime_name(sj.limiter.regime));
	/* Beside a hog that never sleeps the CFS task still never wakes there. */
	n = scenario_judge("fifo-hog-share.json", &k612rt, 0, (const char *const[]){ "hog", "{}", "victim", "{}", NULL });
	CHECK(sj.limiter.regime == REGIME_NO_LIMIT, "6.12-rt fifo-hog-share: %s", regime_name(sj.limiter.regime));
	scenario_judge("cfs-probe.json", &k61rt, 0, (const char *const[]){ "hog", "{}", "probe", "{}", NULL });
	CHECK(sj.limiter.regime == REGIME_TIMERS_STARVED, "6.1-rt cfs-probe: %s", regime_name(sj.limiter.regime));
}

TEST(regime_probe_running_cfs_on_preempt_rt)
{
	struct kernel_facts k612rt = facts_rt(6, 12), k61rt = facts_rt(6, 1), k612 = facts(6, 12, 0, 250);
	struct kernel_model m;
	struct regime_observation o;
	json_object *obj, *obs, *v;

	kernel_model_predict(&k612, &m);
	CHECK(!regime_probe_running_cfs(&m), "a third probe window without an RT timer thread");
	/* 6.12-rt: woken by a timer beside the hog, CFS starves; already running, the fair server serves it. */
	kernel_model_predict(&k612rt, &m);
	CHECK(regime_probe_running_cfs(&m), "no third probe window on PREEMPT_RT");
	o = make_regime_probe_seen(&m, 0.9911, 3426, 0.00003, RUNNING_PROBED, 0.046);
	CHECK(o.agrees && o.fair_server_seen && !o.timer_wakeup_served, "6.12-rt: %s", o.evidence);
	CHECK(strstr(o.evidence, "already running") != NULL, "evidence: %s", o.evidence);
	{
		/* The regime-probe result: a third check, and all pass exactly when the probe agrees. */
		struct check pc[REGIME_PROBE_CHECKS_MAX];
		int n = regime_probe_checks(&m, &o, pc);

		CHECK(n == 3 && !strcmp(pc[2].metric, "victim_running_share_unlimited") && pc[2].kind == CHECK_AT_LEAST &&
		      pc[0].passed && pc[1].passed && pc[2].passed && pc[1].kind == CHECK_AT_MOST,
		      "6.12-rt probe checks: %d, %s", n, n == 3 ? pc[2].rule : "");
		o.victim_running_share_unlimited = 0.0;
		regime_observation_judge(&m, &o);
		n = regime_probe_checks(&m, &o, pc);
		CHECK(n == 3 && !pc[2].passed && pc[0].passed && pc[1].passed && !o.agrees,
		      "6.12-rt without a working fair server: only the third check fails");
		o.victim_running_share_unlimited = 0.046;
		regime_observation_judge(&m, &o);
	}
	obj = kernel_model_to_json(&m, &o);
	CHECK(json_object_object_get_ex(obj, "observed", &obs) &&
	      json_object_object_get_ex(obs, "victim_running_share_unlimited", &v) && NEAR(json_object_get_double(v), 0.046),
	      "victim_running_share_unlimited missing");
	json_object_put(obj);
	/* No fair server serving the running task either: the model's fair server is contradicted. */
	o.victim_running_share_unlimited = 0.0;
	regime_observation_judge(&m, &o);
	CHECK(!o.agrees && !o.fair_server_seen, "6.12-rt without a working fair server agrees");
	/* A CFS task woken by its timer that is served: no ktimers starvation, contradicting PREEMPT_RT's. */
	o.victim_running_share_unlimited = 0.046;
	o.victim_share_unlimited = 0.046;
	regime_observation_judge(&m, &o);
	CHECK(!o.agrees, "6.12-rt: a timer wake-up served beside the hog agrees");
	/* 6.1-rt: throttled, no fair server: nothing for CFS at -1 either way. */
	kernel_model_predict(&k61rt, &m);
	o.hog_alone_share = 0.9757;
	o.hog_alone_gap_max_us = 48200;
	o.victim_share_unlimited = 0;
	o.victim_running_share_unlimited = 0.0001;
	regime_observation_judge(&m, &o);
	CHECK(o.agrees && !o.fair_server_seen, "6.1-rt: %s", o.evidence);
}

TEST(check_without_regimes_applies_in_every_regime)
{
	struct kernel_facts k61rt = facts_rt(6, 1);

	bool vs_trace = false;
	char buf[96];
	int n;

	/*
	 * fifo-hog-share on 6.1-rt is timers-starved; its checks naming no regime (the hog against
	 * the trace) apply there too.
	 */
	CHECK(REGIMES_ANY & 1u << REGIME_TIMERS_STARVED, "REGIMES_ANY leaves out timers-starved");
	CHECK(!strcmp(regime_mask_names(REGIMES_ANY, buf, sizeof(buf)), "any"), "REGIMES_ANY named %s", buf);
	n = scenario_judge("fifo-hog-share.json", &k61rt, 0, (const char *const[]){ "hog", textbook_hog, "victim", "{}", NULL });
	CHECK(sj.limiter.regime == REGIME_TIMERS_STARVED, "6.1-rt fifo-hog-share: %s", regime_name(sj.limiter.regime));
	for (int i = 0; i < n; i++)
		vs_trace |= !strcmp(sj.checks[i].label, "vs_trace");
	CHECK(vs_trace, "6.1-rt fifo-hog-share: the checks against the trace do not apply");
}

/*
 * Every quick-suite scenario says what it expects in the regime each of Debian's kernels puts
 * it in (6.1, 6.1 PREEMPT_RT, 6.12, 6.12 PREEMPT_RT; none has RT group scheduling): at every
 * policy some check applies, so no result there is unjudged for want of one. Checks whose
 * condition needs measured figures count as applying, as they do when those are missing.
 */
TEST(every_quick_scenario_is_judged_on_debian_kernels)
{
	static struct scenario s;
	const struct kernel_facts kernels[] = { facts(6, 1, 0, 250), facts_rt(6, 1), facts(6, 12, 0, 250), facts_rt(6, 12) };
	const char *const labels[] = { "6.1", "6.1-rt", "6.12", "6.12-rt" };
	struct noise_floor noise = { .window_s = 1, .gap_max_us = 2418, .loss_share = 0.062 };
	struct check checks[SCENARIO_CHECKS_MAX];
	struct dirent **names;
	int files = scandir(scenario_dir(), &names, NULL, alphasort), judged = 0;

	CHECK(files > 0, "cannot list %s", scenario_dir());
	for (int f = 0; f < files; f++) {
		const char *name = names[f]->d_name;
		size_t len = strlen(name);
		char path[PATH_MAX];

		if (len < 5 || strcmp(name + len - 5, ".json")) {
			free(names[f]);
			continue;
		}
		snprintf(path, sizeof(path), "%.3000s/%s", scenario_dir(), name);
		free(names[f]);
		if (!scenario_parse_file(path, &s)) {
			CHECK(0, "cannot load %s", path);
			continue;
		}
		/* Without RT group scheduling a scenario of RT cgroups is skipped, with why. */
		if (scenario_in_suite(&s, "quick") && !s.needs_rt_groups) {
			for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
				struct kernel_model km;

				kernel_model_predict(&kernels[k], &km);
				for (int p = 0; p < s.policy_count; p++) {
					struct limiter l;
					struct judge_context jc = {
						.scenario = &s, .model = &km, .limiter = &l, .policy = &s.policies[p],
						.noise = &noise, .window_s = 2,
						.sweep_value = s.sweep_count ? s.sweep_values[0] : 0,
					};
					int n;

					run_scenario_limiter(&km, &s, &s.policies[p], &l);
					n = judge_result(&jc, checks, SCENARIO_CHECKS_MAX);
					CHECK(n > 0, "%s.%s on %s (%s): no check applies", s.name, s.policies[p].name, labels[k],
					      regime_name(l.regime));
					judged += n > 0;
				}
			}
		}
		scenario_release(&s);
	}
	free(names);
	CHECK(judged >= 40, "only %d scenario x policy x kernel cases judged", judged);
}

TEST(live_change_on_preempt_rt)
{
	struct kernel_facts k61rt = facts_rt(6, 1), k612rt = facts_rt(6, 12);
	const char *const kept[] = {
		"hog", "{\"cpu_share\": 0.50, \"cpu_share_periods\": 0.50, \"periods_span_s\": 1}",
		"victim", "{\"cpu_share\": 0.0, \"starvation_max_us\": 2000000}", NULL,
	};
	const char *const not_propagated[] = {
		"hog", "{\"cpu_share\": 0.95, \"cpu_share_periods\": 0.95, \"periods_span_s\": 1}",
		"victim", "{\"cpu_share\": 0.0, \"starvation_max_us\": 2000000}", NULL,
	};
	const char *const unlimited[] = {
		"hog", "{\"cpu_share\": 0.966}", "victim", "{\"cpu_share\": 0.0, \"starvation_max_us\": 2000000}", NULL,
	};
	const struct check *c;
	int n;

	/* 6.1-rt: half throttles the hog (the CFS task never wakes): 0.5 kept, 0.95 is the runtime lost after -1. */
	n = scenario_judge("live-change.json", &k61rt, 0, kept);
	CHECK(sj.limiter.regime == REGIME_TIMERS_STARVED && n >= 2 && failed_checks(sj.checks, n) == 0,
	      "6.1-rt live-change: %s, %d checks, %d fail", regime_name(sj.limiter.regime), n, failed_checks(sj.checks, n));
	/* The starved CFS task is judged whatever the slots: a tick at each end, not a slot's share. */
	c = find_check(sj.checks, n, "victim", "cpu_share");
	CHECK(c && c->was_measured && c->passed && c->tolerance < 0.01, "6.1-rt live-change: the starved CFS task (tolerance %g)",
	      c ? c->tolerance : -1);
	n = scenario_judge("live-change.json", &k61rt, 0, not_propagated);
	c = find_check(sj.checks, n, "hog", "cpu_share_periods");
	CHECK(c && c->was_measured && !c->passed, "6.1-rt live-change: a runtime that never reached the run queue passes");
	/*
	 * 6.12-rt: nothing limits RT and the CFS task never wakes: the hog gets the CPU, less what
	 * the kernel's own threads took there (PREEMPT_RT's interrupt threads, ktimers, kworkers).
	 */
	sj_others_us = 0.034 * 2e6;
	n = scenario_judge("live-change.json", &k612rt, 0, unlimited);
	sj_others_us = 0;
	CHECK(sj.limiter.regime == REGIME_NO_LIMIT && n >= 2 && failed_checks(sj.checks, n) == 0,
	      "6.12-rt live-change: %s, %d checks, %d fail", regime_name(sj.limiter.regime), n, failed_checks(sj.checks, n));
	report_failures("live-change 6.12-rt", sj.checks, n);
}

/* A result passes only when every check that applies was judged and passed. */
TEST(judge_verdict_needs_every_check_judged)
{
	struct check c[3] = {
		{ .task = "hog", .metric = "cpu_share", .was_measured = true, .passed = true },
		{ .task = "hog", .metric = "gap_max_us", .label = "vs_trace", .was_measured = true, .passed = true },
		{ .task = "victim", .metric = "cfs_period_min_us", .was_measured = true, .passed = true },
	};
	char why[512];

	CHECK(judge_verdict(c, 3, why, sizeof(why)) == VERDICT_PASS && !why[0], "all judged and passed");
	CHECK(judge_verdict(c, 0, why, sizeof(why)) == VERDICT_UNJUDGED && strstr(why, "no check applies"),
	      "no check: %s", why);
	c[1].was_measured = false;
	snprintf(c[1].rule, sizeof(c[1].rule), "not measured: no trace (--no-trace)");
	CHECK(judge_verdict(c, 3, why, sizeof(why)) == VERDICT_UNJUDGED, "a check not measured passes");
	CHECK(strstr(why, "1 of 3") && strstr(why, "hog.gap_max_us.vs_trace (not measured: no trace"), "why: %s", why);
	c[1].no_trace = true;
	CHECK(judge_verdict(c, 3, why, sizeof(why)) == VERDICT_PASS, "a trace check without a trace: %s", why);
	c[1].no_trace = false;
	c[2].hollow = true;
	c[2].was_measured = false;
	CHECK(judge_verdict(c, 3, why, sizeof(why)) == VERDICT_UNJUDGED && strstr(why, "2 of 3"), "hollow: %s", why);
	c[0].passed = false;
	CHECK(judge_verdict(c, 3, why, sizeof(why)) == VERDICT_FAIL, "a failed check fails it, whatever else");
	/* Whatever the rules' length, why stays a terminated string. */
	for (int i = 0; i < 3; i++) {
		c[i].was_measured = false;
		memset(c[i].rule, 'x', sizeof(c[i].rule) - 1);
		c[i].rule[sizeof(c[i].rule) - 1] = '\0';
	}
	CHECK(judge_verdict(c, 3, why, 100) == VERDICT_UNJUDGED && strlen(why) < 100, "cut at its size");
}

/*
 * The share tolerance takes what the machine took from the noise floor's CPU clock (~0.1%
 * here), not the wall time its interrupts took (~2.8%, charged to whoever ran); CFS's rest
 * allows what other tasks took on the CPU in the window, or, unknown, that wall-time loss.
 */
TEST(judge_tolerances_from_the_cpu_clock_and_other_tasks)
{
	static const struct noise_floor vm = { .window_s = 1, .gap_max_us = 600, .loss_share = 0.028,
					       .cpu_loss_share = 0.0007 };
	const struct check *c;
	double quiet, busy, unknown, band = -1;
	int n;

	if (!hog_case_load())
		return;
	hc_noise = &vm;
	n = hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	c = find_check(hc.checks, n, "hog", "cpu_share_periods");
	/* Beside the fair server's band (its own test), which no noise widens. */
	CHECK(judge_quantity(&hc.jc, "fs_band", &band) && NEAR(band, 0.05), "fs_band %g", band);
	CHECK(c && c->was_measured && c->tolerance - band / 2 < 0.01, "share tolerance %.4f", c ? c->tolerance : -1);
	c = find_check(hc.checks, n, "victim", "cfs_period_min_us");
	quiet = c ? c->tolerance : -1;
	hc_others_us = 20000;
	n = hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	c = find_check(hc.checks, n, "victim", "cfs_period_min_us");
	busy = c ? c->tolerance : -1;
	CHECK(fabs(busy - quiet - 20000) < 1, "others' 20 ms widen CFS's rest by it: %.0f -> %.0f", quiet, busy);
	hc_others_us = -1;
	n = hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	c = find_check(hc.checks, n, "victim", "cfs_period_min_us");
	unknown = c ? c->tolerance : -1;
	CHECK(fabs(unknown - quiet - 0.028 * 10e6) < 1, "unknown: the wall-time loss over the window: %.0f", unknown);
	hc_others_us = 0;
	hc_noise = NULL;
	hog_case_unload();
}

/*
 * An RT period timer firing the machine delivered 12 ms late (its neighbours on time) moves
 * 12 ms of RT time across a period boundary: the per-period checks and time_tol allow it, and
 * a firing late only beside another late one (the timer's own drift) widens nothing.
 */
/* The per-period checks' tolerances and time_tol of a textbook window with this trace block. */
static void period_tolerances(const char *trace_json, double tol[3])
{
	static const char *const checks[][2] = { { "hog", "rt_budget_excess_us" }, { "victim", "cfs_period_min_us" } };
	int n;

	hc.trace_json = trace_json;
	n = hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	for (int i = 0; i < 2; i++) {
		const struct check *c = find_check(hc.checks, n, checks[i][0], checks[i][1]);

		tol[i] = c ? c->tolerance : -1;
	}
	hc.jc.trace = parse(trace_json);
	if (!judge_quantity(&hc.jc, "time_tol", &tol[2]))
		tol[2] = -1;
	json_object_put(hc.jc.trace);
	hc.jc.trace = NULL;
	hc.trace_json = NULL;
}

TEST(judge_a_timer_firing_delivered_late_widens_the_period_checks_by_its_lateness)
{
	static const char *const names[] = { "hog.rt_budget_excess_us", "victim.cfs_period_min_us", "time_tol" };
	double on_time[3], late[3];

	if (!hog_case_load())
		return;
	period_tolerances("{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
			  " \"rt_timer\": {\"late_max_us\": 0, \"late_not_excused_us\": 12000}}", on_time);
	period_tolerances("{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
			  " \"rt_timer\": {\"late_max_us\": 12000}}", late);
	for (int i = 0; i < 3; i++)
		CHECK(on_time[i] >= 0 && fabs(late[i] - on_time[i] - 12000) < 1, "%s: %.0f -> %.0f", names[i], on_time[i],
		      late[i]);
	hog_case_unload();
}

/*
 * A stall the kernel charged to a spinner on the measured CPU (the hypervisor, unreported as
 * steal) widens time_tol to it where it is longer than the noise floor's longest gap, and the
 * hog's gap against the trace by all of it; one on another CPU's task does not count.
 */
TEST(judge_a_charged_stall_in_the_window_widens_time_tol)
{
	double quiet = -1, stalled = -1, floor_only = -1;

	if (!hog_case_load())
		return;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	hc.jc.metrics[hc.hog] = parse("{\"charged_stall_max_us\": 50}");
	hc.jc.metrics[hc.victim] = parse("{\"charged_stall_max_us\": 8000}");
	CHECK(judge_quantity(&hc.jc, "time_tol", &stalled), "time_tol");
	json_object_put(hc.jc.metrics[hc.victim]);
	hc.jc.metrics[hc.victim] = parse("{\"charged_stall_max_us\": 60}");
	CHECK(judge_quantity(&hc.jc, "time_tol", &floor_only), "time_tol");
	json_object_put(hc.jc.metrics[hc.hog]);
	json_object_put(hc.jc.metrics[hc.victim]);
	hc.jc.metrics[hc.hog] = hc.jc.metrics[hc.victim] = NULL;
	CHECK(judge_quantity(&hc.jc, "time_tol", &quiet), "time_tol");
	/* The noise floor's longest gap here is 100 us. */
	CHECK(fabs(stalled - quiet - (8000 - 100)) < 1e-6, "stalled %.0f, quiet %.0f", stalled, quiet);
	CHECK(fabs(floor_only - quiet) < 1e-6, "below the floor's gap %.0f, quiet %.0f", floor_only, quiet);
	hog_case_unload();
}

/*
 * The measured CPU's tick held back while it was busy (timer interrupts the machine delivered
 * late) widens time_tol like a charged stall: the longest of the stalls counts, not their sum.
 */
TEST(judge_a_tick_held_back_on_the_busy_cpu_widens_time_tol)
{
	double quiet = -1, held = -1, both = -1;

	if (!hog_case_load())
		return;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	CHECK(judge_quantity(&hc.jc, "time_tol", &quiet), "time_tol");
	hc.jc.trace = parse("{\"status\": \"recorded\", \"tick\": {\"late_max_us\": 60000}}");
	CHECK(judge_quantity(&hc.jc, "time_tol", &held), "time_tol");
	hc.jc.metrics[hc.hog] = parse("{\"charged_stall_max_us\": 20000}");
	CHECK(judge_quantity(&hc.jc, "time_tol", &both), "time_tol");
	json_object_put(hc.jc.metrics[hc.hog]);
	json_object_put(hc.jc.trace);
	hc.jc.metrics[hc.hog] = NULL;
	hc.jc.trace = NULL;
	/* The noise floor's longest gap here is 100 us. */
	CHECK(fabs(held - quiet - (60000 - 100)) < 1e-6, "held %.0f, quiet %.0f", held, quiet);
	CHECK(fabs(both - held) < 1e-6, "with a shorter charged stall %.0f, held %.0f", both, held);
	hog_case_unload();
}

/*
 * The textbook hog's time_tol and stall_us with this trace block, and its time_tol without
 * one (the noise floor's longest gap there is 100 us); false when the case did not load.
 */
static bool time_tol_with_trace(const char *trace, double *quiet, double *with, double *stall)
{
	*quiet = *with = *stall = -1;
	if (!hog_case_load())
		return false;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	CHECK(judge_quantity(&hc.jc, "time_tol", quiet), "time_tol");
	hc.jc.trace = parse(trace);
	CHECK(judge_quantity(&hc.jc, "time_tol", with), "time_tol");
	CHECK(judge_quantity(&hc.jc, "stall_us", stall), "stall_us");
	json_object_put(hc.jc.trace);
	hc.jc.trace = NULL;
	hog_case_unload();
	return true;
}

/* A reschedule interrupt the machine delivered late to the idle measured CPU widens time_tol as a stall. */
TEST(judge_a_reschedule_interrupt_delivered_late_widens_time_tol)
{
	double quiet, late, stall;

	if (!time_tol_with_trace("{\"status\": \"recorded\", \"ipi\": {\"late_max_us\": 15900},"
				 " \"tick\": {\"late_max_us\": 3000}}", &quiet, &late, &stall))
		return;
	/* The longest stall counts, not the sum. */
	CHECK(fabs(stall - 15900) < 1e-6, "stall_us %.0f", stall);
	CHECK(fabs(late - quiet - (15900 - 100)) < 1e-6, "late %.0f, quiet %.0f", late, quiet);
}

/*
 * Debian's 6.1 under QEMU at -1: the idle CPU took the timer that was to wake the hog 18.5 ms
 * late, and the hog's share of the 3 s window fell 0.0004 outside what the machine's noise
 * allows. The witness (the CPU idle from the start with the hog due) widens the share by just
 * that; a hog that lost as much to something running is still failed.
 */
TEST(judge_a_late_start_on_an_idle_cpu_widens_the_share_by_its_length)
{
	const char *hog = "{\"cpu_share\": 0.9936, \"throttle_events\": 0, \"gap_max_us\": 19548}";
	const char *victim = "{\"cpu_share\": 0.00001, \"starvation_max_us\": 3002592}";
	const struct check *c;
	double quiet = -1, late = -1;

	if (!hog_case_load())
		return;
	hc_window_s = 3;
	hc_others_us = 269;
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0, \"throttle_events\": 0,"
			" \"gap_max_us\": 18463, \"idle_at_start_us\": 0}";
	hog_case_judge(6, 1, 0, "unlimited", 0, hog, victim);
	c = find_check(hc.checks, hc.n, "hog", "cpu_share");
	CHECK(c && c->was_measured && !c->passed, "18.5 ms lost to no witness: the share passes");
	quiet = c ? c->tolerance : -1;
	hc.trace_json = "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0, \"throttle_events\": 0,"
			" \"gap_max_us\": 18463, \"idle_at_start_us\": 18463}";
	hog_case_judge(6, 1, 0, "unlimited", 0, hog, victim);
	c = find_check(hc.checks, hc.n, "hog", "cpu_share");
	late = c ? c->tolerance : -1;
	CHECK(c && c->was_measured && c->passed, "idle 18.5 ms at the start: the share fails");
	CHECK(fabs(late - quiet - 18463 / 3e6) < 1e-9, "tolerance %g, without the idle start %g", late, quiet);
	hc.trace_json = NULL;
	hc_window_s = 0;
	hc_others_us = 0;
	hog_case_unload();
}

/*
 * A host soak: the idle measured CPU took the timer that was to wake the window's tasks 16.4 ms
 * late, and a probe due 1 ms after the start answered in 15.5 ms, where time_tol allowed 8.8.
 * The idle start is a stall of the machine like a late wake-up interrupt: the longest counts.
 */
TEST(judge_an_idle_cpu_woken_late_at_the_start_widens_time_tol)
{
	double quiet, late, stall;

	if (!time_tol_with_trace("{\"status\": \"recorded\", \"idle_at_start_us\": 16395, \"tick\": {\"late_max_us\": 7}}",
				 &quiet, &late, &stall))
		return;
	CHECK(fabs(stall - 16395) < 1e-6, "stall_us %.0f", stall);
	CHECK(fabs(late - quiet - (16395 - 100)) < 1e-6, "late %.0f, quiet %.0f", late, quiet);
}

/* Every rule has room for the longest parts it is made of: a scenario's why at its longest is whole. */
TEST(judge_rule_is_never_cut)
{
	char why[sizeof(hc.s.checks[0].why)];
	int n;

	memset(why, 'w', sizeof(why) - 2);
	why[sizeof(why) - 2] = 'Z';
	why[sizeof(why) - 1] = '\0';
	if (!hog_case_load())
		return;
	for (int i = 0; i < hc.s.check_count; i++)
		memcpy(hc.s.checks[i].why, why, sizeof(why));
	n = hog_case_judge(6, 1, 0, "default", 0, textbook_hog, textbook_victim);
	CHECK(n > 0, "no checks");
	for (int i = 0; i < n; i++) {
		const char *rule = hc.checks[i].rule;

		CHECK(strstr(rule, why) && rule[strlen(rule) - 1] == ']', "%s.%s: rule cut (%zu bytes): ...%s",
		      hc.checks[i].task, hc.checks[i].metric, strlen(rule), rule + (strlen(rule) > 40 ? strlen(rule) - 40 : 0));
	}
	hog_case_unload();
}

/*
 * Whether a fair server may cut in between RT throttling's slots. The kernel's own 50 ms/1 s
 * server at 950000/1000000 does (RT's 50 ms slot, a tick short, falls below its runtime). One a
 * policy sets may too where the span rule says not: at 950000/1000000 a 10 ms/1 s server cut
 * CFS's median wait to 868 ms on 6.12 (the rule allows it 36 ms of slot in any 990 ms). Off, or
 * with no CFS task, nothing cuts in.
 */
TEST(judge_fair_server_a_policy_sets_may_cut_in)
{
	struct kernel_model base;
	double v = -1;

	if (!hog_case_load())
		return;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	base = hc.km;
	CHECK(hc.limiter.regime == REGIME_CLASSIC && judge_quantity(&hc.jc, "fs_interleaves", &v) && v == 1,
	      "the kernel's own server: %g", v);
	hc.policy.fair_server = (struct policy_fair_server){ .set = true, .runtime_us = 10000 };
	kernel_model_for_policy(&base, &hc.policy, &hc.km);
	CHECK(hc.km.fs_runtime_us == 10000 && judge_quantity(&hc.jc, "fs_interleaves", &v) && v == 1,
	      "a 10 ms server the policy set: %g", v);
	hc.policy.fair_server.runtime_us = 0;
	kernel_model_for_policy(&base, &hc.policy, &hc.km);
	CHECK(!hc.km.fair_server && judge_quantity(&hc.jc, "fs_interleaves", &v) && v == 0, "server off: %g", v);
	hog_case_unload();
}

/*
 * CFS's rest is judged in the periods the trace saw no tick held back in: its tolerance takes
 * the listing threshold there, not the window's worst; without censoring, the window's worst.
 */
TEST(judge_cfs_rest_tol_takes_the_tick_held_back_in_the_periods_judged)
{
	double censored = -1, window = -1;

	if (!hog_case_load())
		return;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	hc.jc.trace = parse("{\"status\": \"recorded\", \"tick\": {\"late_max_us\": 3000}}");
	hc.jc.metrics[0] = parse("{\"tick_late_judged_us\": 500, \"cfs_grid_step_us\": 0, \"cfs_placement_us\": 500}");
	CHECK(judge_quantity(&hc.jc, "cfs_rest_tol", &censored), "cfs_rest_tol");
	json_object_put(hc.jc.metrics[0]);
	hc.jc.metrics[0] = parse("{\"tick_late_judged_us\": -1, \"cfs_grid_step_us\": 0, \"cfs_placement_us\": 500}");
	CHECK(judge_quantity(&hc.jc, "cfs_rest_tol", &window), "cfs_rest_tol");
	json_object_put(hc.jc.metrics[0]);
	json_object_put(hc.jc.trace);
	hc.jc.metrics[0] = NULL;
	hc.jc.trace = NULL;
	CHECK(fabs(window - censored - 2500) < 1e-6, "censored %.0f, window-wide %.0f", censored, window);
	CHECK(censored >= 4000 + 500 + 500, "a tick, the listing threshold and the placement: %.0f", censored);
	hog_case_unload();
}

/*
 * Another CFS task took 90 ms of the window on the measured CPU: it shares CFS's time, so where
 * the trace tells RT tasks apart (others.rt_total_us) the hog's share over periods is judged
 * without it; the victim's still allows for it.
 */
TEST(judge_hog_share_does_not_allow_for_other_cfs_tasks_the_trace_told_apart)
{
	static const char *const tasks[] = { "hog", "victim" };
	double told[2] = { -1, -1 }, untold[2] = { -1, -1 };
	int n;

	if (!hog_case_load())
		return;
	hc_others_us = 90000;
	for (int pass = 0; pass < 2; pass++) {
		hc.trace_json = pass ? "{\"status\": \"recorded\", \"events_lost\": 0, \"gaps_unresolved\": 0,"
				       " \"others\": {\"total_us\": 90000, \"rt_total_us\": 20}}"
				     : NULL;
		n = hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
		for (int i = 0; i < 2; i++) {
			const struct check *c = find_check(hc.checks, n, tasks[i], "cpu_share_periods");

			(pass ? told : untold)[i] = c ? c->tolerance : -1;
		}
	}
	hc.trace_json = NULL;
	hc_others_us = 0;
	CHECK(told[0] > 0 && untold[0] - told[0] > 0.009, "hog: %.4f told apart, %.4f not", told[0], untold[0]);
	CHECK(told[1] > 0 && fabs(told[1] - untold[1]) < 1e-9, "victim: %.4f and %.4f", told[1], untold[1]);
	hog_case_unload();
}

/*
 * A replenishment the trace saw fire later than the slot is long costs CFS that period's slot:
 * the longest wait RT throttling allows grows by a period, as for a tick longer than the slot.
 */
TEST(judge_a_late_firing_longer_than_the_slot_adds_a_period_to_the_wait_bound)
{
	double on_time = -1, late = -1, short_late = -1;

	if (!hog_case_load())
		return;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	CHECK(judge_quantity(&hc.jc, "cfs_wait_bound_us", &on_time), "bound");
	hc.jc.trace = parse("{\"status\": \"recorded\", \"rt_timer\": {\"late_max_us\": 60000}}");
	CHECK(judge_quantity(&hc.jc, "cfs_wait_bound_us", &late), "bound");
	json_object_put(hc.jc.trace);
	hc.jc.trace = parse("{\"status\": \"recorded\", \"rt_timer\": {\"late_max_us\": 20000}}");
	CHECK(judge_quantity(&hc.jc, "cfs_wait_bound_us", &short_late), "bound");
	json_object_put(hc.jc.trace);
	hc.jc.trace = NULL;
	/* 950000/1000000: a 50 ms slot. 60 ms late outlasts it, 20 ms does not. */
	CHECK(fabs(late - on_time - 1000000) < 1e-6, "60 ms late: %.0f, on time %.0f", late, on_time);
	CHECK(fabs(short_late - on_time) < 1e-6, "20 ms late: %.0f, on time %.0f", short_late, on_time);
	hog_case_unload();
}

/* RT's fullest period is judged on the kernel's grid only: a searched grid favours the budget. */
TEST(judge_rt_period_top_needs_the_kernel_grid)
{
	double searched = -1, kernel = -1;

	if (!hog_case_load())
		return;
	hog_case_judge(6, 12, 1, "default", 0, textbook_hog, textbook_victim);
	hc.jc.metrics[0] = parse("{\"rt_periods\": 2, \"grid_searched\": 1}");
	CHECK(judge_quantity(&hc.jc, "rt_period_top_unheld", &searched), "unheld");
	json_object_put(hc.jc.metrics[0]);
	hc.jc.metrics[0] = parse("{\"rt_periods\": 2, \"grid_searched\": 0}");
	CHECK(judge_quantity(&hc.jc, "rt_period_top_unheld", &kernel), "unheld");
	json_object_put(hc.jc.metrics[0]);
	hc.jc.metrics[0] = NULL;
	CHECK(searched == 1 && kernel == 0, "searched %g, kernel grid %g", searched, kernel);
	hog_case_unload();
}

/* The check of cyclictest-crosscheck on that metric with that name ("" for none). */
static const struct check *crosscheck(const char *metric, const char *label)
{
	for (int i = 0; i < sj.n; i++)
		if (!strcmp(sj.checks[i].task, "probe") && !strcmp(sj.checks[i].metric, metric) &&
		    !strcmp(sj.checks[i].label, label))
			return &sj.checks[i];
	return NULL;
}

TEST(crosscheck_timerlat_skipped_with_why_or_judged)
{
	struct kernel_facts k618 = facts(6, 18, 1, 250);
	const char *probe = "{\"wakeups\": 1900, \"latency_us\": {\"max\": 49105, \"p99\": 22,"
			    " \"max_in_cyclictest_span\": 49105, \"max_in_timerlat_span\": 49105}}";
	const char *cyclictest = "{\"cycles\": 1897, \"latency_us\": {\"max\": 49344, \"p99\": 24},"
				 " \"start_lag_us\": 2500, \"stop_lag_us\": 50}";
	const char *const skipped[] = {
		"probe", probe, "cyclictest", cyclictest,
		"timerlat", "{\"skipped\": \"the kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER), available_tracers: nop\"}",
		NULL,
	};
	const char *const agree[] = {
		"probe", probe, "cyclictest", cyclictest,
		"timerlat", "{\"cycles\": 1850, \"latency_us\": {\"max\": 49200}, \"threshold_stop\": false}", NULL,
	};
	/* timerlat waited out a whole second slot the probe never saw. */
	const char *const disagree[] = {
		"probe", probe, "cyclictest", cyclictest,
		"timerlat", "{\"cycles\": 1850, \"latency_us\": {\"max\": 99200}, \"threshold_stop\": false}", NULL,
	};
	const struct check *span, *max;
	char why[512];
	int n;

	/* No tracer: both timerlat checks skip with the reason, and the rest still judge the result. */
	n = scenario_judge("cyclictest-crosscheck.json", &k618, 0, skipped);
	span = crosscheck("latency_us.max_in_timerlat_span", "timerlat");
	max = crosscheck("latency_us.max", "timerlat");
	CHECK(span && max, "cyclictest-crosscheck has no timerlat checks");
	for (const struct check *c = span; c; c = c == span ? max : NULL) {
		CHECK(c->skipped && !c->was_measured && check_verdict(c) == VERDICT_SKIP, "%s: not skipped", c->metric);
		CHECK(strstr(c->rule, "not measured: timerlat was skipped: the kernel has no timerlat tracer"), "rule: %s", c->rule);
	}
	CHECK(judge_verdict(sj.checks, n, why, sizeof(why)) == VERDICT_PASS, "the skipped checks decide the result: %s", why);
	/* Ran and agreed: judged, and passed. */
	n = scenario_judge("cyclictest-crosscheck.json", &k618, 0, agree);
	span = crosscheck("latency_us.max_in_timerlat_span", "timerlat");
	max = crosscheck("latency_us.max", "timerlat");
	CHECK(span && span->was_measured && span->passed && !span->skipped, "span check: %s", span ? span->rule : "absent");
	CHECK(max && max->was_measured && max->passed && NEAR(max->expected, 49200), "max check: %s", max ? max->rule : "absent");
	report_failures("crosscheck with timerlat", sj.checks, n);
	/* Ran and saw a slot more than the probe: caught. */
	scenario_judge("cyclictest-crosscheck.json", &k618, 0, disagree);
	max = crosscheck("latency_us.max", "timerlat");
	CHECK(max && max->was_measured && !max->passed, "a slot only timerlat saw passes");
}
