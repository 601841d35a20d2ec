// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel model on 7.x, as Debian's 7.2.13 is built (RT_GROUP_SCHED off, SCHED_CLASS_EXT=y,
 * HZ=250): no RT throttling, the fair server the only limit on FIFO (fair-server-only at every
 * runtime), the sched_ext server read from debugfs and admitted only where the kernel admits it
 * (7.0 and 7.1 always, 7.2+ with a BPF scheduler loaded; the floor: tests/unit/run/
 * test_dl_floor_ext_server.c), and 7.2's default RT runtime of 1000000 (kernel-defaults).
 */
#include "kernel_defaults.h"
#include "kernel_model.h"
#include "unit.h"
#include "unit_fixtures.h"
#include "verdict.h"

#include <string.h>

TEST(kernel_model_debian_7_2_is_fair_server_only)
{
	struct kernel_facts k = make_kernel_facts_debian_7_2();
	struct kernel_model m;
	const int64_t runtimes[] = { 950000, 500000, 1000000, -1 };

	kernel_model_predict(&k, &m);
	CHECK(m.fair_server && !m.rt_bandwidth && !m.rt_runtime_share && m.fs_from_debugfs,
	      "7.2: fs %d bw %d share %d", m.fair_server, m.rt_bandwidth, m.rt_runtime_share);
	/* Without RT groups nothing throttles RT: whatever the sysctl says, the fair server limits. */
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		CHECK(regime_for(&m, runtimes[i], 1000000) == REGIME_FAIR_SERVER_ONLY, "7.2 at %lld: %s",
		      (long long)runtimes[i], regime_name(regime_for(&m, runtimes[i], 1000000)));
	CHECK(m.ext_server && m.es_from_debugfs && m.es_runtime_us == 50000 && m.es_period_us == 1000000,
	      "ext server %d %lld/%lld", m.ext_server, (long long)m.es_runtime_us, (long long)m.es_period_us);
	CHECK(!m.ext_server_reserved, "7.2 without a BPF scheduler reserves the ext server's bandwidth");
	CHECK(strstr(m.basis, "ext server 50000/1000000 us (debugfs)") && strstr(m.basis, "not admitted") &&
	      strstr(m.basis, "without CONFIG_RT_GROUP_SCHED"), "basis: %s", m.basis);
	/* The probe Debian's 7.2 guest saw: a lone hog unthrottled, the CFS task served at -1. */
	{
		struct regime_observation o = make_regime_probe_seen(&m, 0.9994, 8985, 0.0494, RUNNING_NOT_RUN, 0);

		CHECK(o.agrees && !o.throttle_seen && o.fair_server_seen, "7.2's probe: agrees %d (%s)", o.agrees,
		      o.evidence);
	}
	/* The config not found: RT throttling assumed (the probe decides), no ext server assumed. */
	k = make_kernel_facts(7, 2, -1, 0);
	kernel_model_predict(&k, &m);
	CHECK(m.rt_bandwidth && regime_for(&m, 950000, 1000000) == REGIME_CLASSIC && !m.ext_server,
	      "7.2 config unknown: bw %d ext %d", m.rt_bandwidth, m.ext_server);
}

TEST(kernel_model_ext_server_by_version)
{
	struct kernel_facts k = make_kernel_facts(7, 0, 0, 250);
	struct kernel_model m;

	/* 7.0 with sched_ext, debugfs unreadable: the defaults, admitted beside the fair server. */
	k.sched_class_ext = 1;
	kernel_model_predict(&k, &m);
	CHECK(m.ext_server && m.ext_server_reserved && !m.es_from_debugfs && m.es_runtime_us == 50000,
	      "7.0: ext %d reserved %d", m.ext_server, m.ext_server_reserved);
	CHECK(strstr(m.basis, "admitted beside the fair server (before 7.2)") != NULL, "basis: %s", m.basis);
	/* Built without it. */
	k.sched_class_ext = 0;
	kernel_model_predict(&k, &m);
	CHECK(!m.ext_server && !m.ext_server_reserved && strstr(m.basis, "CONFIG_SCHED_CLASS_EXT off"), "7.0 no scx: %s",
	      m.basis);
	/* Before 7.0 sched_ext has no server. */
	k = make_kernel_facts(6, 18, 1, 250);
	k.sched_class_ext = 1;
	kernel_model_predict(&k, &m);
	CHECK(!m.ext_server && strstr(m.basis, "none (before 7.0)"), "6.18: %s", m.basis);
	/* 7.2 with a BPF scheduler loaded: the class in use is ext, its server is admitted. */
	k = make_kernel_facts_debian_7_2();
	k.sched_ext_enabled = 1;
	kernel_model_predict(&k, &m);
	CHECK(m.ext_server_reserved && strstr(m.basis, "a BPF scheduler is loaded"), "7.2 + scx: %s", m.basis);
	/* Switched off in debugfs (runtime 0): nothing admitted. */
	k.ext_server_runtime_ns = 0;
	kernel_model_predict(&k, &m);
	CHECK(m.ext_server && !m.ext_server_reserved, "ext runtime 0 reserved");
}

