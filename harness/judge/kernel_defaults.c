// SPDX-License-Identifier: GPL-2.0-only
/* The defaults table with its sources, --site-setting, a check per setting (behaviour where unreadable). */
#include "kernel_defaults.h"
#include "json_util.h"
#include "util.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * The documented defaults. Versions are those of the mainline release that first shipped the
 * default (the commit or symbol named in `origin`); a row does not apply before it.
 */
static const struct kernel_default table[KSET_COUNT] = {
	[KSET_SYSCTL_RUNTIME] = {
		"sched_rt_runtime_us", "us", 950000, 2, 6, 25,
		"sysctl_sched_rt_runtime = 950000 (kernel/sched; sched-rt-group.rst)",
		"/proc/sys/kernel/sched_rt_runtime_us", false, -1, INT32_MAX },
	[KSET_SYSCTL_PERIOD] = {
		"sched_rt_period_us", "us", 1000000, 2, 6, 25,
		"sysctl_sched_rt_period = 1000000 (kernel/sched; sched-rt-group.rst)",
		"/proc/sys/kernel/sched_rt_period_us", false, 1, INT32_MAX },
	[KSET_CGROUP_RUNTIME] = {
		"cpu.rt_runtime_us", "us", 950000, 2, 6, 25,
		"the root task group starts at the global runtime (sched_init), RT_GROUP_SCHED",
		"/sys/fs/cgroup/cpu/cpu.rt_runtime_us", true, -1, INT32_MAX },
	[KSET_CGROUP_PERIOD] = {
		"cpu.rt_period_us", "us", 1000000, 2, 6, 25,
		"the root task group starts at the global period (sched_init), RT_GROUP_SCHED",
		"/sys/fs/cgroup/cpu/cpu.rt_period_us", true, 1, INT32_MAX },
	[KSET_FS_RUNTIME] = {
		"fair_server_runtime_ns", "ns", 50000000, 6, 12, 0,
		"fair server 50 ms per 1000 ms on every CPU (the fair server series with 5f6bd380c7bd, 6.12)",
		"/sys/kernel/debug/sched/fair_server/cpuN/runtime", false, 0, INT64_C(1000000000000) },
	[KSET_FS_PERIOD] = {
		"fair_server_period_ns", "ns", 1000000000, 6, 12, 0,
		"fair server period 1000 ms on every CPU (the fair server series, 6.12)",
		"/sys/kernel/debug/sched/fair_server/cpuN/period", false, 1, INT64_C(1000000000000) },
	[KSET_RT_RUNTIME_SHARE] = {
		"RT_RUNTIME_SHARE", "bool", 0, 5, 10, 0,
		"SCHED_FEAT(RT_RUNTIME_SHARE, false) since 2586af1ac187 (5.10); on before",
		"/sys/kernel/debug/sched/features", false, 0, 1 },
	[KSET_RR_TIMESLICE] = {
		"sched_rr_timeslice_ms", "ms", 100, 3, 9, 0,
		"RR_TIMESLICE 100 ms (include/linux/sched/rt.h), the sysctl since 3.9",
		"/proc/sys/kernel/sched_rr_timeslice_ms", false, 1, INT32_MAX },
	[KSET_RLIMIT_RTTIME] = {
		"RLIMIT_RTTIME", "us", KSET_UNLIMITED, 2, 6, 25,
		"INIT_RLIMITS: RLIM_INFINITY (include/asm-generic/resource.h)",
		"getrlimit(RLIMIT_RTTIME), the soft limit the run inherited", false, -1, INT64_MAX / 2 },
};

/*
 * Defaults a later kernel changed: from its version on a row here replaces the table's. 7.2 made
 * RT bandwidth ONE by default (tip commit c2e390197ad1, "sched/rt: Update default bandwidth for
 * real-time tasks to ONE"): FIFO/RR are limited by the fair and ext servers, the sysctl bounds
 * deadline admission; sched-rt-group.rst still says 950000. Read in Debian's linux-source-7.2
 * (7.2.13), kernel/sched/rt.c; the root task group starts at the global runtime as before.
 */
