// SPDX-License-Identifier: GPL-2.0-only
/* Kernel release and .config parsing, plus read-only sanity checks of the live probe. */
#include "sysinfo.h"
#include "knobs.h"
#include "unit.h"

#include <string.h>

static void facts_from(const char *config, struct kernel_facts *k)
{
	memset(k, 0, sizeof(*k));
	kernel_config_parse(config, k);
}

TEST(sysinfo_release_parse)
{
	static const struct {
		const char *release;
		bool ok;
		int major, minor, patch;
	} cases[] = {
		{ "6.18.44-fc-v1147", true, 6, 18, 44 },
		{ "6.1.0-28-amd64", true, 6, 1, 0 },
		{ "6.12.12+bpo-rt-amd64", true, 6, 12, 12 },
		{ "5.10.0", true, 5, 10, 0 },
		{ "6.8-rc1", true, 6, 8, 0 },
		{ "4.19", true, 4, 19, 0 },
		{ "garbage", false, 0, 0, 0 },
		{ "", false, 0, 0, 0 },
		{ "6", false, 0, 0, 0 },
		{ "6.", false, 0, 0, 0 },
		{ "6.x.1", false, 0, 0, 0 },
		{ " 6.1.0", false, 0, 0, 0 },
		{ "-6.1.0", false, 0, 0, 0 },
		{ "v6.1.0", false, 0, 0, 0 },
		{ "99999999999.1.0", false, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int major = -1, minor = -1, patch = -1;
		bool ok = kernel_release_parse(cases[i].release, &major, &minor, &patch);

		CHECK(ok == cases[i].ok, "'%s': parse %d, want %d", cases[i].release, ok, cases[i].ok);
		if (ok && cases[i].ok)
			CHECK(major == cases[i].major && minor == cases[i].minor && patch == cases[i].patch,
			      "'%s': got %d.%d.%d, want %d.%d.%d", cases[i].release, major, minor, patch,
			      cases[i].major, cases[i].minor, cases[i].patch);
	}
	CHECK(!kernel_release_parse(NULL, &(int){ 0 }, &(int){ 0 }, &(int){ 0 }), "NULL parses");
}

/* This machine's config, trimmed: a PREEMPT_DYNAMIC kernel built with PREEMPT_NONE. */
static const char dynamic_none[] =
	"#\n"
	"# Automatically generated file; DO NOT EDIT.\n"
	"#\n"
	"CONFIG_NO_HZ_COMMON=y\n"
	"# CONFIG_NO_HZ_FULL is not set\n"
	"CONFIG_NO_HZ=y\n"
	"CONFIG_PREEMPT_BUILD=y\n"
	"CONFIG_ARCH_HAS_PREEMPT_LAZY=y\n"
	"CONFIG_PREEMPT_NONE=y\n"
	"# CONFIG_PREEMPT_VOLUNTARY is not set\n"
	"# CONFIG_PREEMPT is not set\n"
	"# CONFIG_PREEMPT_LAZY is not set\n"
	"CONFIG_PREEMPT_COUNT=y\n"
	"CONFIG_PREEMPTION=y\n"
	"CONFIG_PREEMPT_DYNAMIC=y\n"
	"CONFIG_RT_GROUP_SCHED=y\n"
	"# CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED is not set\n"
	"CONFIG_HZ_250=y\n"
	"CONFIG_HZ=250\n"
	"CONFIG_HAVE_PREEMPT_DYNAMIC=y\n"
	"# CONFIG_DEBUG_PREEMPT is not set\n"
	"# CONFIG_PREEMPT_TRACER is not set\n";

TEST(sysinfo_config_dynamic_none)
{
	struct kernel_facts k;

	facts_from(dynamic_none, &k);
	CHECK(k.config_known, "config_known not set");
	CHECK(!strcmp(k.preempt_model, "none"), "preempt_model '%s', want none", k.preempt_model);
	CHECK(k.preempt_dynamic, "PREEMPT_DYNAMIC missed");
	CHECK(k.rt_group_sched == 1, "rt_group_sched %d, want 1", k.rt_group_sched);
	CHECK(k.no_hz_full == 0, "no_hz_full %d, want 0", k.no_hz_full);
	CHECK(k.hz == 250, "hz %d, want 250", k.hz);
}

TEST(sysinfo_config_preempt_models)
{
	static const struct {
		const char *config;
		const char *model;
	} cases[] = {
		{ "CONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT_VOLUNTARY is not set\n# CONFIG_PREEMPT is not set\n",
		  "none" },
		{ "# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\n",
		  "voluntary" },
		{ "# CONFIG_PREEMPT_NONE is not set\n# CONFIG_PREEMPT_VOLUNTARY is not set\nCONFIG_PREEMPT=y\n",
		  "full" },
		{ "# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_LAZY=y\n", "lazy" },
		/* 6.12+: PREEMPT_RT is its own option on top of PREEMPT or PREEMPT_LAZY. */
		{ "CONFIG_PREEMPT=y\n# CONFIG_PREEMPT_LAZY is not set\nCONFIG_PREEMPT_RT=y\n", "rt" },
		{ "CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT_LAZY=y\n", "rt" },
		/* Before 6.12 it was the choice's fourth member. */
		{ "# CONFIG_PREEMPT_NONE is not set\n# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_RT=y\n", "rt" },
		/* Lookalike symbols must not count. */
		{ "CONFIG_PREEMPT_COUNT=y\nCONFIG_PREEMPTION=y\nCONFIG_PREEMPT_BUILD=y\n"
		  "CONFIG_PREEMPT_NOTIFIERS=y\nCONFIG_ARCH_HAS_PREEMPT_LAZY=y\n", "unknown" },
		{ "", "unknown" },
		/* CRLF line endings still parse. */
		{ "CONFIG_PREEMPT_VOLUNTARY=y\r\n", "voluntary" },
		{ "CONFIG_PREEMPT=y", "full" },	/* no final newline */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kernel_facts k;

		facts_from(cases[i].config, &k);
		CHECK(!strcmp(k.preempt_model, cases[i].model), "case %zu: preempt_model '%s', want '%s'",
		      i, k.preempt_model, cases[i].model);
		CHECK(!k.preempt_dynamic, "case %zu: preempt_dynamic set", i);
	}
}

TEST(sysinfo_config_rt_group_sched)
{
	struct kernel_facts k;

	facts_from("CONFIG_CGROUP_SCHED=y\nCONFIG_RT_GROUP_SCHED=y\n", &k);
	CHECK(k.rt_group_sched == 1, "set: %d, want 1", k.rt_group_sched);
	facts_from("CONFIG_CGROUP_SCHED=y\n# CONFIG_RT_GROUP_SCHED is not set\n", &k);
	CHECK(k.rt_group_sched == 0, "not set: %d, want 0", k.rt_group_sched);
	facts_from("# CONFIG_CGROUP_SCHED is not set\n", &k);
	CHECK(k.rt_group_sched == -1, "absent: %d, want -1", k.rt_group_sched);
	facts_from("CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED=y\n", &k);
	CHECK(k.rt_group_sched == -1, "lookalike: %d, want -1", k.rt_group_sched);
	/* A comment mentioning the symbol is not a "not set" line. */
	facts_from("# CONFIG_RT_GROUP_SCHED helps here\n", &k);
	CHECK(k.rt_group_sched == -1, "comment: %d, want -1", k.rt_group_sched);
}

TEST(sysinfo_config_no_hz_full)
{
	struct kernel_facts k;

	facts_from("CONFIG_NO_HZ_FULL=y\n", &k);
	CHECK(k.no_hz_full == 1, "set: %d", k.no_hz_full);
	facts_from("# CONFIG_NO_HZ_FULL is not set\n", &k);
	CHECK(k.no_hz_full == 0, "not set: %d", k.no_hz_full);
	facts_from("CONFIG_NO_HZ_IDLE=y\n", &k);
	CHECK(k.no_hz_full == -1, "absent: %d", k.no_hz_full);
}

TEST(sysinfo_config_hz)
{
	static const struct {
		const char *config;
		int hz;
	} cases[] = {
		{ "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n", 1000 },
		{ "CONFIG_HZ=100\n", 100 },
		{ "CONFIG_HZ=300\nCONFIG_HZ_300=y\n", 300 },
		{ "CONFIG_HZ_250=y\n", 0 },	/* the choice alone is not the value */
		{ "CONFIG_HZ=abc\n", 0 },
		{ "CONFIG_HZ=\n", 0 },
		{ "CONFIG_HZ=-5\n", 0 },
		{ "# CONFIG_HZ is not set\n", 0 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kernel_facts k;

		facts_from(cases[i].config, &k);
		CHECK(k.hz == cases[i].hz, "case %zu: hz %d, want %d", i, k.hz, cases[i].hz);
	}
}

/* The parser fills config fields only; uname's fields are kernel_facts_read's business. */
TEST(sysinfo_config_keeps_release)
{
	struct kernel_facts k;

	memset(&k, 0, sizeof(k));
	strcpy(k.release, "6.18.44-fc-v1147");
	k.major = 6;
	k.minor = 18;
	k.hz = 1000;
	k.rt_group_sched = 1;
	kernel_config_parse("CONFIG_PREEMPT=y\n", &k);
	CHECK(!strcmp(k.release, "6.18.44-fc-v1147") && k.major == 6 && k.minor == 18,
	      "release fields changed");
	CHECK(k.hz == 0 && k.rt_group_sched == -1, "stale config fields kept: hz %d rt_group_sched %d",
	      k.hz, k.rt_group_sched);
}

TEST(sysinfo_facts_to_json)
{
	struct kernel_facts k;
	json_object *obj, *v;

	facts_from(dynamic_none, &k);
	strcpy(k.release, "6.18.44-fc-v1147");
	strcpy(k.config_source, "/proc/config.gz");
	k.major = 6;
	k.minor = 18;
	k.patch = 44;
	obj = kernel_facts_to_json(&k);
	CHECK(json_object_object_get_ex(obj, "hz", &v) && json_object_get_int(v) == 250, "hz");
	CHECK(json_object_object_get_ex(obj, "preempt_model", &v) &&
	      !strcmp(json_object_get_string(v), "none"), "preempt_model");
	CHECK(json_object_object_get_ex(obj, "rt_group_sched", &v) &&
	      json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v), "rt_group_sched");
	CHECK(json_object_object_get_ex(obj, "no_hz_full", &v) &&
	      json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v), "no_hz_full");
	CHECK(json_object_object_get_ex(obj, "minor", &v) && json_object_get_int(v) == 18, "minor");
	json_object_put(obj);

	/* Unknowns are null, not a guess. */
	memset(&k, 0, sizeof(k));
	k.rt_group_sched = k.no_hz_full = -1;
	obj = kernel_facts_to_json(&k);
	CHECK(json_object_object_get_ex(obj, "rt_group_sched", &v) && !v, "unknown rt_group_sched not null");
	CHECK(json_object_object_get_ex(obj, "hz", &v) && !v, "unknown hz not null");
	CHECK(json_object_object_get_ex(obj, "config_source", &v) && !v, "unknown config_source not null");
	json_object_put(obj);
}