TEST(kernel_defaults_rt_runtime_one_from_7_2)
{
	struct kernel_facts k = make_kernel_facts_debian_7_2(), old = make_kernel_facts(7, 1, 0, 250);
	struct kernel_model m;
	struct kernel_readings r;
	struct check checks[KSET_COUNT + 1];
	struct defaults_behaviour b = { .probe_why = "not run", .other_cpu = true };
	char why[320];
	enum verdict verdict;
	int n;

	CHECK(kernel_default_for(KSET_SYSCTL_RUNTIME, &k)->value == 1000000, "7.2: %lld",
	      (long long)kernel_default_for(KSET_SYSCTL_RUNTIME, &k)->value);
	CHECK(kernel_default_for(KSET_CGROUP_RUNTIME, &k)->value == 1000000, "7.2 cgroup");
	CHECK(kernel_default_for(KSET_SYSCTL_RUNTIME, &old)->value == 950000, "7.1: %lld",
	      (long long)kernel_default_for(KSET_SYSCTL_RUNTIME, &old)->value);
	CHECK(kernel_default_for(KSET_SYSCTL_PERIOD, &k)->value == 1000000, "7.2 period");
	CHECK(kernel_default_for(KSET_SYSCTL_RUNTIME, NULL) == kernel_default_row(KSET_SYSCTL_RUNTIME), "NULL kernel");

	/* What Debian's 7.2 guest read before the run: 1000000/1000000, fair server 50 ms / 1 s. */
	memset(&r, 0, sizeof(r));
	for (int s = 0; s < KSET_COUNT; s++) {
		r.s[s].read = true;
		r.s[s].value = kernel_default_for((enum kernel_setting)s, &k)->value;
		r.s[s].cpu = -1;
	}
	r.s[KSET_SYSCTL_RUNTIME].value = 1000000;
	kernel_model_predict(&k, &m);
	n = kernel_defaults_judge(&k, &m, &r, NULL, &b, checks);
	verdict = kernel_checks_verdict(checks, n, why, sizeof(why));
	for (int i = 0; i < n; i++)
		if (!strcmp(checks[i].metric, "sched_rt_runtime_us"))
			CHECK(checks[i].passed && checks[i].expected == 1000000 && strstr(checks[i].rule, "7.2"),
			      "7.2 sched_rt_runtime_us: passed %d expected %g (%s)", checks[i].passed, checks[i].expected,
			      checks[i].rule);
	CHECK(verdict != VERDICT_FAIL, "7.2 at its own defaults: %s (%s)", verdict_name(verdict), why);
	/* 950000 on 7.2 is a change from the default, as 1000000 is on 7.1. */
	r.s[KSET_SYSCTL_RUNTIME].value = 950000;
	n = kernel_defaults_judge(&k, &m, &r, NULL, &b, checks);
	CHECK(kernel_checks_verdict(checks, n, why, sizeof(why)) == VERDICT_FAIL, "7.2 at 950000 passed");
	r.s[KSET_SYSCTL_RUNTIME].value = 1000000;
	kernel_model_predict(&old, &m);
	n = kernel_defaults_judge(&old, &m, &r, NULL, &b, checks);
	CHECK(kernel_checks_verdict(checks, n, why, sizeof(why)) == VERDICT_FAIL, "7.1 at 1000000 passed");
}