static const struct {
	enum kernel_setting setting;
	struct kernel_default row;
} changed[] = {
	{ KSET_SYSCTL_RUNTIME, {
		"sched_rt_runtime_us", "us", 1000000, 7, 2, 0,
		"sysctl_sched_rt_runtime = 1000000 (kernel/sched/rt.c; c2e390197ad1 \"sched/rt: Update default "
		"bandwidth for real-time tasks to ONE\", 7.2; 950000 before)",
		"/proc/sys/kernel/sched_rt_runtime_us", false, -1, INT32_MAX } },
	{ KSET_CGROUP_RUNTIME, {
		"cpu.rt_runtime_us", "us", 1000000, 7, 2, 0,
		"the root task group starts at the global runtime (sched_init), RT_GROUP_SCHED; 1000000 since 7.2 "
		"(c2e390197ad1)",
		"/sys/fs/cgroup/cpu/cpu.rt_runtime_us", true, -1, INT32_MAX } },
};

const struct kernel_default *kernel_default_row(enum kernel_setting s)
{
	return s >= 0 && s < KSET_COUNT ? &table[s] : NULL;
}

enum kernel_setting kernel_setting_find(const char *name)
{
	for (int s = 0; s < KSET_COUNT; s++)
		if (!strcmp(table[s].name, name))
			return (enum kernel_setting)s;
	return KSET_COUNT;
}

const char *kernel_setting_names(void)
{
	static char names[320];

	if (!names[0])
		for (int s = 0; s < KSET_COUNT; s++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", s ? ", " : "", table[s].name);
	return names;
}

static bool version_at_least(const struct kernel_facts *k, int major, int minor, int patch)
{
	if (k->major != major)
		return k->major > major;
	if (k->minor != minor)
		return k->minor > minor;
	return k->patch >= patch;
}

bool kernel_default_applies(const struct kernel_default *row, const struct kernel_facts *k)
{
	/* Unknown config: the row applies, and a missing file says why it was not read. */
	/* RT groups switched off at boot (rt_group_sched=0) have no cgroup files either. */
	if (row->rt_group_only && kernel_rt_groups_active(k) == 0)
		return false;
	return version_at_least(k, row->since_major, row->since_minor, row->since_patch);
}

const struct kernel_default *kernel_default_for(enum kernel_setting s, const struct kernel_facts *k)
{
	const struct kernel_default *row = kernel_default_row(s);

	/* The latest change the kernel has wins (the list is in version order). */
	for (size_t i = 0; row && k && i < sizeof(changed) / sizeof(changed[0]); i++)
		if (changed[i].setting == s &&
		    version_at_least(k, changed[i].row.since_major, changed[i].row.since_minor, changed[i].row.since_patch))
			row = &changed[i].row;
	return row;
}

static void since_text(const struct kernel_default *row, char *buf, size_t len)
{
	if (row->since_patch)
		snprintf(buf, len, "%d.%d.%d", row->since_major, row->since_minor, row->since_patch);
	else
		snprintf(buf, len, "%d.%d", row->since_major, row->since_minor);
}

static void value_text(const struct kernel_default *row, int64_t v, char *buf, size_t len)
{
	if (!strcmp(row->unit, "bool"))
		snprintf(buf, len, "%s", v ? "on" : "off");
	else if (v == KSET_UNLIMITED && row == &table[KSET_RLIMIT_RTTIME])
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRId64, v);
}

/* ---- site settings ---- */

static bool parse_value(enum kernel_setting s, const char *text, int64_t *out)
{
	const struct kernel_default *row = &table[s];

	if (s == KSET_RT_RUNTIME_SHARE) {
		if (!strcasecmp(text, "on") || !strcasecmp(text, "true")) {
			*out = 1;
			return true;
		}
		if (!strcasecmp(text, "off") || !strcasecmp(text, "false")) {
			*out = 0;
			return true;
		}
	}
	if (s == KSET_RLIMIT_RTTIME && (!strcasecmp(text, "unlimited") || !strcasecmp(text, "infinity"))) {
		*out = KSET_UNLIMITED;
		return true;
	}
	return parse_i64(text, row->min, row->max, out);
}