/* Read-only checks against this machine: at least one CPU, and the bounds hold. */
TEST(sysinfo_cpus_live)
{
	int count = cpus_online_count(), last = cpu_last_online();

	CHECK(count >= 1, "online count %d", count);
	CHECK(last >= count - 1, "last online %d below count %d - 1", last, count);
	CHECK(cpu_is_online(last), "last online cpu %d not online", last);
	CHECK(!cpu_is_online(last + 1), "cpu %d past the last is online", last + 1);
	CHECK(!cpu_is_online(-1), "cpu -1 online");
	CHECK(!cpu_is_online(1 << 20), "cpu 1<<20 online");
}

TEST(sysinfo_collect_shape)
{
	static const char *const keys[] = {
		"kernel", "cpus", "numa", "knobs", "cgroup", "debugfs", "privileges", "host",
	};
	json_object *obj = sysinfo_collect(knobs_read_json()), *cpus, *v;

	CHECK(obj && json_object_is_type(obj, json_type_object), "not an object");
	if (!obj)
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		CHECK(json_object_object_get_ex(obj, keys[i], NULL), "no \"%s\"", keys[i]);
	if (json_object_object_get_ex(obj, "cpus", &cpus)) {
		CHECK(json_object_object_get_ex(cpus, "online", &v) &&
		      (int)json_object_array_length(v) == cpus_online_count(), "cpus.online length");
		CHECK(json_object_object_get_ex(cpus, "last_online", &v) &&
		      json_object_get_int(v) == cpu_last_online(), "cpus.last_online");
	}
	json_object_put(obj);
}

