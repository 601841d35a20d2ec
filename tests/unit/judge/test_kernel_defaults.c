// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's documented defaults (kernel_defaults.c), the check that the settings in force
 * are those (or a site's declared values), and the regime probe's result: a kernel whose fair
 * server defaults to 150 ms a second fails, a site that says so passes, an unreadable setting
 * is not measured with why; the regime probe's checks follow its agreement with the model.
 */
#include "kernel_defaults.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct kernel_facts facts(int major, int minor, int rt_group_sched, int hz)
{
	return make_kernel_facts(major, minor, rt_group_sched, hz);
}

/* Every setting read, at the kernel's defaults (this VM: 6.18, RT group scheduling). */
static struct kernel_readings defaults_read(void)
{
	struct kernel_readings r;

	memset(&r, 0, sizeof(r));
	for (int s = 0; s < KSET_COUNT; s++) {
		r.s[s].read = true;
		r.s[s].value = kernel_default_row((enum kernel_setting)s)->value;
		r.s[s].cpu = -1;
	}
	r.s[KSET_FS_RUNTIME].cpu = r.s[KSET_FS_PERIOD].cpu = 1;
	return r;
}

static void unreadable(struct kernel_readings *r, enum kernel_setting s, const char *why)
{
	r->s[s].read = false;
	snprintf(r->s[s].why, sizeof(r->s[s].why), "%s", why);
}

static struct regime_observation probe_seen(const struct kernel_model *m, double victim_share)
{
	return make_regime_probe(m, victim_share);
}

static const struct check *find(const struct check *checks, int n, const char *metric)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(checks[i].metric, metric))
			return &checks[i];
	return NULL;
}

struct judged {
	struct check checks[KSET_COUNT + 1];
	int n;
	const char *verdict;
	char why[320];
};

static void judge(const struct kernel_facts *k, const struct kernel_readings *r, const struct site_settings *site,
		  const struct regime_observation *o, double loss, struct judged *out)
{
	struct kernel_model m;
	struct defaults_behaviour b = {
		.observed = o, .probe_why = "--probe-seconds 0", .noise_loss_share = loss, .noise_gap_max_us = 223,
		.other_cpu = true,
	};

	kernel_model_predict(k, &m);
	out->n = kernel_defaults_judge(k, &m, r, site, &b, out->checks);
	out->verdict = verdict_name(kernel_checks_verdict(out->checks, out->n, out->why, sizeof(out->why)));
}

TEST(kernel_defaults_table_rows)
{
	const struct kernel_default *rt = kernel_default_row(KSET_SYSCTL_RUNTIME), *per = kernel_default_row(KSET_SYSCTL_PERIOD),
				    *fs = kernel_default_row(KSET_FS_RUNTIME), *fsp = kernel_default_row(KSET_FS_PERIOD),
				    *share = kernel_default_row(KSET_RT_RUNTIME_SHARE),
				    *rr = kernel_default_row(KSET_RR_TIMESLICE), *rttime = kernel_default_row(KSET_RLIMIT_RTTIME);
	struct kernel_facts k61 = facts(6, 1, 0, 250), k618 = facts(6, 18, 1, 250), k2624 = facts(2, 6, -1, 250);

	k2624.patch = 24;
	CHECK(rt->value == 950000 && per->value == 1000000, "sched_rt %lld/%lld", (long long)rt->value, (long long)per->value);
	CHECK(rt->since_major == 2 && rt->since_minor == 6 && rt->since_patch == 25, "sched_rt since 2.6.25");
	CHECK(fs->value == 50000000 && fsp->value == 1000000000, "fair server %lld/%lld ns", (long long)fs->value,
	      (long long)fsp->value);
	CHECK(fs->since_major == 6 && fs->since_minor == 12, "fair server since 6.12");
	CHECK(share->value == 0 && share->since_major == 5 && share->since_minor == 10, "RT_RUNTIME_SHARE off since 5.10");
	CHECK(rr->value == 100 && rttime->value == KSET_UNLIMITED, "rr %lld, rttime %lld", (long long)rr->value,
	      (long long)rttime->value);
	CHECK(kernel_setting_find("cpu.rt_runtime_us") == KSET_CGROUP_RUNTIME && kernel_setting_find("nope") == KSET_COUNT,
	      "names");
	for (int s = 0; s < KSET_COUNT; s++) {
		const struct kernel_default *row = kernel_default_row((enum kernel_setting)s);

		CHECK(row->name && row->unit && row->origin && row->source && row->origin[0] && row->source[0],
		      "row %d has a name, unit, origin and source", s);
		CHECK(row->value >= row->min && row->value <= row->max, "%s: default within what --site-setting takes", row->name);
	}
	CHECK(!kernel_default_applies(fs, &k61) && kernel_default_applies(fs, &k618), "fair server rows from 6.12 on");
	CHECK(!kernel_default_applies(kernel_default_row(KSET_CGROUP_RUNTIME), &k61) &&
	      kernel_default_applies(kernel_default_row(KSET_CGROUP_RUNTIME), &k618), "cgroup rows need RT group scheduling");
	CHECK(!kernel_default_applies(rt, &k2624), "no row before 2.6.25");
}