bool site_setting_parse(struct site_settings *site, const char *arg, char *why, size_t len)
{
	const char *eq = strchr(arg, '=');
	char name[64];
	enum kernel_setting s;
	int64_t value;

	if (!eq || eq == arg || !eq[1]) {
		snprintf(why, len, "expected NAME=VALUE, NAME one of %s", kernel_setting_names());
		return false;
	}
	if ((size_t)(eq - arg) >= sizeof(name)) {
		snprintf(why, len, "unknown setting (known: %s)", kernel_setting_names());
		return false;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	s = kernel_setting_find(name);
	if (s == KSET_COUNT) {
		snprintf(why, len, "unknown setting '%s' (known: %s)", name, kernel_setting_names());
		return false;
	}
	if (!parse_value(s, eq + 1, &value)) {
		const struct kernel_default *row = &table[s];

		if (s == KSET_RT_RUNTIME_SHARE)
			snprintf(why, len, "%s: '%s' is not on, off, 1 or 0", name, eq + 1);
		else if (s == KSET_RLIMIT_RTTIME)
			snprintf(why, len, "%s: '%s' is not unlimited, -1 or a number of us up to %" PRId64, name, eq + 1,
				 row->max);
		else
			snprintf(why, len, "%s: '%s' is not a whole number of %s from %" PRId64 " to %" PRId64, name,
				 eq + 1, row->unit, row->min, row->max);
		return false;
	}
	if (site->set[s]) {
		snprintf(why, len, "%s given twice", name);
		return false;
	}
	site->set[s] = true;
	site->value[s] = value;
	return true;
}

int64_t kernel_setting_expected(const struct site_settings *site, enum kernel_setting s)
{
	return site && site->set[s] ? site->value[s] : table[s].value;
}

int64_t kernel_setting_expected_on(const struct site_settings *site, const struct kernel_facts *k,
				   enum kernel_setting s)
{
	return site && site->set[s] ? site->value[s] : kernel_default_for(s, k)->value;
}

bool site_settings_consistent(const struct site_settings *site, char *why, size_t len)
{
	static const enum kernel_setting pairs[][2] = {
		{ KSET_SYSCTL_RUNTIME, KSET_SYSCTL_PERIOD },
		{ KSET_CGROUP_RUNTIME, KSET_CGROUP_PERIOD },
		{ KSET_FS_RUNTIME, KSET_FS_PERIOD },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int64_t runtime = kernel_setting_expected(site, pairs[i][0]), period = kernel_setting_expected(site, pairs[i][1]);

		if ((site->set[pairs[i][0]] || site->set[pairs[i][1]]) && runtime > period) {
			snprintf(why, len, "%s %" PRId64 " is above %s %" PRId64 " (%s); the kernel refuses a runtime above its period",
				 table[pairs[i][0]].name, runtime, table[pairs[i][1]].name, period,
				 site->set[pairs[i][0]] && site->set[pairs[i][1]] ? "both given" : "one given, the other the default");
			return false;
		}
	}
	return true;
}

json_object *site_settings_to_json(const struct site_settings *site)
{
	json_object *obj = json_object_new_object();

	for (int s = 0; s < KSET_COUNT; s++)
		if (site && site->set[s])
			json_add_int64(obj, table[s].name, site->value[s]);
	return obj;
}

/* ---- the check ---- */

/* "kernel default since 2.6.25: sysctl_sched_rt_runtime = 950000 (...)" or the site's value. */
static void expected_from(const struct site_settings *site, const struct kernel_facts *k, enum kernel_setting s,
			  char *buf, size_t len)
{
	const struct kernel_default *row = kernel_default_for(s, k);
	char since[16], dflt[32], value[32];

	since_text(row, since, sizeof(since));
	value_text(row, row->value, dflt, sizeof(dflt));
	if (site && site->set[s]) {
		value_text(row, site->value[s], value, sizeof(value));
		snprintf(buf, len, "site setting --site-setting %s=%s (the kernel's default, since %s, is %s)", row->name,
			 value, since, dflt);
	} else {
		snprintf(buf, len, "kernel default since %s: %s", since, row->origin);
	}
}

/* The rule text; a long one is cut (vsnprintf: the compiler need not prove it fits). */
static void __attribute__((format(printf, 2, 3))) rule_set(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->rule, sizeof(c->rule), fmt, ap);
	va_end(ap);
}

static void check_init(struct check *c, const char *metric, const char *unit)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->task, sizeof(c->task), "kernel");
	snprintf(c->metric, sizeof(c->metric), "%s", metric);
	c->unit = unit;
	c->kind = CHECK_APPROX;
}

/* RT_RUNTIME_SHARE unreadable: a lone hog throttled at its runtime borrowed nothing. */
static bool share_by_behaviour(const struct kernel_model *m, const struct defaults_behaviour *b, struct check *c,
			       const char *unread, const char *from)
{
	const struct regime_observation *o = b ? b->observed : NULL;

	if (!o || !o->done || !m->rt_bandwidth || !b->other_cpu)
		return false;
	c->measured = o->throttle_seen ? 0 : 1;
	c->was_measured = true;
	rule_set(c,
		 "%s; not readable (%s), judged by behaviour: the regime probe's lone FIFO hog at 950000/1000000 %s "
		 "(longest gap %.1f ms) with the other CPUs' RT runtime idle to borrow",
		 from, unread, o->throttle_seen ? "was throttled, so borrowed none: off"
						: "ran unthrottled: it borrowed (on), or RT throttling does not work (see regime-probe)",
		 o->hog_alone_gap_max_us / 1000);
	return true;
}