/* The live NUMA block: every online CPU in exactly one node, a square distance matrix, memory. */
TEST(sysinfo_numa_block)
{
	json_object *sys = sysinfo_collect(NULL), *numa, *nodes, *cpus, *v;
	int seen[4096] = { 0 };
	size_t n;

	CHECK(json_object_object_get_ex(sys, "numa", &numa) && json_object_object_get_ex(numa, "nodes", &nodes),
	      "numa.nodes present");
	CHECK(json_object_object_get_ex(numa, "available", &v), "numa.available present");
	if (!json_object_get_boolean(v)) {
		CHECK(json_object_array_length(nodes) == 0, "no nodes without NUMA");
		json_object_put(sys);
		return;
	}
	n = json_object_array_length(nodes);
	CHECK(n >= 1, "at least one node");
	for (size_t i = 0; i < n; i++) {
		json_object *node = json_object_array_get_idx(nodes, i), *dist, *list, *mem, *free_mb;

		CHECK(json_object_object_get_ex(node, "distances", &dist) && json_object_array_length(dist) == n,
		      "node %zu: one distance per node", i);
		CHECK(json_object_get_int(json_object_array_get_idx(dist, i)) == 10, "node %zu: local distance 10", i);
		CHECK(json_object_object_get_ex(node, "memory_mb", &mem) && json_object_get_int64(mem) > 0,
		      "node %zu: memory_mb", i);
		CHECK(json_object_object_get_ex(node, "memory_free_mb", &free_mb) &&
			      json_object_get_int64(free_mb) <= json_object_get_int64(mem),
		      "node %zu: free within total", i);
		if (json_object_object_get_ex(node, "cpus", &list))
			for (size_t c = 0; c < json_object_array_length(list); c++) {
				int cpu = json_object_get_int(json_object_array_get_idx(list, c));

				if (cpu >= 0 && cpu < 4096)
					seen[cpu]++;
			}
	}
	CHECK(json_object_object_get_ex(sys, "cpus", &cpus) && json_object_object_get_ex(cpus, "online", &v), "cpus");
	for (size_t c = 0; c < json_object_array_length(v); c++) {
		int cpu = json_object_get_int(json_object_array_get_idx(v, c));

		CHECK(cpu >= 4096 || seen[cpu] == 1, "online CPU %d in %d nodes", cpu, cpu < 4096 ? seen[cpu] : -1);
	}
	json_object_put(sys);
}

