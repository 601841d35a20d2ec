// SPDX-License-Identifier: GPL-2.0-only
/* The regime predicted from version and config (fair server, RT_RUNTIME_SHARE, ktimers); the probe judged. */
#include "kernel_model.h"
#include "json_util.h"
#include "expect.h"

#include <stdio.h>
#include <string.h>

static bool at_least(const struct kernel_facts *k, int major, int minor)
{
	return k->major > major || (k->major == major && k->minor >= minor);
}

static const char *fair_server_state(const struct kernel_facts *k, const struct kernel_model *m)
{
	if (m->fs_from_debugfs)
		return m->fair_server ? "present (debugfs)" : "off (debugfs runtime 0)";
	return at_least(k, 6, 12) ? "present (6.12+)" : "absent (before 6.12)";
}

static const char *ext_server_state(const struct kernel_facts *k, const struct kernel_model *m, char *buf, size_t len)
{
	if (!m->ext_server)
		return at_least(k, 7, 0) ? (k->sched_class_ext == 0 ? "none (CONFIG_SCHED_CLASS_EXT off)"
								 : "none (CONFIG_SCHED_CLASS_EXT unknown: not assumed)")
					 : "none (before 7.0)";
	snprintf(buf, len, "%lld/%lld us (%s), %s", (long long)m->es_runtime_us, (long long)m->es_period_us,
		 m->es_from_debugfs ? "debugfs" : "7.0+ default", m->ext_server_reserved
		 ? (at_least(k, 7, 2) ? "admitted: a BPF scheduler is loaded" : "admitted beside the fair server (before 7.2)")
		 : "not admitted: 7.2+ reserves only the class in use and no BPF scheduler is loaded");
	return buf;
}

/* A deadline server's runtime/period in us: debugfs's where it read them, else the 50 ms / 1 s default. */
static bool server_values(bool readable, int64_t runtime_ns, int64_t period_ns, int64_t *runtime_us, int64_t *period_us)
{
	bool from_debugfs = readable && runtime_ns >= 0 && period_ns > 0;

	*runtime_us = from_debugfs ? runtime_ns / 1000 : 50000;
	*period_us = from_debugfs ? period_ns / 1000 : 1000000;
	return from_debugfs;
}

/* The ext server: 7.0+ with SCHED_CLASS_EXT, or wherever debugfs shows it. */
static void ext_server_predict(const struct kernel_facts *k, struct kernel_model *m)
{
	m->ext_server = (at_least(k, 7, 0) && k->sched_class_ext == 1) || k->ext_server_readable;
	m->es_from_debugfs = server_values(k->ext_server_readable, k->ext_server_runtime_ns, k->ext_server_period_ns,
					   &m->es_runtime_us, &m->es_period_us);
	/* 7.2 reserves server bandwidth only for the class in use: fair unless a BPF scheduler runs. */
	m->ext_server_reserved = m->ext_server && m->es_runtime_us > 0 &&
				 (!at_least(k, 7, 2) || k->sched_ext_enabled == 1);
}