static void judge_row(const struct kernel_facts *k, const struct kernel_model *m, const struct kernel_readings *r,
		      const struct site_settings *site, const struct defaults_behaviour *b, enum kernel_setting s,
		      struct check *c)
{
	const struct kernel_default *row = kernel_default_for(s, k);
	const struct setting_reading *rd = &r->s[s];
	char from[320], where[16] = "";

	check_init(c, row->name, row->unit);
	c->expected = (double)kernel_setting_expected_on(site, k, s);
	expected_from(site, k, s, from, sizeof(from));
	/* HZ=300 kernels without the 2023 fix read 90: 30 jiffies of (1000 / 300) ms, rounded down. */
	if (s == KSET_RR_TIMESLICE && !(site && site->set[s]) && m->tick_us > 3333 && m->tick_us < 3334) {
		c->tolerance = 10;
		snprintf(from + strlen(from), sizeof(from) - strlen(from), "; HZ=300 kernels before a 2023 fix read 90");
	}
	if (!rd->read) {
		if (s == KSET_RT_RUNTIME_SHARE && share_by_behaviour(m, b, c, rd->why, from)) {
			c->passed = fabs(c->measured - c->expected) <= c->tolerance;
			return;
		}
		c->skipped = true;
		rule_set(c, "not measured: %s%s; %s", rd->why,
			 s == KSET_FS_RUNTIME || s == KSET_FS_PERIOD ? " (the fair server's share is judged by behaviour: "
								       "kernel.fair_server_share)" : "",
			 from);
		return;
	}
	if (rd->cpu >= 0)
		snprintf(where, sizeof(where), "cpu%d", rd->cpu);
	c->measured = (double)rd->value;
	c->was_measured = true;
	c->passed = fabs(c->measured - c->expected) <= c->tolerance;
	rule_set(c, "%s; read from %s%s%s", from, row->source, rd->cpu >= 0 ? " on " : "",
		 rd->cpu >= 0 ? where : "");
}

/*
 * The fair server's share by behaviour: the regime probe's CFS task beside a FIFO hog at runtime
 * -1 gets the fair server's runtime every period. Tolerance: other work on the CPU shares the
 * slot with it (the noise floor's lost share of it, and its longest stall once in the window),
 * the window's two edges and the runtime's enforcement a tick each, and a period cut by the
 * window when it is not whole periods (one runtime).
 */
static void judge_fs_share(const struct kernel_model *m, const struct site_settings *site, const struct defaults_behaviour *b, struct check *c)
{
	const struct regime_observation *o = b ? b->observed : NULL;
	double runtime_us = kernel_setting_expected(site, KSET_FS_RUNTIME) / 1e3,
	       period_us = kernel_setting_expected(site, KSET_FS_PERIOD) / 1e3;
	double window_us, cut, catch_share;
	bool site_fs = site && (site->set[KSET_FS_RUNTIME] || site->set[KSET_FS_PERIOD]);
	char from[200];

	check_init(c, "fair_server_share", "ratio");
	c->expected = runtime_us / period_us;
	snprintf(from, sizeof(from), "the fair server's runtime/period %.0f/%.0f us (%s)", runtime_us, period_us,
		 site_fs ? "site setting" : "kernel default since 6.12");
	c->skipped = true;
	if (m->timer_thread_priority) {
		rule_set(c, "not measured: CFS timer wake-ups run in RT thread ktimers (FIFO %d, "
			 "PREEMPT_RT), which the probe's hog starves: its CFS task cannot show the fair server's share; %s",
			 m->timer_thread_priority, from);
		return;
	}
	if (!o || !o->done || o->window_s <= 0) {
		rule_set(c, "not measured: the regime probe did not run (%s); %s",
			 b && b->probe_why ? b->probe_why : "no probe", from);
		return;
	}
	window_us = o->window_s * 1e6;
	cut = fmod(window_us, period_us);
	cut = fmin(cut, period_us - cut) > 2 * m->tick_us ? runtime_us / window_us : 0;
	c->measured = o->victim_share_unlimited;
	c->tolerance = c->expected * b->noise_loss_share + b->noise_gap_max_us / window_us + 2 * m->tick_us / window_us +
		       m->tick_us / period_us + cut;
	/* The change this row exists to catch: the runtime off by half (25 ms a second by default). */
	catch_share = c->expected > 0 ? c->expected / 2 : REGIME_FAIR_SERVER_SHARE_MIN;
	if (c->tolerance >= catch_share) {
		rule_set(c, "not measured: the tolerance %.4f (noise floor lost %.1f%%, longest "
			 "gap %.1f ms; tick %.0f us; window %.2f s) is not below %.4f, a runtime off by half: the CFS "
			 "task's %.4f cannot tell a changed default from noise; %s",
			 c->tolerance, 100 * b->noise_loss_share, b->noise_gap_max_us / 1000, m->tick_us, o->window_s,
			 catch_share, c->measured, from);
		return;
	}
	c->was_measured = true;
	c->skipped = false;
	c->passed = fabs(c->measured - c->expected) <= c->tolerance;
	rule_set(c, "by behaviour: the regime probe's CFS task beside a FIFO hog at runtime -1 "
		 "gets %s = %.4f [tolerance: expected x noise loss %.4f + longest noise gap / window + two ticks / "
		 "window + a tick / period%s]", from, c->expected, b->noise_loss_share,
		 cut > 0 ? " + a runtime / window (the window is not whole periods)" : "");
}

