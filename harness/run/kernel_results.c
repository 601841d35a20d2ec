// SPDX-License-Identifier: GPL-2.0-only
/* The settings in force read (the knobs as found, every CPU's fair server); both results recorded. */
#include "kernel_results.h"
#include "json_util.h"
#include "report.h"
#include "sysinfo.h"
#include "util.h"
#include "verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#define KERNEL_CHECKS_MAX (KSET_COUNT + 1)

/* One KTAP result with its checks, its kernel_results entry and its count for the exit status. */
static void record(struct run_ctx *ctx, const char *name, const struct check *checks, int n, enum verdict verdict,
		   const char *reason, json_object *res)
{
	json_object *arr = json_object_new_array();
	bool skipped = verdict == VERDICT_SKIP || verdict == VERDICT_UNJUDGED;

	json_add_str(res, "name", name);
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, check_to_json(&checks[i]));
	json_object_object_add(res, "checks", arr);
	json_add_str(res, "verdict", verdict_name(verdict));
	if (reason)
		json_add_str(res, verdict == VERDICT_ERROR ? "error" : "skip_reason", reason);
	json_object_array_add(ctx->kernel_results, res);
	if (n)
		ktap_checks(name, checks, n);
	if (verdict == VERDICT_ERROR)
		ktap_diag("%s: %s", name, reason);
	ktap_result(++ctx->ktap_number, verdict == VERDICT_PASS || skipped, name, skipped ? reason : NULL);
	/*
	 * A failure counts as a scenario's does (exit 1), an error too (125). A pass or a skip does
	 * not make the run's exit status: "something passed" means a scenario ran, and a probe not
	 * asked for (--probe-seconds 0) is the caller's choice, not something left unjudged.
	 */
	if (verdict == VERDICT_FAIL || verdict == VERDICT_ERROR)
		ctx->failed++;
	if (verdict == VERDICT_ERROR)
		ctx->errors++;
	progress_step("%s: %s", name, verdict_name(verdict));
}

void kernel_results_regime(struct run_ctx *ctx, const char *skip_why, const char *error)
{
	json_object *res = json_object_new_object();
	struct check checks[REGIME_PROBE_CHECKS_MAX];
	int n = 0;
	enum verdict verdict;

	json_add_str(res, "predicted", ctx->model.basis);
	if (error) {
		verdict = VERDICT_ERROR;
	} else if (skip_why || !ctx->observed.done) {
		verdict = VERDICT_SKIP;
		if (!skip_why)
			skip_why = "the regime probe did not run";
	} else {
		n = regime_probe_checks(&ctx->model, &ctx->observed, checks);
		json_add_str(res, "evidence", ctx->observed.evidence);
		verdict = ctx->observed.agrees ? VERDICT_PASS : VERDICT_FAIL;
		/* A window that did not probe what it was for is no pass: what it saw still fails. */
		if (ctx->observed.agrees && ctx->observed.running == RUNNING_MISSED) {
			verdict = VERDICT_UNJUDGED;
			skip_why = "the third window's CFS task was woken only after the hog started: no running CFS task was probed";
		}
		if (!ctx->observed.agrees)
			ktap_diag("regime-probe: the kernel does not behave as predicted (%s): %s", ctx->model.basis,
				  ctx->observed.evidence);
	}
	record(ctx, "regime-probe", checks, n, verdict, error ? error : skip_why, res);
}

/*
 * The fair server of every online CPU: a CPU whose value differs from `expected` is the one
 * reported (a site may change one CPU), else the measured CPU's.
 */
static void fair_server_readings(const struct run_ctx *ctx, struct kernel_readings *out)
{
	struct setting_reading *rt = &out->s[KSET_FS_RUNTIME], *per = &out->s[KSET_FS_PERIOD];
	int64_t want_rt = kernel_setting_expected(&ctx->opt->site, KSET_FS_RUNTIME),
		want_per = kernel_setting_expected(&ctx->opt->site, KSET_FS_PERIOD);
	bool any = false, rt_off = false, per_off = false;

	for (int cpu = 0; cpu <= cpu_last_online(); cpu++) {
		int64_t runtime, period;
		char why[200];

		if (!cpu_is_online(cpu))
			continue;
		if (!sysinfo_fair_server_read(cpu, &runtime, &period, why, sizeof(why))) {
			rt->read = per->read = false;
			snprintf(rt->why, sizeof(rt->why), "%s", why);
			snprintf(per->why, sizeof(per->why), "%s", why);
			return;
		}
		if (!rt_off && (!any || cpu == ctx->opt->cpu || runtime != want_rt)) {
			rt->value = runtime;
			rt->cpu = cpu;
			rt_off = runtime != want_rt;
		}
		if (!per_off && (!any || cpu == ctx->opt->cpu || period != want_per)) {
			per->value = period;
			per->cpu = cpu;
			per_off = period != want_per;
		}
		any = true;
	}
	rt->read = per->read = any;
	if (!any) {
		snprintf(rt->why, sizeof(rt->why), "no online CPU found");
		snprintf(per->why, sizeof(per->why), "no online CPU found");
	}
}