TEST(kernel_defaults_healthy_kernel_passes)
{
	struct kernel_facts k = facts(6, 18, 1, 250);
	struct kernel_readings r = defaults_read();
	struct site_settings site = { 0 };
	struct kernel_model m;
	struct regime_observation o;
	struct judged j;

	kernel_model_predict(&k, &m);
	o = probe_seen(&m, 0.0505);
	judge(&k, &r, &site, &o, 0.02, &j);
	CHECK(!strcmp(j.verdict, "pass"), "verdict %s (%s)", j.verdict, j.why);
	CHECK(j.n == KSET_COUNT + 1, "every row and the fair server's share: %d", j.n);
	for (int i = 0; i < j.n; i++)
		CHECK(j.checks[i].was_measured && j.checks[i].passed && !strcmp(j.checks[i].task, "kernel"), "%s: %s",
		      j.checks[i].metric, j.checks[i].rule);
	{
		const struct check *rt = find(j.checks, j.n, "sched_rt_runtime_us");

		CHECK(rt && strstr(rt->rule, "kernel default since 2.6.25"), "%s", rt ? rt->rule : "no row");
	}
	/* 6.1 without RT group scheduling: no fair server, no root cgroup rows. */
	k = facts(6, 1, 0, 250);
	judge(&k, &r, &site, NULL, 0.02, &j);
	CHECK(!strcmp(j.verdict, "pass") && j.n == KSET_COUNT - 4, "6.1: %s, %d checks", j.verdict, j.n);
	CHECK(!find(j.checks, j.n, "fair_server_share") && !find(j.checks, j.n, "cpu.rt_runtime_us"), "6.1 rows");
}