int kernel_defaults_judge(const struct kernel_facts *k, const struct kernel_model *m,
			  const struct kernel_readings *r, const struct site_settings *site,
			  const struct defaults_behaviour *b, struct check *out)
{
	int n = 0;

	for (int s = 0; s < KSET_COUNT; s++) {
		/* Runtime sharing only changes anything where RT throttling is enforced. */
		if (s == KSET_RT_RUNTIME_SHARE && !m->rt_bandwidth)
			continue;
		if (kernel_default_applies(&table[s], k))
			judge_row(k, m, r, site, b, (enum kernel_setting)s, &out[n++]);
	}
	if (kernel_default_applies(&table[KSET_FS_RUNTIME], k))
		judge_fs_share(m, site, b, &out[n++]);
	return n;
}

/* A row not measured is still judged when behaviour stood in: the fair server's share for its two settings. */
static bool judged_elsewhere(const struct check *checks, int n, const struct check *c)
{
	const char *other[3] = { NULL, NULL, NULL };
	int want = 0, measured = 0;

	if (!strcmp(c->metric, table[KSET_FS_RUNTIME].name) || !strcmp(c->metric, table[KSET_FS_PERIOD].name)) {
		other[0] = "fair_server_share";
		want = 1;
	} else if (!strcmp(c->metric, "fair_server_share")) {
		other[0] = table[KSET_FS_RUNTIME].name;
		other[1] = table[KSET_FS_PERIOD].name;
		want = 2;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < want; k++)
			measured += checks[i].was_measured && !strcmp(checks[i].metric, other[k]);
	return want && measured == want;
}

enum verdict kernel_checks_verdict(const struct check *checks, int n, char *why, size_t len)
{
	int measured = 0, unjudged = 0;
	bool failed = false;

	why[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (checks[i].was_measured) {
			failed |= !checks[i].passed;
			measured++;
		} else if (!judged_elsewhere(checks, n, &checks[i])) {
			snprintf(why + strlen(why), len - strlen(why), "%s%s", unjudged++ ? ", " : "unjudged: not judged: ",
				 checks[i].metric);
		}
	}
	if (failed)
		return VERDICT_FAIL;
	if (!measured) {
		snprintf(why, len, "unjudged: no setting could be read");
		return VERDICT_UNJUDGED;
	}
	if (unjudged)
		snprintf(why + strlen(why), len - strlen(why), " (each check says why)");
	return unjudged ? VERDICT_UNJUDGED : VERDICT_PASS;
}

json_object *kernel_defaults_table_json(const struct kernel_facts *k, const struct site_settings *site)
{
	json_object *arr = json_object_new_array();

	for (int s = 0; s < KSET_COUNT; s++) {
		const struct kernel_default *row = kernel_default_for((enum kernel_setting)s, k);
		json_object *obj = json_object_new_object();
		char since[16];

		since_text(row, since, sizeof(since));
		json_add_str(obj, "setting", row->name);
		json_add_int64(obj, "default", row->value);
		json_add_str(obj, "unit", row->unit);
		json_add_str(obj, "since", since);
		json_add_bool(obj, "applies", kernel_default_applies(row, k));
		if (site && site->set[s])
			json_add_int64(obj, "site_value", site->value[s]);
		json_add_str(obj, "source", row->source);
		json_add_str(obj, "origin", row->origin);
		json_object_array_add(arr, obj);
	}
	return arr;
}
