/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's documented defaults for every setting the expectation model assumes, by the
 * kernel version they first apply to, and the check that the settings in force are those
 * defaults (or the values a site declares on purpose with --site-setting). A kernel whose
 * defaults changed (a fair server of 150 ms a second instead of 50 ms) would otherwise pass
 * every other check: expectations follow the settings in force.
 */
#ifndef RTT_KERNEL_DEFAULTS_H
#define RTT_KERNEL_DEFAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "expect.h"
#include "kernel_model.h"

enum kernel_setting {
	KSET_SYSCTL_RUNTIME,	/* /proc/sys/kernel/sched_rt_runtime_us */
	KSET_SYSCTL_PERIOD,
	KSET_CGROUP_RUNTIME,	/* root cgroup v1 cpu.rt_runtime_us (RT group scheduling) */
	KSET_CGROUP_PERIOD,
	KSET_FS_RUNTIME,	/* debugfs sched/fair_server/cpuN/runtime, ns */
	KSET_FS_PERIOD,
	KSET_RT_RUNTIME_SHARE,	/* debugfs sched/features: 1 on, 0 off */
	KSET_RR_TIMESLICE,	/* /proc/sys/kernel/sched_rr_timeslice_ms */
	KSET_RLIMIT_RTTIME,	/* soft RLIMIT_RTTIME the run inherited, us; -1 unlimited */
	KSET_COUNT,
};

#define KSET_UNLIMITED (-1)

/* One row of the table: a setting, its documented default, since when, where it is read. */
struct kernel_default {
	const char *name;	/* as --site-setting and the check name it */
	const char *unit;	/* us, ns, ms or bool */
	int64_t value;		/* the documented default (KSET_UNLIMITED: unlimited) */
	int since_major, since_minor, since_patch;	/* the first kernel with this default */
	const char *origin;	/* where the default comes from, in the kernel */
	const char *source;	/* where the run reads it */
	bool rt_group_only;	/* exists only with CONFIG_RT_GROUP_SCHED */
	int64_t min, max;	/* values --site-setting accepts */
};

const struct kernel_default *kernel_default_row(enum kernel_setting s);
/* The row named `name` (KSET_COUNT when none). */
enum kernel_setting kernel_setting_find(const char *name);
/* The names, comma-separated, for messages and --help. */
const char *kernel_setting_names(void);
/* The row applies to this kernel: version at least `since`, RT group scheduling where needed. */
bool kernel_default_applies(const struct kernel_default *row, const struct kernel_facts *k);
/*
 * The row in force on kernel k: the table's, or a later kernel's changed default (7.2:
 * sched_rt_runtime_us and the root group's cpu.rt_runtime_us 1000000). NULL k: the table's.
 */
const struct kernel_default *kernel_default_for(enum kernel_setting s, const struct kernel_facts *k);

/* Values a site sets on purpose (--site-setting NAME=VALUE): the check expects those instead. */
struct site_settings {
	bool set[KSET_COUNT];
	int64_t value[KSET_COUNT];
};

/*
 * Takes one "NAME=VALUE" (VALUE a whole number in the row's unit; "unlimited" or -1 for
 * RLIMIT_RTTIME; on/off/1/0 for RT_RUNTIME_SHARE). false with why: no '=', an unknown name,
 * a value that is not a number or out of the row's range, a name given twice.
 */
bool site_setting_parse(struct site_settings *site, const char *arg, char *why, size_t len);
/* After every --site-setting: each runtime at most its period (the kernel refuses any other). */
bool site_settings_consistent(const struct site_settings *site, char *why, size_t len);
/* What the check expects: the site's value where it set one, else the documented default. */
int64_t kernel_setting_expected(const struct site_settings *site, enum kernel_setting s);
/* The same on kernel k, whose version may have changed the default (kernel_default_for). */
int64_t kernel_setting_expected_on(const struct site_settings *site, const struct kernel_facts *k,
				   enum kernel_setting s);
json_object *site_settings_to_json(const struct site_settings *site);

/* What was read from the system, setting by setting. */
struct setting_reading {
	bool read;
	int64_t value;
	int cpu;		/* per-CPU settings: the CPU the value is from; -1 otherwise */
	char why[200];		/* not read: why */
};

struct kernel_readings {
	struct setting_reading s[KSET_COUNT];
};

/* What the regime probe and the noise floor give the behavioural rows. */
struct defaults_behaviour {
	const struct regime_observation *observed;	/* NULL or !done: the probe did not run */
	const char *probe_why;	/* why it did not run */
	double noise_loss_share, noise_gap_max_us;
	bool other_cpu;		/* an online CPU besides the measured one (runtime to borrow) */
};

/*
 * The checks of kernel-defaults, one per row that applies to this kernel, in table order, then
 * the fair server's share by behaviour (the regime probe's CFS task at runtime -1 gets the fair
 * server's runtime/period). An unreadable setting is not measured (its rule says why) unless
 * behaviour can stand in: RT_RUNTIME_SHARE from whether the regime probe's lone hog was
 * throttled. RT_RUNTIME_SHARE only where the model enforces RT throttling. Rows not measured
 * are `skipped` (verdict skip): the system does not let them be read, no fault of the run.
 * Returns the number of checks (at most KSET_COUNT + 1).
 */
int kernel_defaults_judge(const struct kernel_facts *k, const struct kernel_model *m,
			  const struct kernel_readings *r, const struct site_settings *site,
			  const struct defaults_behaviour *b, struct check *out);
/*
 * The result's verdict from its checks: fail when a measured one failed; pass when none failed
 * and every setting was judged, read or by behaviour (the fair server's two settings by its
 * share, or the share by the two settings); else unjudged, with `why` naming what was not.
 */
enum verdict kernel_checks_verdict(const struct check *checks, int n, char *why, size_t len);
/* The table as it applies to this kernel: every row with its default, since, source, origin. */
json_object *kernel_defaults_table_json(const struct kernel_facts *k, const struct site_settings *site);

#endif