TEST(kernel_defaults_fair_server_150ms_fails_naming_it)
{
	struct kernel_facts k = facts(6, 18, 1, 250);
	struct kernel_readings r = defaults_read();
	struct site_settings site = { 0 };
	struct kernel_model m;
	struct regime_observation o;
	const struct check *c;
	struct judged j;

	/* debugfs readable: 150000/1000000 us per CPU, and the probe's CFS task got 0.15. */
	k.fair_server_readable = true;
	k.fair_server_runtime_ns = r.s[KSET_FS_RUNTIME].value = 150000000;
	kernel_model_predict(&k, &m);
	o = probe_seen(&m, 0.1502);
	judge(&k, &r, &site, &o, 0.02, &j);
	CHECK(!strcmp(j.verdict, "fail"), "verdict %s", j.verdict);
	c = find(j.checks, j.n, "fair_server_runtime_ns");
	CHECK(c && c->was_measured && !c->passed && c->measured == 150000000 && c->expected == 50000000,
	      "the runtime row fails: %g against %g", c ? c->measured : NAN, c ? c->expected : NAN);
	CHECK(c && strstr(c->rule, "cpu1") && strstr(c->rule, "kernel default since 6.12"), "rule: %s", c ? c->rule : "");
	c = find(j.checks, j.n, "fair_server_share");
	CHECK(c && c->was_measured && !c->passed, "the share 0.15 against 0.05 fails too");
	CHECK(find(j.checks, j.n, "fair_server_period_ns")->passed, "the period is the default");

	/* The same kernel where debugfs is unreadable: only behaviour shows it. */
	k.fair_server_readable = false;
	k.fair_server_runtime_ns = -1;
	unreadable(&r, KSET_FS_RUNTIME, "/sys/kernel/debug/sched/fair_server/cpu1/runtime: Operation not permitted");
	unreadable(&r, KSET_FS_PERIOD, "/sys/kernel/debug/sched/fair_server/cpu1/runtime: Operation not permitted");
	kernel_model_predict(&k, &m);
	o = probe_seen(&m, 0.1502);
	judge(&k, &r, &site, &o, 0.02, &j);
	c = find(j.checks, j.n, "fair_server_share");
	CHECK(!strcmp(j.verdict, "fail") && c && c->was_measured && !c->passed && c->expected == 0.05,
	      "by behaviour: %s, share %g expected %g +- %g", j.verdict, c ? c->measured : NAN, c ? c->expected : NAN,
	      c ? c->tolerance : NAN);
	CHECK(c && c->tolerance > 0.004 && c->tolerance < 0.02, "tolerance from noise, tick and window: %g",
	      c ? c->tolerance : NAN);
}

TEST(kernel_defaults_site_setting_is_expected)
{
	struct kernel_facts k = facts(6, 18, 1, 250);
	struct kernel_readings r = defaults_read();
	struct site_settings site = { 0 };
	struct kernel_model m;
	struct regime_observation o;
	const struct check *c;
	struct judged j;
	char why[320];

	k.fair_server_readable = true;
	k.fair_server_runtime_ns = r.s[KSET_FS_RUNTIME].value = 150000000;
	r.s[KSET_SYSCTL_RUNTIME].value = 980000;
	kernel_model_predict(&k, &m);
	o = probe_seen(&m, 0.1502);
	CHECK(site_setting_parse(&site, "fair_server_runtime_ns=150000000", why, sizeof(why)), "%s", why);
	CHECK(site_setting_parse(&site, "sched_rt_runtime_us=980000", why, sizeof(why)), "%s", why);
	CHECK(site_settings_consistent(&site, why, sizeof(why)), "%s", why);
	judge(&k, &r, &site, &o, 0.02, &j);
	CHECK(!strcmp(j.verdict, "pass"), "with the site's values: %s (%s)", j.verdict, j.why);
	c = find(j.checks, j.n, "sched_rt_runtime_us");
	CHECK(c && c->expected == 980000 && strstr(c->rule, "--site-setting sched_rt_runtime_us=980000"), "rule: %s",
	      c ? c->rule : "");
	c = find(j.checks, j.n, "fair_server_share");
	CHECK(c && fabs(c->expected - 0.15) < 1e-12 && c->passed, "share expected from the site: %g",
	      c ? c->expected : NAN);
	/* The site's value where the kernel runs its default: that differs too. */
	r.s[KSET_SYSCTL_RUNTIME].value = 950000;
	judge(&k, &r, &site, &o, 0.02, &j);
	CHECK(!strcmp(j.verdict, "fail") && !find(j.checks, j.n, "sched_rt_runtime_us")->passed, "%s", j.verdict);
}