void kernel_model_predict(const struct kernel_facts *k, struct kernel_model *m)
{
	char rt_why[480], ext[200];
	int groups;

	memset(m, 0, sizeof(*m));
	/* 6.12 added the deadline fair server (50 ms every 1 s per CPU by default). */
	m->fair_server_kernel = at_least(k, 6, 12);
	m->fair_server = m->fair_server_kernel;
	/* Where debugfs shows the fair server, its values rule; runtime 0 switches it off. */
	m->fs_from_debugfs = server_values(k->fair_server_readable, k->fair_server_runtime_ns, k->fair_server_period_ns,
					   &m->fs_runtime_us, &m->fs_period_us);
	if (m->fs_from_debugfs)
		m->fair_server = m->fs_runtime_us > 0;
	/*
	 * 6.12 also dropped the global RT bandwidth control for kernels without RT group scheduling;
	 * with it (and before 6.12) runtime/period is enforced per CPU.
	 */
	/*
	 * The kernel's build and boot decide, not the server's setting: switched off, it leaves no
	 * limit behind. RT groups are on or off as the running kernel shows (6.16+: rt_group_sched=).
	 */
	groups = kernel_rt_groups_active(k);
	if (!m->fair_server_kernel) {
		m->rt_bandwidth = true;
		snprintf(rt_why, sizeof(rt_why), "before 6.12 RT throttling is always built in");
	} else if (groups == 1 && k->rt_group_boot == RTG_BOOT_AS_BUILT) {
		m->rt_bandwidth = true;
		snprintf(rt_why, sizeof(rt_why), "CONFIG_RT_GROUP_SCHED=y keeps RT throttling");
	} else if (groups == 1) {
		m->rt_bandwidth = true;
		snprintf(rt_why, sizeof(rt_why), "RT group scheduling on at run time (%s) keeps RT throttling",
			 k->rt_group_sched_basis);
	} else if (groups == 0 && k->rt_group_sched != 1) {
		/* Config unknown, but the cgroup v1 cpu controller runs without RT files. */
		m->rt_bandwidth = false;
		snprintf(rt_why, sizeof(rt_why), "without CONFIG_RT_GROUP_SCHED%s%s%s only the fair server limits RT",
			 k->rt_group_sched == 0 ? "" : " (", k->rt_group_sched == 0 ? "" : k->rt_group_sched_basis,
			 k->rt_group_sched == 0 ? "" : ")");
	} else if (groups == 0 && at_least(k, 7, 2)) {
		/*
		 * rt_group_sched=0 with RT_GROUP_SCHED=y: the root group's rt_rq still accounts RT time,
		 * but against the budget sched_init gave it from the sysctl's built-in value, which
		 * nothing changes later (the sysctl stopped reaching it in 6.12, the cgroup files are not
		 * there). From 7.2 that value is the whole period: never throttled.
		 */
		m->rt_bandwidth = false;
		snprintf(rt_why, sizeof(rt_why), "RT group scheduling off at run time (%s): the root group keeps its "
			 "boot budget of 1000000/1000000 us (7.2+), so as without CONFIG_RT_GROUP_SCHED only the fair "
			 "server limits RT", k->rt_group_sched_basis);
	} else if (groups == 0) {
		/* 6.16 to 7.1: the boot budget is 950000/1000000, fixed; predicted from the source, not booted. */
		m->rt_bandwidth = true;
		snprintf(rt_why, sizeof(rt_why), "RT group scheduling off at run time (%s): the root group keeps its "
			 "boot budget of 950000/1000000 us (before 7.2), RT throttling at that budget whatever the "
			 "sysctl says but -1", k->rt_group_sched_basis);
	} else {
		m->rt_bandwidth = true;
		snprintf(rt_why, sizeof(rt_why), "config unknown: RT throttling assumed, the regime probe decides");
	}
	/* RT_RUNTIME_SHARE has been off by default since 5.10. */
	m->rt_runtime_share = m->rt_bandwidth && !at_least(k, 5, 10);
	/*
	 * PREEMPT_RT with ktimers/N (SCHED_FIFO 1): a SCHED_OTHER task sleeping on a timer is woken
	 * by that thread, which a FIFO hog above it starves and RT throttling throttles with the
	 * hog. The fair server serves CFS tasks, not it: CFS tasks that sleep never come back.
	 */
	m->timer_thread_priority = k->timer_thread_priority;
	m->tick_us = k->hz > 0 ? 1e6 / k->hz : 10000.0;	/* unknown HZ: assume the coarsest, 100 */
	ext_server_predict(k, m);
	snprintf(m->basis, sizeof(m->basis), "kernel %d.%d: fair server %s; ext server %s; %s; RT_RUNTIME_SHARE %s; "
		 "%s; tick %.0f us%s", k->major, k->minor, fair_server_state(k, m), ext_server_state(k, m, ext, sizeof(ext)),
		 rt_why,
		 m->rt_runtime_share ? "on (before 5.10)" : "off (5.10+)",
		 m->timer_thread_priority ? "CFS timer wake-ups in RT thread ktimers (PREEMPT_RT)" : "no RT timer thread",
		 m->tick_us, k->hz > 0 ? "" : " (HZ unknown)");
}

