#include "run.h"
#include "cgroups.h"
#include "guardian.h"
#include "metrics.h"
#include "report.h"
#include "results.h"
#include "run_case.h"
#include "signals.h"
#include "state.h"
#include "sysinfo.h"
#include "tables.h"
#include "trace.h"
#include "util.h"

#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HOG_PRIORITY 50
#define CALIBRATION_SAMPLES 11	/* the first warms up and is left out */
#define CALIBRATION_LOOPS 360000ull	/* ~9 ms a sample at ~25 ns a step: a 90% job of 10 ms */

int run_policies(const struct run_options *opt, const struct scenario *s, struct policy *out)
{
	if (opt->policy_count) {
		memcpy(out, opt->policy, sizeof(*out) * (size_t)opt->policy_count);
		return opt->policy_count;
	}
	memcpy(out, s->policies, sizeof(*out) * (size_t)s->policy_count);
	return s->policy_count;
}

int run_planned_results(const struct run_options *opt)
{
	struct policy policies[RUN_POLICIES_MAX + SCENARIO_POLICIES_MAX];
	int total = 0;

	for (int i = 0; i < opt->scenario_count; i++) {
		const struct scenario *s = opt->scenario[i];

		total += run_policies(opt, s, policies) * (s->sweep_count ? s->sweep_count : 1) * opt->repeat;
	}
	return total;
}

double run_window_s(const struct run_options *opt, const struct scenario *s, const struct policy *p)
{
	double window = s->window_s > 0 ? s->window_s : opt->duration_s;

	return fmax(window, s->min_periods * p->period_us / 1e6);
}

static double planned_seconds(const struct run_options *opt)
{
	struct policy policies[RUN_POLICIES_MAX + SCENARIO_POLICIES_MAX];
	double total = opt->noise_s + 2 * opt->probe_s;

	for (int i = 0; i < opt->scenario_count; i++) {
		const struct scenario *s = opt->scenario[i];
		int np = run_policies(opt, s, policies);

		for (int k = 0; k < np; k++) {
			double windows = (s->sweep_count ? s->sweep_count : 1) * opt->repeat;

			total += run_window_s(opt, s, &policies[k]) * windows;
			/* Settling: a period after each window (see run_case.c). */
			total += fmax(policies[k].period_us, opt->restored_period_us) / 1e6 * windows;
		}
	}
	return total;
}

static bool measure_noise_floor(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct task_config noise = run_task_config(ROLE_NOISE, "noise", opt->cpu, opt->noise_s);
	struct task_metrics m;
	json_object *obj;
	char why[256];
	enum window_status status;

	progress_step("noise floor: a SCHED_OTHER spinner alone on CPU %d for %.1f s", opt->cpu, opt->noise_s);
	status = run_measure(ctx, NULL, &noise, 1, opt->noise_s, why, sizeof(why));
	if (status != WINDOW_OK) {
		fprintf(stderr, "rtthrottle: noise floor measurement failed: %s\n", why);
		if (status == WINDOW_INTERRUPTED)
			snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
		return false;
	}
	metrics_compute(&ctx->shm->task[0], 0, &m);
	ctx->noise = (struct noise_floor){
		.window_s = m.window_s,
		.gap_max_us = m.gap_max_us,
		.loss_share = m.gap_total_us / (m.window_s * 1e6),
	};
	obj = json_object_new_object();
	json_object_object_add(obj, "cpu", json_object_new_int(opt->cpu));
	json_object_object_add(obj, "window_s", json_object_new_double(m.window_s));
	json_object_object_add(obj, "gap_threshold_us", json_object_new_double(noise.gap_threshold_ns / 1e3));
	json_object_object_add(obj, "gap_count", json_object_new_int64((int64_t)m.gap_count));
	json_object_object_add(obj, "gap_total_us", json_object_new_double(m.gap_total_us));
	json_object_object_add(obj, "gap_max_us", json_object_new_double(m.gap_max_us));
	json_object_object_add(obj, "loss_share", json_object_new_double(ctx->noise.loss_share));
	json_object_object_add(obj, "steal_us", json_object_new_double(ctx->last_steal_us));
	json_object_object_add(obj, "loop_ns", json_object_new_double(m.loop_ns));
	json_object_object_add(obj, "gap_hist_us", gap_hist_to_json(&ctx->shm->task[0].gaps));
	json_object_object_add(ctx->root, "noise_floor", obj);
	ktap_diag("noise floor on CPU %d: longest gap %.0f us, %.3f%% of the time lost, %.0f ns a loop",
		  opt->cpu, m.gap_max_us, 100 * ctx->noise.loss_share, m.loop_ns);
	return true;
}

