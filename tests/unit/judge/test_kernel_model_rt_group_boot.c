// SPDX-License-Identifier: GPL-2.0-only
/*
 * RT group scheduling switched at boot (6.16+, rt_group_sched=): a kernel built with
 * RT_GROUP_SCHED=y and booted with rt_group_sched=0 has no RT throttling and no cgroup RT files,
 * as one built without it, so its regime is the fair server's; with =1 (or by default) RT
 * throttling works beside the fair server. What the running kernel shows (cpu.rt_runtime_us in
 * the cgroup v1 cpu controller) rules over the command line and the build's default.
 */
#include "kernel_defaults.h"
#include "kernel_model.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <string.h>

/* linux-source-7.2 built from ci/kconfig rt-group: RT_GROUP_SCHED=y, the default not disabled. */
static struct kernel_facts facts_7_2_rt_group(void)
{
	struct kernel_facts k = make_kernel_facts(7, 2, 1, 250);

	k.rt_group_sched_default_disabled = 0;
	return k;
}

TEST(rt_group_boot_from_cmdline_and_cgroup)
{
	struct kernel_facts k = facts_7_2_rt_group();

	kernel_rt_group_boot_resolve(&k, "console=ttyS0 rt_group_sched=0 quiet", -1);
	CHECK(k.rt_group_boot == RTG_BOOT_OFF && kernel_rt_groups_active(&k) == 0 &&
	      strstr(k.rt_group_sched_basis, "rt_group_sched=0 on the command line"), "=0: %d (%s)", k.rt_group_boot,
	      k.rt_group_sched_basis);
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0 rt_group_sched=1", -1);
	CHECK(kernel_rt_groups_active(&k) == 1, "the last one wins: %s", k.rt_group_sched_basis);
	/* The kernel refuses 2 and keeps what it had; after "--" the words are init's. */
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0 rt_group_sched=2 -- rt_group_sched=1", -1);
	CHECK(kernel_rt_groups_active(&k) == 0 && strstr(k.rt_group_sched_basis, "rt_group_sched=2 refused"),
	      "refused: %s", k.rt_group_sched_basis);
	kernel_rt_group_boot_resolve(&k, "quiet", -1);
	CHECK(kernel_rt_groups_active(&k) == 1 && strstr(k.rt_group_sched_basis, "on by default"), "default: %s",
	      k.rt_group_sched_basis);
	k.rt_group_sched_default_disabled = 1;
	kernel_rt_group_boot_resolve(&k, "quiet", -1);
	CHECK(kernel_rt_groups_active(&k) == 0 && strstr(k.rt_group_sched_basis, "off by default"),
	      "default disabled: %s", k.rt_group_sched_basis);
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0x1", -1);
	CHECK(kernel_rt_groups_active(&k) == 1, "base 0 as kstrtol: %s", k.rt_group_sched_basis);
	/* The cgroup file is the running kernel's word. */
	k = facts_7_2_rt_group();
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=1", 0);
	CHECK(kernel_rt_groups_active(&k) == 0 && strstr(k.rt_group_sched_basis, "absent") &&
	      strstr(k.rt_group_sched_basis, "overrules rt_group_sched=1"), "file absent: %s", k.rt_group_sched_basis);
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0", 1);
	CHECK(kernel_rt_groups_active(&k) == 1, "file present: %s", k.rt_group_sched_basis);
	/* Before 6.16 there is no switch: the word is init's, the build decides. */
	k = make_kernel_facts(6, 12, 1, 250);
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0", 0);
	CHECK(k.rt_group_boot == RTG_BOOT_AS_BUILT && kernel_rt_groups_active(&k) == 1 && !k.rt_group_sched_basis[0],
	      "6.12: %d (%s)", k.rt_group_boot, k.rt_group_sched_basis);
	/* Built without it: nothing to switch on. */
	k = make_kernel_facts(7, 2, 0, 250);
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=1", 0);
	CHECK(kernel_rt_groups_active(&k) == 0 && k.rt_group_boot == RTG_BOOT_AS_BUILT, "7.2 without: %d",
	      k.rt_group_boot);
	/* Config unknown: the cgroup file tells, where the controller is mounted. */
	k = make_kernel_facts(7, 2, -1, 250);
	kernel_rt_group_boot_resolve(&k, NULL, 1);
	CHECK(kernel_rt_groups_active(&k) == 1 && strstr(k.rt_group_sched_basis, "config unknown"), "unknown: %s",
	      k.rt_group_sched_basis);
	kernel_rt_group_boot_resolve(&k, NULL, -1);
	CHECK(kernel_rt_groups_active(&k) == -1, "unknown, no controller: %d", kernel_rt_groups_active(&k));
}