TEST(kernel_defaults_unreadable_setting_is_not_measured)
{
	struct kernel_facts k = facts(6, 18, 1, 250);
	struct kernel_readings r = defaults_read();
	struct site_settings site = { 0 };
	struct kernel_model m;
	struct regime_observation o;
	const struct check *c;
	struct judged j;
	json_object *obj;

	unreadable(&r, KSET_FS_RUNTIME, "/sys/kernel/debug/sched/fair_server/cpu1/runtime: Operation not permitted "
					 "(kernel lockdown: integrity)");
	unreadable(&r, KSET_FS_PERIOD, "/sys/kernel/debug/sched/fair_server/cpu1/runtime: Operation not permitted "
					"(kernel lockdown: integrity)");
	unreadable(&r, KSET_RT_RUNTIME_SHARE, "/sys/kernel/debug/sched/features: Operation not permitted");
	kernel_model_predict(&k, &m);
	o = probe_seen(&m, 0.0505);
	judge(&k, &r, &site, &o, 0.02, &j);
	c = find(j.checks, j.n, "fair_server_runtime_ns");
	CHECK(c && !c->was_measured && c->skipped && !strncmp(c->rule, "not measured: ", 14) &&
	      strstr(c->rule, "lockdown") && strstr(c->rule, "judged by behaviour"), "rule: %s", c ? c->rule : "");
	obj = c ? check_to_json(c) : NULL;
	CHECK(obj && !strcmp(json_object_get_string(json_object_object_get(obj, "verdict")), "skip"), "verdict skip");
	json_object_put(obj);
	c = find(j.checks, j.n, "RT_RUNTIME_SHARE");
	CHECK(c && c->was_measured && c->passed && strstr(c->rule, "judged by behaviour"), "by the probe: %s",
	      c ? c->rule : "");
	/* The fair server judged by its share: the result passes. */
	CHECK(!strcmp(j.verdict, "pass"), "%s (%s)", j.verdict, j.why);
	/* Without a probe nothing judges the fair server: unjudged, naming the rows. */
	judge(&k, &r, &site, NULL, 0.02, &j);
	CHECK(!strcmp(j.verdict, "unjudged") && strstr(j.why, "fair_server_runtime_ns") && strstr(j.why, "fair_server_share"),
	      "%s: %s", j.verdict, j.why);
	c = find(j.checks, j.n, "RT_RUNTIME_SHARE");
	CHECK(c && !c->was_measured && strstr(c->rule, "sched/features"), "%s", c ? c->rule : "");
	/* A noise floor that hides a changed default: the share is not judged, and says why. */
	judge(&k, &r, &site, &o, 0.389, &j);
	c = find(j.checks, j.n, "fair_server_share");
	CHECK(c && !c->was_measured && strstr(c->rule, "cannot tell a changed default from noise"), "%s",
	      c ? c->rule : "");
	CHECK(!strcmp(j.verdict, "unjudged"), "%s", j.verdict);
}

TEST(kernel_defaults_rr_timeslice_hz300)
{
	struct kernel_facts k = facts(6, 1, 0, 300);
	struct kernel_readings r = defaults_read();
	struct site_settings site = { 0 };
	struct judged j;

	r.s[KSET_RR_TIMESLICE].value = 90;
	judge(&k, &r, &site, NULL, 0.02, &j);
	CHECK(find(j.checks, j.n, "sched_rr_timeslice_ms")->passed, "HZ=300 reads 90 before the 2023 fix");
	k = facts(6, 1, 0, 250);
	judge(&k, &r, &site, NULL, 0.02, &j);
	CHECK(!find(j.checks, j.n, "sched_rr_timeslice_ms")->passed && !strcmp(j.verdict, "fail"), "HZ=250: 90 differs");
}