/* Confirms the predicted regime by behaviour: a lone hog at 950000/1000000, hog + CFS at -1. */
static bool probe_regime(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct task_config tasks[2] = {
		run_task_config(ROLE_HOG, "hog", opt->cpu, opt->probe_s),
		run_task_config(ROLE_VICTIM, "victim", opt->cpu, opt->probe_s),
	};
	struct policy dflt, unlimited;
	struct task_metrics hog, victim;
	enum window_status status;
	char why[256];

	tasks[0].sched_policy = SCHED_FIFO;
	tasks[0].priority = HOG_PRIORITY;
	policy_find("default", &dflt);
	policy_find("unlimited", &unlimited);
	progress_step("regime probe 1/2: a lone FIFO hog at 950000/1000000 for %.1f s", opt->probe_s);
	status = run_measure(ctx, &dflt, tasks, 1, opt->probe_s, why, sizeof(why));
	if (status != WINDOW_OK)
		goto failed;
	/* Throttle gaps of the default policy last 50 ms: count those above half of it. */
	metrics_compute(&ctx->shm->task[0], (dflt.period_us - dflt.runtime_us) / 2.0, &hog);
	progress_step("regime probe 2/2: FIFO hog + CFS task at runtime -1 for %.1f s", opt->probe_s);
	status = run_measure(ctx, &unlimited, tasks, 2, opt->probe_s, why, sizeof(why));
	if (status != WINDOW_OK)
		goto failed;
	metrics_compute(&ctx->shm->task[1], 0, &victim);
	ctx->observed.done = true;
	ctx->observed.hog_alone_share = hog.periods_span_s > 0 ? hog.cpu_share_periods : hog.cpu_share;
	ctx->observed.hog_alone_gap_max_us = hog.gap_max_us;
	ctx->observed.victim_share_unlimited = victim.cpu_share;
	regime_observation_judge(&ctx->model, &ctx->observed);
	ktap_diag("regime: %s", ctx->observed.evidence);
	if (!ctx->observed.agrees)
		ktap_diag("regime: the kernel does not behave as predicted (%s)", ctx->model.basis);
	return true;
failed:
	fprintf(stderr, "rtthrottle: regime probe failed: %s\n", why);
	if (status == WINDOW_INTERRUPTED)
		snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
	return status != WINDOW_INTERRUPTED;
}