TEST(kernel_model_rt_group_switched_at_boot)
{
	struct kernel_facts k = facts_7_2_rt_group();
	struct kernel_model m;
	const int64_t runtimes[] = { 950000, 500000, 1000000, -1 };

	/* rt_group_sched=1: classic throttling below a full period, the fair server at -1. */
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=1", 1);
	kernel_model_predict(&k, &m);
	CHECK(m.rt_bandwidth && m.fair_server && regime_for(&m, 950000, 1000000) == REGIME_CLASSIC &&
	      regime_for(&m, -1, 1000000) == REGIME_FAIR_SERVER_ONLY && strstr(m.basis, "on at run time"),
	      "on: %s", m.basis);
	CHECK(kernel_default_applies(kernel_default_for(KSET_CGROUP_RUNTIME, &k), &k), "on: no cgroup default");
	/* rt_group_sched=0: as built without RT groups, the fair server alone at every runtime. */
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0", 0);
	kernel_model_predict(&k, &m);
	CHECK(!m.rt_bandwidth && m.fair_server && strstr(m.basis, "off at run time") &&
	      strstr(m.basis, "rt_group_sched=0 on the command line"), "off: %s", m.basis);
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		CHECK(regime_for(&m, runtimes[i], 1000000) == REGIME_FAIR_SERVER_ONLY, "off at %lld: %s",
		      (long long)runtimes[i], regime_name(regime_for(&m, runtimes[i], 1000000)));
	CHECK(!kernel_default_applies(kernel_default_for(KSET_CGROUP_RUNTIME, &k), &k) &&
	      !kernel_default_applies(kernel_default_for(KSET_CGROUP_PERIOD, &k), &k),
	      "off: the root cgroup's RT files have no default to check");
	/* The probe of a fair-server-only kernel agrees; one that throttled would not. */
	{
		struct regime_observation o = make_regime_probe_seen(&m, 0.9994, 8985, 0.0494, RUNNING_NOT_RUN, 0);

		CHECK(o.agrees, "off, fair server seen: %s", o.evidence);
		o = make_regime_probe_seen(&m, 0.95, 50000, 0.0494, RUNNING_NOT_RUN, 0);
		CHECK(!o.agrees, "off, a throttled lone hog agrees: %s", o.evidence);
	}
}

TEST(kernel_model_rt_group_off_before_7_2_and_config_unknown)
{
	struct kernel_facts k = make_kernel_facts(6, 16, 1, 250);
	struct kernel_model m;

	/* 6.16 to 7.1: the root group keeps its boot budget of 950000/1000000, still throttled. */
	k.rt_group_sched_default_disabled = 0;
	kernel_rt_group_boot_resolve(&k, "rt_group_sched=0", -1);
	kernel_model_predict(&k, &m);
	CHECK(m.rt_bandwidth && regime_for(&m, 950000, 1000000) == REGIME_CLASSIC &&
	      strstr(m.basis, "boot budget of 950000/1000000"), "6.16 off: %s", m.basis);
	/* Config unknown, the cgroup v1 cpu controller without RT files: no RT groups, no throttling. */
	k = make_kernel_facts(7, 2, -1, 250);
	kernel_rt_group_boot_resolve(&k, NULL, 0);
	kernel_model_predict(&k, &m);
	CHECK(!m.rt_bandwidth && strstr(m.basis, "without CONFIG_RT_GROUP_SCHED (cpu.rt_runtime_us absent"),
	      "unknown, absent: %s", m.basis);
}