TEST(kernel_defaults_site_setting_parse)
{
	static const char *const bad[] = {
		"sched_rt_runtime_us", "=5", "sched_rt_runtime_us=", "bogus=1", "sched_rt_runtime_us=abc",
		"sched_rt_runtime_us=-2", "sched_rt_period_us=0", "RT_RUNTIME_SHARE=maybe", "RLIMIT_RTTIME=-5",
		"sched_rt_runtime_us=1.5", "sched_rt_runtime_us=99999999999",
	};
	struct site_settings site = { 0 };
	char why[320];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct site_settings s = { 0 };

		CHECK(!site_setting_parse(&s, bad[i], why, sizeof(why)) && why[0], "'%s' refused", bad[i]);
	}
	CHECK(!site_setting_parse(&site, "bogus=1", why, sizeof(why)) && strstr(why, "unknown setting 'bogus'") &&
	      strstr(why, "sched_rt_runtime_us"), "names the known settings: %s", why);
	CHECK(site_setting_parse(&site, "RT_RUNTIME_SHARE=on", why, sizeof(why)) && site.value[KSET_RT_RUNTIME_SHARE] == 1,
	      "on");
	CHECK(site_setting_parse(&site, "RLIMIT_RTTIME=unlimited", why, sizeof(why)) &&
	      site.value[KSET_RLIMIT_RTTIME] == KSET_UNLIMITED, "unlimited");
	CHECK(!site_setting_parse(&site, "RLIMIT_RTTIME=200000", why, sizeof(why)) && strstr(why, "twice"), "%s", why);
	CHECK(site_setting_parse(&site, "sched_rt_runtime_us=-1", why, sizeof(why)) &&
	      site_settings_consistent(&site, why, sizeof(why)), "-1 with the default period");
	memset(&site, 0, sizeof(site));
	CHECK(site_setting_parse(&site, "sched_rt_period_us=500000", why, sizeof(why)) &&
	      !site_settings_consistent(&site, why, sizeof(why)) && strstr(why, "sched_rt_runtime_us 950000"),
	      "a period below the default runtime: %s", why);
	CHECK(site_setting_parse(&site, "sched_rt_runtime_us=450000", why, sizeof(why)) &&
	      site_settings_consistent(&site, why, sizeof(why)), "%s", why);
}

TEST(regime_probe_checks_follow_agreement)
{
	struct kernel_facts k = facts(6, 18, 1, 250);
	struct kernel_model m;
	struct regime_observation o;
	struct check c[2];

	kernel_model_predict(&k, &m);
	o = probe_seen(&m, 0.0505);
	CHECK(o.agrees && regime_probe_checks(&m, &o, c) == 2 && c[0].passed && c[1].passed, "agreeing probe passes");
	CHECK(c[0].kind == CHECK_AT_LEAST && c[0].expected == REGIME_THROTTLE_GAP_US && c[0].measured == 51500,
	      "throttling predicted: the gap at least 25 ms");
	/* A dead RT throttle: a lone hog got 0.9998 with 1 ms gaps at most. */
	o.hog_alone_share = 0.9998;
	o.hog_alone_gap_max_us = 1100;
	regime_observation_judge(&m, &o);
	regime_probe_checks(&m, &o, c);
	CHECK(!o.agrees && !c[0].passed && c[1].passed && strstr(c[0].rule, "not throttled"), "%s", c[0].rule);
	/* The fair server never started: CFS starved at -1. */
	o = probe_seen(&m, 0.0);
	regime_probe_checks(&m, &o, c);
	CHECK(!o.agrees && c[0].passed && !c[1].passed && c[1].kind == CHECK_AT_LEAST, "%s", c[1].rule);
}

/*
 * 6.12 PREEMPT_RT under QEMU: the third window's CFS task, due 10 ms before the hog, was woken
 * after it and starved like the second's (0.0001). That window probed nothing: its check is
 * not measured, and the other two still judge.
 */
TEST(regime_probe_a_running_cfs_task_woken_too_late_is_not_measured)
{
	struct kernel_facts k = facts(6, 12, 0, 250);
	struct kernel_model m;
	struct regime_observation o;
	struct check c[REGIME_PROBE_CHECKS_MAX];

	k.timer_thread_priority = 1;	/* PREEMPT_RT: ktimers/N at FIFO 1 */
	kernel_model_predict(&k, &m);
	o = make_regime_probe_seen(&m, 0.9846, 1845, 0.0001, RUNNING_MISSED, 0.0001);
	CHECK(o.agrees, "a missed window decides the agreement: %s", o.evidence);
	CHECK(regime_probe_checks(&m, &o, c) == 3 && c[0].passed && c[1].passed && !c[2].was_measured &&
		      !c[2].passed && strstr(c[2].rule, "not measured"),
	      "%s", c[2].rule);
	/* Probed, the same share is the fair server missing. */
	o.running = RUNNING_PROBED;
	regime_observation_judge(&m, &o);
	CHECK(!o.agrees && regime_probe_checks(&m, &o, c) == 3 && !c[2].passed && c[2].was_measured, "%s", c[2].rule);
}