/* Loops per microsecond of the periodic task's work loop, at RT priority on the measured CPU. */
static bool calibrate(struct run_ctx *ctx)
{
	struct task_config tasks[2] = {
		run_task_config(ROLE_CALIBRATE, "calibrate", ctx->opt->cpu, 1),
		run_task_config(ROLE_VICTIM, "cfs", ctx->opt->cpu, 1),
	};
	struct task_config *cal = &tasks[0];
	const struct calibration_stats *c = &ctx->shm->task[0].u.calibration;
	double values[16], lo, hi;
	json_object *obj, *arr;
	enum window_status status;
	char why[256];

	cal->sched_policy = SCHED_FIFO;
	cal->priority = HOG_PRIORITY;
	cal->calibration_samples = CALIBRATION_SAMPLES;
	cal->calibration_loops = CALIBRATION_LOOPS;
	progress_step("calibrating the periodic task's work loop on CPU %d", ctx->opt->cpu);
	status = run_measure(ctx, NULL, tasks, 2, 0.3, why, sizeof(why));
	if (status != WINDOW_OK || c->samples < 2) {
		fprintf(stderr, "rtthrottle: calibration failed: %s\n", why);
		if (status == WINDOW_INTERRUPTED)
			snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
		return false;
	}
	arr = json_object_new_array();
	lo = hi = c->loops_per_us[1];
	for (int i = 1; i < c->samples; i++) {
		values[i - 1] = c->loops_per_us[i];
		lo = fmin(lo, values[i - 1]);
		hi = fmax(hi, values[i - 1]);
		json_object_array_add(arr, json_object_new_double(values[i - 1]));
	}
	ctx->loops_per_us = median(values, c->samples - 1);
	obj = json_object_new_object();
	json_object_object_add(obj, "cpu", json_object_new_int(ctx->opt->cpu));
	json_object_object_add(obj, "loops_per_us", json_object_new_double(ctx->loops_per_us));
	json_object_object_add(obj, "spread", json_object_new_double((hi - lo) / ctx->loops_per_us));
	json_object_object_add(obj, "samples", arr);
	json_object_object_add(ctx->root, "calibration", obj);
	ktap_diag("calibration on CPU %d: %.2f loops/us, spread %.2f%% over %d samples", ctx->opt->cpu,
		  ctx->loops_per_us, 100 * (hi - lo) / ctx->loops_per_us, c->samples - 1);
	return true;
}

static bool needs_calibration(const struct run_options *opt)
{
	for (int i = 0; i < opt->scenario_count; i++)
		for (int t = 0; t < opt->scenario[i]->task_count; t++)
			if (opt->scenario[i]->tasks[t].role == ROLE_PERIODIC)
				return true;
	return false;
}

/* Why a scenario cannot run on this system, or NULL. */
static const char *scenario_unsupported(const struct run_ctx *ctx, const struct scenario *s)
{
	if (s->needs_rt_groups && !cgroups_rt_available())
		return "needs the cgroup v1 cpu controller with RT group scheduling (cpu.rt_runtime_us)";
	for (int t = 0; t < s->task_count; t++)
		if (s->tasks[t].cpu == CPU_OTHER && ctx->other_cpu < 0)
			return "needs a second online CPU";
	return NULL;
}

static void for_each_case(struct run_ctx *ctx, bool skip_all, const char *skip_reason)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_POLICIES_MAX + SCENARIO_POLICIES_MAX];

	for (int i = 0; i < opt->scenario_count && !ctx->stop_reason[0]; i++) {
		const struct scenario *s = opt->scenario[i];
		const char *why = skip_all ? skip_reason : scenario_unsupported(ctx, s);
		int np = run_policies(opt, s, policies), sweeps = s->sweep_count ? s->sweep_count : 1;

		for (int k = 0; k < np && !ctx->stop_reason[0]; k++)
			for (int w = 0; w < sweeps && !ctx->stop_reason[0]; w++)
				for (int rep = 0; rep < opt->repeat && !ctx->stop_reason[0]; rep++) {
					if (why)
						run_skip_case(ctx, s, &policies[k], w, rep, why);
					else
						run_case(ctx, s, &policies[k], w, rep);
				}
	}
}