void kernel_model_for_policy(const struct kernel_model *m, const struct policy *p, struct kernel_model *out)
{
	*out = *m;
	if (!p->fair_server.set || !m->fair_server_kernel)
		return;
	out->fs_runtime_us = p->fair_server.runtime_us;
	if (p->fair_server.period_us > 0)
		out->fs_period_us = p->fair_server.period_us;
	out->fair_server = out->fs_runtime_us > 0;
}

enum regime regime_for(const struct kernel_model *m, int64_t runtime_us, int64_t period_us)
{
	/* runtime >= period never throttles: the kernel treats it like no limit. */
	bool rt_limit = m->rt_bandwidth && runtime_us >= 0 && runtime_us < period_us;

	if (rt_limit && m->timer_thread_priority)
		return REGIME_TIMERS_STARVED;
	if (rt_limit)
		return m->rt_runtime_share ? REGIME_RUNTIME_SHARE : REGIME_CLASSIC;
	/* A sleeping CFS task never wakes to use the fair server's time; the hog runs on. */
	return m->fair_server && !m->timer_thread_priority ? REGIME_FAIR_SERVER_ONLY : REGIME_NO_LIMIT;
}

const char *regime_name(enum regime r)
{
	static const char *const names[] = {
		[REGIME_CLASSIC] = "classic-throttling",
		[REGIME_RUNTIME_SHARE] = "rt-runtime-share",
		[REGIME_FAIR_SERVER_ONLY] = "fair-server-only",
		[REGIME_NO_LIMIT] = "no-limit",
		[REGIME_TIMERS_STARVED] = "timers-starved",
	};

	return names[r];
}

bool regime_probe_running_cfs(const struct kernel_model *m)
{
	/* Elsewhere a CFS task woken by a timer is served like a running one: window 2 shows both. */
	return m->timer_thread_priority > 0;
}

static bool throttle_expected(const struct kernel_model *m)
{
	enum regime at_default = regime_for(m, 950000, 1000000);

	return at_default == REGIME_CLASSIC || at_default == REGIME_TIMERS_STARVED;
}

/* Woken from a timer sleep as the hog starts: served by a fair server unless ktimers starves. */
static bool timer_wakeup_expected(const struct kernel_model *m)
{
	return regime_for(m, -1, 1000000) == REGIME_FAIR_SERVER_ONLY;
}