void kernel_readings_collect(const struct run_ctx *ctx, struct kernel_readings *out)
{
	struct rlimit rl;
	int feature;

	memset(out, 0, sizeof(*out));
	for (int s = 0; s < KSET_COUNT; s++)
		out->s[s].cpu = -1;
	/* The knobs as the run found them, before any policy (the run holds them in ctx->before). */
	out->s[KSET_SYSCTL_RUNTIME] = (struct setting_reading){ true, ctx->before.value[KNOB_SYSCTL_RUNTIME], -1, "" };
	out->s[KSET_SYSCTL_PERIOD] = (struct setting_reading){ true, ctx->before.value[KNOB_SYSCTL_PERIOD], -1, "" };
	if (ctx->before.has_cgroup) {
		out->s[KSET_CGROUP_RUNTIME] = (struct setting_reading){ true, ctx->before.value[KNOB_CGROUP_RUNTIME], -1, "" };
		out->s[KSET_CGROUP_PERIOD] = (struct setting_reading){ true, ctx->before.value[KNOB_CGROUP_PERIOD], -1, "" };
	} else {
		for (int s = KSET_CGROUP_RUNTIME; s <= KSET_CGROUP_PERIOD; s++)
			snprintf(out->s[s].why, sizeof(out->s[s].why), "%s: not readable (no cgroup v1 cpu controller "
				 "mounted there, or no RT group scheduling)", knob_path(KNOB_CGROUP_RUNTIME));
	}
	fair_server_readings(ctx, out);
	feature = sysinfo_sched_feature("RT_RUNTIME_SHARE", out->s[KSET_RT_RUNTIME_SHARE].why,
					sizeof(out->s[KSET_RT_RUNTIME_SHARE].why));
	out->s[KSET_RT_RUNTIME_SHARE].read = feature >= 0;
	out->s[KSET_RT_RUNTIME_SHARE].value = feature;
	out->s[KSET_RR_TIMESLICE].read = read_i64_file("/proc/sys/kernel/sched_rr_timeslice_ms",
						       &out->s[KSET_RR_TIMESLICE].value);
	if (!out->s[KSET_RR_TIMESLICE].read)
		snprintf(out->s[KSET_RR_TIMESLICE].why, sizeof(out->s[KSET_RR_TIMESLICE].why),
			 "/proc/sys/kernel/sched_rr_timeslice_ms: %s", strerror(errno ? errno : EINVAL));
	if (getrlimit(RLIMIT_RTTIME, &rl) == 0) {
		out->s[KSET_RLIMIT_RTTIME].read = true;
		out->s[KSET_RLIMIT_RTTIME].value = rl.rlim_cur == RLIM_INFINITY ? KSET_UNLIMITED : (int64_t)rl.rlim_cur;
	} else {
		snprintf(out->s[KSET_RLIMIT_RTTIME].why, sizeof(out->s[KSET_RLIMIT_RTTIME].why), "getrlimit: %s",
			 strerror(errno));
	}
}

void kernel_results_defaults(struct run_ctx *ctx, const char *probe_why)
{
	struct check checks[KERNEL_CHECKS_MAX];
	struct kernel_readings readings;
	struct defaults_behaviour b = {
		.observed = &ctx->observed,
		.probe_why = probe_why,
		.noise_loss_share = ctx->noise.loss_share,
		.noise_gap_max_us = ctx->noise.gap_max_us,
		.other_cpu = ctx->other_cpu >= 0,
	};
	json_object *res = json_object_new_object();
	enum verdict verdict;
	char why[320];
	int n;

	kernel_readings_collect(ctx, &readings);
	n = kernel_defaults_judge(&ctx->facts, &ctx->model, &readings, &ctx->opt->site, &b, checks);
	verdict = kernel_checks_verdict(checks, n, why, sizeof(why));
	json_object_object_add(res, "defaults", kernel_defaults_table_json(&ctx->facts, &ctx->opt->site));
	json_object_object_add(res, "site_settings", site_settings_to_json(&ctx->opt->site));
	for (int i = 0; i < n; i++) {
		bool behaviour = !strcmp(checks[i].metric, "fair_server_share");
		enum kernel_setting s = behaviour ? KSET_FS_RUNTIME : kernel_setting_find(checks[i].metric);
		bool declared = s < KSET_COUNT && (ctx->opt->site.set[s] || (behaviour && ctx->opt->site.set[KSET_FS_PERIOD]));

		if (checks[i].was_measured && !checks[i].passed)
			ktap_diag("kernel-defaults: %s is %.10g, not %.10g as %s%s%s", checks[i].metric, checks[i].measured,
				  checks[i].expected, declared ? "the site declared with --site-setting" :
				  "the kernel documents it; a site that changed it on purpose says so with --site-setting ",
				  declared ? "" : behaviour ? "fair_server_runtime_ns" : checks[i].metric, declared ? "" : "=VALUE");
	}
	record(ctx, "kernel-defaults", checks, n, verdict, why[0] ? why : NULL, res);
}
