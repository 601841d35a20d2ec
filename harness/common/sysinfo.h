/* SPDX-License-Identifier: GPL-2.0-only */
/* What the system is: kernel, config, CPUs, NUMA, knobs, cgroups, privileges (`rtthrottle info`). */
#ifndef RTT_SYSINFO_H
#define RTT_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * RT group scheduling switched at boot (6.16+: rt_group_sched=0/1, default on unless
 * CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED): a kernel built with RT_GROUP_SCHED may run without it,
 * and then behaves as one built without it. RTG_BOOT_AS_BUILT (0, what a zeroed struct says)
 * leaves rt_group_sched to decide.
 */
enum rt_group_boot { RTG_BOOT_AS_BUILT = 0, RTG_BOOT_ON, RTG_BOOT_OFF };

struct kernel_facts {
	char release[128];	/* uname -r */
	char version[256];	/* uname -v */
	char machine[65];	/* uname -m */
	int major, minor, patch;
	bool config_known;	/* a kernel config was found and read */
	char config_source[256];	/* /proc/config.gz or /boot/config-<release> */
	int hz;			/* CONFIG_HZ, 0 when unknown */
	char preempt_model[16];	/* none, voluntary, full, lazy, rt, or unknown */
	bool preempt_dynamic;
	int rt_group_sched;	/* CONFIG_RT_GROUP_SCHED: 1 set, 0 not set, -1 unknown */
	int rt_group_sched_default_disabled;	/* CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED: 1, 0, -1 unknown */
	enum rt_group_boot rt_group_boot;	/* what the boot made of it (kernel_rt_group_boot_resolve) */
	char rt_group_sched_basis[200];	/* what rt_group_boot was read from; empty: the config alone */
	int no_hz_full;		/* 1 set, 0 not set, -1 unknown */
	bool fair_server_readable;	/* /sys/kernel/debug/sched/fair_server readable */
	int fair_server_cpu;		/* the CPU whose values were read */
	int64_t fair_server_runtime_ns, fair_server_period_ns;	/* from debugfs; -1 unknown */
	int timer_thread_priority;	/* RT priority of ktimers/N (PREEMPT_RT), 0 when none runs */
	int sched_class_ext;	/* CONFIG_SCHED_CLASS_EXT (sched_ext, 6.12+): 1 set, 0 not set, -1 unknown */
	bool ext_server_readable;	/* /sys/kernel/debug/sched/ext_server readable (7.0+) */
	int ext_server_cpu;		/* the CPU whose values were read */
	int64_t ext_server_runtime_ns, ext_server_period_ns;	/* from debugfs; -1 unknown */
	int sched_ext_enabled;	/* a BPF scheduler is loaded (/sys/kernel/sched_ext/state): 1, 0, -1 unknown */
};

/* Parses kernel config text (the lines of a .config) into `out`'s config fields. */
void kernel_config_parse(const char *text, struct kernel_facts *out);
/*
 * Sets rt_group_boot and its basis from the config fields, the kernel command line (NULL:
 * unread) and what the cgroup v1 cpu controller shows (cgroup_rt_file: 1 cpu.rt_runtime_us
 * present, 0 the controller mounted without it, -1 not mounted). The file, where the controller
 * is mounted, is what the running kernel does and rules over the command line and the default.
 */
void kernel_rt_group_boot_resolve(struct kernel_facts *k, const char *cmdline, int cgroup_rt_file);
/* RT group scheduling at run time: 1 on, 0 off (not built, or switched off at boot), -1 unknown. */
int kernel_rt_groups_active(const struct kernel_facts *k);
/* Parses "6.18.44-foo" into major/minor/patch; false when it does not start with N.N. */
bool kernel_release_parse(const char *release, int *major, int *minor, int *patch);
/* uname, then the config from /proc/config.gz or /boot/config-<release>. */
bool kernel_facts_read(struct kernel_facts *out);
json_object *kernel_facts_to_json(const struct kernel_facts *k);

/*
 * The fair server of one CPU from debugfs (ns): false with why (debugfs not mounted, lockdown,
 * no fair server before 6.12).
 */
bool sysinfo_fair_server_read(int cpu, int64_t *runtime_ns, int64_t *period_ns, char *why, size_t len);
/* /sys/kernel/sched_ext/state: 1 "enabled" (a BPF scheduler runs), 0 another state, -1 unreadable. */
int sysinfo_sched_ext_enabled(void);
/* A sched feature in debugfs sched/features: 1 on, 0 off (NO_NAME), -1 unreadable or absent (why). */
int sysinfo_sched_feature(const char *name, char *why, size_t len);

/* Online CPUs as a count and list; the last online CPU (the default measured CPU). */
int cpus_online_count(void);
int cpu_last_online(void);
bool cpu_is_online(int cpu);

/* A filesystem of `type` is mounted at dir (/proc/mounts). */
bool sysinfo_mounted_at(const char *dir, const char *type);

/* CapEff of /proc/self/status (bits as below); 0 when unreadable, then we claim nothing. */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYS_NICE_BIT 23
uint64_t sysinfo_effective_caps(void);

/*
 * The whole system block, as `rtthrottle info` prints it and results embed it. `knobs` is the
 * knobs block (knobs_read_json: the knobs are the run layer's), placed as given; NULL for none.
 */
json_object *sysinfo_collect(json_object *knobs);

/* Whether cpu is in a kernel CPU list ("0-3,8,10-11", as sysfs writes them); false when malformed. */
bool cpu_in_list(const char *text, int cpu);

#endif