void regime_observation_judge(const struct kernel_model *m, struct regime_observation *o)
{
	char running[160] = "";

	/*
	 * Throttling shows as one gap of the whole 50 ms slot each period; half of it separates
	 * it from noise, which idles a CPU for a few ms at most. The share alone cannot tell: an
	 * emulated guest loses 3% in short gaps (0.970 with gaps of 3.7 ms at most).
	 */
	o->throttle_seen = o->hog_alone_gap_max_us >= REGIME_THROTTLE_GAP_US;
	o->timer_wakeup_served = o->victim_share_unlimited > REGIME_FAIR_SERVER_SHARE_MIN;
	/* A fair server serves a runnable CFS task, however it woke: the running one tells. */
	o->fair_server_seen = o->running == RUNNING_PROBED ? o->victim_running_share_unlimited > REGIME_FAIR_SERVER_SHARE_MIN
						: o->timer_wakeup_served;
	o->agrees = o->throttle_seen == throttle_expected(m) && o->timer_wakeup_served == timer_wakeup_expected(m) &&
		    (o->running != RUNNING_PROBED || o->fair_server_seen == m->fair_server);
	if (o->running == RUNNING_PROBED)
		snprintf(running, sizeof(running), "; one already running when the hog started got %.4f: %s",
			 o->victim_running_share_unlimited,
			 o->fair_server_seen ? "a fair server reserves CFS time" : "CFS starves without a limit");
	snprintf(o->evidence, sizeof(o->evidence),
		 "hog alone at 950000/1000000 got %.4f of the CPU (longest gap %.1f ms): %s; "
		 "a CFS task beside a hog at runtime -1 got %.4f: %s%s",
		 o->hog_alone_share, o->hog_alone_gap_max_us / 1000.0,
		 o->throttle_seen ? "RT throttling idles the CPU" : "no RT throttling of a lone hog",
		 o->victim_share_unlimited,
		 o->running == RUNNING_PROBED ? (o->timer_wakeup_served ? "woken from its timer sleep, it is served"
							      : "woken from its timer sleep by an RT thread the hog starves, it never runs")
				   : o->fair_server_seen ? "a fair server reserves CFS time" : "CFS starves without a limit",
		 running);
}

/* A check of the probe's: measured against a threshold, the side predicted; passed as observed. */
static void probe_check(struct check *c, const char *metric, const char *unit, double measured, double threshold,
			bool above_predicted, bool passed)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->task, sizeof(c->task), "probe");
	snprintf(c->metric, sizeof(c->metric), "%s", metric);
	c->unit = unit;
	c->measured = measured;
	c->expected = threshold;
	c->kind = above_predicted ? CHECK_AT_LEAST : CHECK_AT_MOST;
	c->was_measured = true;
	c->passed = passed;
}

int regime_probe_checks(const struct kernel_model *m, const struct regime_observation *o, struct check *out)
{
	bool throttle = throttle_expected(m), served = timer_wakeup_expected(m);

	probe_check(&out[0], "hog_alone_gap_max_us", "us", o->hog_alone_gap_max_us, REGIME_THROTTLE_GAP_US, throttle,
		    o->throttle_seen == throttle);
	snprintf(out[0].rule, sizeof(out[0].rule), "predicted %s at 950000/1000000: %s; observed: a lone FIFO hog got "
		 "%.4f of the CPU, longest gap %.1f ms (%s)", regime_name(regime_for(m, 950000, 1000000)),
		 throttle ? "RT throttling idles the CPU 50 ms a period, a gap of at least half of it"
			  : "no RT throttling of a lone hog, no gap of half the 50 ms slot",
		 o->hog_alone_share, o->hog_alone_gap_max_us / 1000, o->throttle_seen ? "throttled" : "not throttled");
	/* at_least is ">= expected"; the fair server is seen above the midpoint, so both sides hold. */
	probe_check(&out[1], "victim_share_unlimited", "ratio", o->victim_share_unlimited, REGIME_FAIR_SERVER_SHARE_MIN,
		    served, o->timer_wakeup_served == served);
	snprintf(out[1].rule, sizeof(out[1].rule), "predicted %s at runtime -1: %s; observed: a CFS task woken as a FIFO "
		 "hog starts got %.4f (%s)", regime_name(regime_for(m, -1, 1000000)),
		 served ? "a fair server gives CFS time, above the midpoint of 0 and 0.05"
			: m->fair_server ? "its wake-up waits for ktimers, which the hog starves: below the midpoint of 0 and 0.05"
					 : "nothing gives CFS time, below the midpoint of 0 and 0.05",
		 o->victim_share_unlimited, o->timer_wakeup_served ? "it got time" : "CFS starves");
	if (o->running == RUNNING_MISSED) {
		probe_check(&out[2], "victim_running_share_unlimited", "ratio", o->victim_running_share_unlimited,
			    REGIME_FAIR_SERVER_SHARE_MIN, m->fair_server, false);
		out[2].was_measured = false;
		snprintf(out[2].rule, sizeof(out[2].rule), "not measured: the CFS task due to run 10 ms before the FIFO hog "
			 "was woken only after the hog started, so no CFS task was running when it did (it got %.4f)",
			 o->victim_running_share_unlimited);
		return 3;
	}
	if (o->running != RUNNING_PROBED)
		return 2;
	probe_check(&out[2], "victim_running_share_unlimited", "ratio", o->victim_running_share_unlimited,
		    REGIME_FAIR_SERVER_SHARE_MIN, m->fair_server, o->fair_server_seen == m->fair_server);
	snprintf(out[2].rule, sizeof(out[2].rule), "predicted: %s; observed: a CFS task already running when a FIFO hog "
		 "started at runtime -1 got %.4f (%s)",
		 m->fair_server ? "a fair server serves a runnable CFS task, above the midpoint of 0 and 0.05"
				: "no fair server, nothing gives CFS time: below the midpoint of 0 and 0.05",
		 o->victim_running_share_unlimited, o->fair_server_seen ? "a fair server reserves CFS time" : "CFS starves");
	return 3;
}