/* Keeps the harness (and so the guardian) off the measured CPUs when another one is online. */
static void move_off_cpus(const struct run_options *opt)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c <= cpu_last_online(); c++)
		if (!placement_has(opt->cpus, opt->cpu_count, c) && cpu_is_online(c))
			CPU_SET(c, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Keeps CPUs out of deep idle states while the run measures, as cyclictest does: a wake-up
 * latency should be the scheduler's, not the idle state's exit time. The kernel drops the
 * request when the fd closes (also when the harness dies). Recorded in the results.
 */
static int hold_cpu_dma_latency(json_object *root)
{
	int32_t zero = 0;
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	bool held = fd >= 0 && write(fd, &zero, sizeof(zero)) == sizeof(zero);

	json_object_object_add(root, "cpu_dma_latency_us", held ? json_object_new_int(0) : NULL);
	if (!held && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The measured CPU is the one the harness and the shell live on (CPU 0, or the only one). */
static bool hogs_harness_cpu(const struct run_options *opt)
{
	return placement_has(opt->cpus, opt->cpu_count, 0) || cpus_online_count() == 1;
}

/*
 * Hogging the harness's own CPU is allowed (--allow-cpu0) only where a limit is in force for
 * every policy: without one a runaway hog there would starve the harness, the shell and the
 * guardian's own restore. Returns false after saying which scenario and policy.
 */
static bool limit_in_force(const struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_POLICIES_MAX + SCENARIO_POLICIES_MAX];

	if (!hogs_harness_cpu(opt))
		return true;
	for (int i = 0; i < opt->scenario_count; i++) {
		int np = run_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < np; k++) {
			struct limiter l;

			run_scenario_limiter(&ctx->model, opt->scenario[i], &policies[k], &l);
			if (!l.limited) {
				fprintf(stderr, "rtthrottle run: refusing to hog CPU %d, where the harness runs: %s under policy %s "
						"has no limit in force on this kernel (%s)\n",
					opt->cpu, opt->scenario[i]->name, policies[k].name, l.why);
				return false;
			}
		}
	}
	return true;
}

/* Why the run cannot measure here, or NULL. */
static const char *missing_privilege(void)
{
	if (access(knob_path(KNOB_SYSCTL_RUNTIME), W_OK))
		return "cannot write /proc/sys/kernel/sched_rt_runtime_us: run as root";
	if (geteuid() != 0)
		return "SCHED_FIFO tasks and the knobs need root";
	return NULL;
}

static int measure_all(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;

	if (!measure_noise_floor(ctx))
		return ctx->stop_reason[0] ? 0 : -1;
	if (opt->probe_s > 0 && !probe_regime(ctx))
		return 0;
	if (needs_calibration(opt) && !calibrate(ctx))
		return ctx->stop_reason[0] ? 0 : -1;
	for_each_case(ctx, false, NULL);
	return 0;
}

/* Returns whether the results file was written. */
static bool finish_document(struct run_ctx *ctx, int status)
{
	bool written;

	results_finish(ctx->root, !ctx->stop_reason[0] && status == 0, ctx->stop_reason[0] ? ctx->stop_reason : NULL);
	tables_add(ctx->root, ctx->results, &ctx->model);
	if (json_object_array_length(ctx->results))
		tables_print(ctx->root);
	written = results_write(ctx->root, ctx->opt->output);
	if (written)
		fprintf(stderr, "rtthrottle: results in %s\n", ctx->opt->output);
	return written;
}

static int run_unprivileged(struct run_ctx *ctx, const char *reason)
{
	ktap_plan(run_planned_results(ctx->opt));
	for_each_case(ctx, true, reason);
	fprintf(stderr, "rtthrottle: every check skipped: %s\n", reason);
	return finish_document(ctx, 0) ? EXIT_ALL_SKIPPED : EXIT_CHECK_FAILED;
}

int run_execute(const struct run_options *opt)
{
	struct run_ctx ctx = { .opt = opt, .other_cpu = -1 };
	char run_id[96], host[64] = "unknown", stamp[32];
	const char *skip;
	struct knobs after;
	int lock_fd, status, dma_fd;
	bool restore_ok, written;

	gethostname(host, sizeof(host));
	format_utc(realtime_ns(), stamp, sizeof(stamp), true);
	snprintf(run_id, sizeof(run_id), "%s-%s", stamp, host);
	ctx.root = results_new(run_id, opt->cmdline);
	json_object_object_get_ex(ctx.root, "results", &ctx.results);
	kernel_facts_read(&ctx.facts);
	kernel_model_predict(&ctx.facts, &ctx.model);
	json_object_object_add(ctx.root, "system", sysinfo_collect());
	json_object_object_add(ctx.root, "measured_cpus", placement_to_json(opt->cpus, opt->cpu_count));
	for (int c = 0; c <= cpu_last_online() && ctx.other_cpu < 0; c++)
		if (!placement_has(opt->cpus, opt->cpu_count, c) && cpu_is_online(c))
			ctx.other_cpu = c;

	if (!limit_in_force(&ctx)) {
		json_object_put(ctx.root);
		return EXIT_USAGE;
	}
	skip = missing_privilege();
	if (skip) {
		status = run_unprivileged(&ctx, skip);
		json_object_put(ctx.root);
		return status;
	}
	lock_fd = state_lock();
	if (lock_fd < 0) {
		json_object_put(ctx.root);
		return EXIT_USAGE;
	}
	/* A state file under a free lock: a run died with its guardian. Put its knobs back first. */
	if (access(state_file_path(), F_OK) == 0) {
		fprintf(stderr, "rtthrottle: found %s from a run that died; restoring its saved knobs\n",
			state_file_path());
		if (!state_restore()) {
			close(lock_fd);
			json_object_put(ctx.root);
			return EXIT_CHECK_FAILED;
		}
	}
	cgroups_remove_stale();
	trace_remove_stale(0);
	if (!knobs_read(&ctx.before)) {
		close(lock_fd);
		json_object_put(ctx.root);
		return EXIT_CHECK_FAILED;
	}
	ctx.longest_period_us = ctx.before.value[KNOB_SYSCTL_PERIOD];
	if (ctx.before.has_cgroup && ctx.before.value[KNOB_CGROUP_PERIOD] > ctx.longest_period_us)
		ctx.longest_period_us = ctx.before.value[KNOB_CGROUP_PERIOD];
	move_off_cpus(opt);
	signals_install();
	/* The guardian before the state file: from the moment it exists, someone acts on it. */
	if (!guardian_start(hogs_harness_cpu(opt))) {
		close(lock_fd);
		json_object_put(ctx.root);
		return EXIT_CHECK_FAILED;
	}
	if (!state_save(&ctx.before, getpid())) {
		guardian_release();
		close(lock_fd);
		json_object_put(ctx.root);
		return EXIT_CHECK_FAILED;
	}
	json_object_object_add(ctx.root, "knobs_before", knobs_to_json(&ctx.before));
	dma_fd = hold_cpu_dma_latency(ctx.root);
	ctx.shm = window_shm_create();
	ktap_plan(run_planned_results(opt));
	progress_begin(opt->quiet, planned_seconds(opt));
	ctx.trace = trace_open(opt->trace, opt->cpus, opt->cpu_count);
	status = ctx.shm ? measure_all(&ctx) : -1;
	trace_close(ctx.trace);

	/* Restore, verify, and only then let the guardian go. */
	restore_ok = knobs_apply(&ctx.before) && knobs_read(&after) && knobs_equal(&after, &ctx.before);
	if (restore_ok) {
		state_remove();
		guardian_release();
	} else {
		fprintf(stderr, "rtthrottle: the knobs differ from those saved in %s; run 'rtthrottle restore'\n",
			state_file_path());
	}
	json_object_object_add(ctx.root, "knobs_after", restore_ok || knobs_read(&after) ? knobs_to_json(&after) : NULL);
	json_object_object_add(ctx.root, "knobs_restored", json_object_new_boolean(restore_ok));
	json_object_object_add(ctx.root, "kernel_model", kernel_model_to_json(&ctx.model, &ctx.observed));
	written = finish_document(&ctx, status);
	window_shm_destroy(ctx.shm);
	json_object_put(ctx.root);
	if (dma_fd >= 0)
		close(dma_fd);
	close(lock_fd);

	if (signals_stop_requested())
		return 128 + signals_stop_requested();
	if (status < 0 || !restore_ok || ctx.failed || !written)
		return EXIT_CHECK_FAILED;
	return ctx.passed ? EXIT_ALL_PASSED : EXIT_ALL_SKIPPED;
}