TEST(sysinfo_cpu_in_list_reads_ranges_and_refuses_junk)
{
	CHECK(cpu_in_list("1", 1) && !cpu_in_list("1", 0), "a single CPU");
	CHECK(cpu_in_list("0-3,8,10-11", 2) && cpu_in_list("0-3,8,10-11", 8) && cpu_in_list("0-3,8,10-11", 11),
	      "ranges and singles");
	CHECK(!cpu_in_list("0-3,8,10-11", 9) && !cpu_in_list("0-3,8,10-11", 12), "outside");
	CHECK(!cpu_in_list("", 0) && !cpu_in_list("(null)", 0) && !cpu_in_list("3-1", 2), "empty, junk, backwards");
}

/* Debian's 7.2.13 amd64 config, trimmed: sched_ext built in, no RT group scheduling; 7.3-rc's release. */
TEST(sysinfo_config_debian_7_2)
{
	struct kernel_facts k;
	int major, minor, patch;

	facts_from("CONFIG_CGROUP_SCHED=y\n"
		   "CONFIG_FAIR_GROUP_SCHED=y\n"
		   "# CONFIG_RT_GROUP_SCHED is not set\n"
		   "CONFIG_SCHED_CLASS_EXT=y\n"
		   "CONFIG_HZ_250=y\n"
		   "CONFIG_HZ=250\n", &k);
	CHECK(k.config_known && k.rt_group_sched == 0 && k.sched_class_ext == 1 && k.hz == 250,
	      "7.2: rt_group %d scx %d hz %d", k.rt_group_sched, k.sched_class_ext, k.hz);
	facts_from("# CONFIG_SCHED_CLASS_EXT is not set\n", &k);
	CHECK(k.sched_class_ext == 0, "scx not set: %d", k.sched_class_ext);
	facts_from("CONFIG_HZ=250\n", &k);
	CHECK(k.sched_class_ext == -1, "scx absent: %d", k.sched_class_ext);
	CHECK(kernel_release_parse("7.2.13+deb14-rt-amd64", &major, &minor, &patch) && major == 7 && minor == 2 &&
	      patch == 13, "7.2.13+deb14: %d.%d.%d", major, minor, patch);
	CHECK(kernel_release_parse("7.3-amd64", &major, &minor, &patch) && major == 7 && minor == 3 && patch == 0,
	      "7.3-amd64: %d.%d.%d", major, minor, patch);
}