json_object *kernel_model_to_json(const struct kernel_model *m, const struct regime_observation *o)
{
	json_object *obj = json_object_new_object(), *pred = json_object_new_object();

	json_add_bool(pred, "fair_server", m->fair_server);
	json_add_bool(pred, "rt_bandwidth", m->rt_bandwidth);
	json_add_bool(pred, "rt_runtime_share", m->rt_runtime_share);
	json_add_int64(pred, "fair_server_runtime_us", m->fs_runtime_us);
	json_add_int64(pred, "fair_server_period_us", m->fs_period_us);
	json_add_str(pred, "fair_server_values", m->fs_from_debugfs ? "read from debugfs" : "kernel defaults, assumed");
	json_add_bool(pred, "ext_server", m->ext_server);
	if (m->ext_server) {
		json_add_bool(pred, "ext_server_reserved", m->ext_server_reserved);
		json_add_int64(pred, "ext_server_runtime_us", m->es_runtime_us);
		json_add_int64(pred, "ext_server_period_us", m->es_period_us);
		json_add_str(pred, "ext_server_values", m->es_from_debugfs ? "read from debugfs" : "kernel defaults, assumed");
	}
	json_add_int(pred, "timer_thread_priority", m->timer_thread_priority);
	json_add_double(pred, "tick_us", m->tick_us);
	json_add_str(pred, "basis", m->basis);
	json_object_object_add(obj, "predicted", pred);
	if (o && o->done) {
		json_object *obs = json_object_new_object();

		json_add_double(obs, "window_s", o->window_s);
		json_add_double(obs, "hog_alone_share", o->hog_alone_share);
		json_add_double(obs, "hog_alone_gap_max_us", o->hog_alone_gap_max_us);
		json_add_double(obs, "victim_share_unlimited", o->victim_share_unlimited);
		if (o->running == RUNNING_PROBED)
			json_add_double(obs, "victim_running_share_unlimited", o->victim_running_share_unlimited);
		json_add_bool(obs, "rt_throttling_seen", o->throttle_seen);
		json_add_bool(obs, "fair_server_seen", o->fair_server_seen);
		json_add_bool(obs, "timer_wakeup_served", o->timer_wakeup_served);
		json_add_str(obs, "evidence", o->evidence);
		json_object_object_add(obj, "observed", obs);
		json_add_bool(obj, "agrees", o->agrees);
	}
	return obj;
}

const char *regime_mask_names(unsigned mask, char *buf, size_t len)
{
	buf[0] = '\0';
	if (mask == REGIMES_ANY)
		return snprintf(buf, len, "any"), buf;
	for (int r = REGIME_CLASSIC; r < REGIME_COUNT; r++)
		if (mask & 1u << r)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", regime_name(r));
	return buf;
}
