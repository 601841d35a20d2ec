// SPDX-License-Identifier: GPL-2.0-only
/* The run in order: lock, guardian, saved knobs, noise floor, probe, cases, restore; then the exit status. */
#include "run.h"
#include "record.h"
#include "json_util.h"
#include "cgroups.h"
#include "cyclictest.h"
#include "fair_server.h"
#include "guardian.h"
#include "knob_explain.h"
#include "private_dir.h"
#include "kernel_results.h"
#include "roles.h"
#include "load.h"
#include "metrics.h"
#include "report.h"
#include "results.h"
#include "run_case.h"
#include "settle.h"
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOG_PRIORITY 50
#define CALIBRATION_SAMPLES 11	/* the first warms up and is left out */
#define NOISE_AUTO_MAX_S 3.0	/* the automatic noise floor: the quick suite's longest window; longer gathers more CFS contention */
#define CALIBRATION_SAMPLE_US 9000.0	/* a 90% job of 10 ms */
#define PROBE_NOT_ASKED "--probe-seconds 0: not asked for; the regime is predicted only"
#define PROBE_NOT_ALLOWED "it writes sched_rt_runtime_us, which this run may not; the regime is predicted only"

int run_policies(const struct run_options *opt, const struct scenario *s, struct policy *out)
{
	bool own = !opt->policy_count && !opt->grid.row_count;
	int n = own ? s->policy_count : opt->policy_count, m = 0;
	const struct grid *grid = own ? &s->grid : &opt->grid;
	struct policy base[RUN_CASE_POLICIES_MAX];

	memcpy(base, own ? s->policies : opt->policy, sizeof(*base) * (size_t)n);
	n += grid_policies(grid, base + n);
	/* Each policy without a fair server of its own once with each of --fair-server's (cli_run bounds them). */
	for (int k = 0; k < n; k++) {
		int copies = base[k].fair_server.set || !opt->fair_server_count ? 1 : opt->fair_server_count;

		for (int j = 0; j < copies && m < RUN_CASE_POLICIES_MAX; j++) {
			out[m] = base[k];
			if (opt->fair_server_count)
				policy_with_fair_server(&out[m], &opt->fair_server[j]);
			m++;
		}
	}
	return m;
}

int run_planned_results(const struct run_options *opt)
{
	struct policy policies[RUN_CASE_POLICIES_MAX];
	int total = 0;

	for (int i = 0; i < opt->scenario_count; i++) {
		const struct scenario *s = opt->scenario[i];

		total += run_policies(opt, s, policies) * (s->sweep_count ? s->sweep_count : 1) * opt->repeat;
	}
	return total;
}

/* Seconds of one scenario x policy's windows and the settling after each (see run_case.c). */
static double case_seconds(const struct run_options *opt, const struct scenario *s, const struct policy *p)
{
	double windows = (s->sweep_count ? s->sweep_count : 1) * opt->repeat;

	return (run_window_s(opt, s, p) + run_lead_in_s(s, p) + fmax(p->period_us, opt->restored_period_us) / 1e6) * windows;
}

/* Folds f over every case the run plans (scenario x policy; unreachable grid cells left out). */
static double fold_planned_cases(const struct run_ctx *ctx,
				 double (*f)(double acc, const struct run_options *, const struct scenario *, const struct policy *),
				 double acc)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_CASE_POLICIES_MAX];
	char why[256];

	for (int i = 0; i < opt->scenario_count; i++) {
		int np = run_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < np; k++)
			if (!grid_cell_unreachable(&policies[k], &ctx->model, why, sizeof(why)))
				acc = f(acc, opt, opt->scenario[i], &policies[k]);
	}
	return acc;
}

static double add_case_seconds(double acc, const struct run_options *opt, const struct scenario *s,
			       const struct policy *p)
{
	return acc + case_seconds(opt, s, p);
}

static double longest_window(double acc, const struct run_options *opt, const struct scenario *s,
			     const struct policy *p)
{
	return fmax(acc, run_window_s(opt, s, p));
}

/*
 * The noise floor's window unless --noise-seconds set it: as long as the longest window it
 * will be judged against (at least 1 s). Its longest gap bounds the stalls a window may meet;
 * a floor shorter than the window draws that maximum from less time and is exceeded by the
 * window's own more often than not (an emulator's 11 ms stall once in 3 s, 1.5 ms in the 1 s
 * before it).
 */
static double noise_seconds(const struct run_ctx *ctx)
{
	if (ctx->opt->noise_s > 0)
		return ctx->opt->noise_s;
	return fmin(fmax(1, fold_planned_cases(ctx, longest_window, 0)), NOISE_AUTO_MAX_S);
}

/* Seconds of windows and settling the run plans; skipped grid cells take none. */
static double planned_seconds(const struct run_ctx *ctx)
{
	double probes = (regime_probe_running_cfs(&ctx->model) ? 3 : 2) * ctx->opt->probe_s;

	return ctx->noise_s + probes + fold_planned_cases(ctx, add_case_seconds, 0);
}

/* A grid takes long: before its first window, say how many cells, which are skipped, and how long. */
static void announce_grids(const struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_CASE_POLICIES_MAX];
	char why[256];

	for (int i = 0; i < opt->scenario_count; i++) {
		const struct scenario *s = opt->scenario[i];
		int np = run_policies(opt, s, policies), cells = 0, skipped = 0;
		double seconds = 0;

		for (int k = 0; k < np; k++) {
			if (!policies[k].grid.cells)
				continue;
			cells++;
			if (grid_cell_unreachable(&policies[k], &ctx->model, why, sizeof(why))) {
				skipped++;
				progress_step("grid %s: cell %s will be skipped: %s", s->name, policies[k].name, why);
			} else {
				seconds += case_seconds(opt, s, &policies[k]);
			}
		}
		if (cells)
			progress_step("grid %s: %d cells (%d skipped), about %d:%02d of windows and settling", s->name,
				      cells, skipped, (int)seconds / 60, (int)seconds % 60);
	}
}

static bool measure_noise_floor(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct task_config noise = run_task_config(ROLE_NOISE, "noise", opt->cpu, ctx->noise_s);
	struct task_metrics m;
	json_object *obj;
	char why[256];
	enum window_status status;
	double others;

	progress_step("noise floor: a SCHED_OTHER spinner alone on CPU %d for %.1f s", opt->cpu, ctx->noise_s);
	status = run_measure(ctx, NULL, &noise, 1, ctx->noise_s, why, sizeof(why));
	if (status != WINDOW_OK) {
		rtt_err("noise floor measurement failed: %s", why);
		if (status == WINDOW_INTERRUPTED)
			snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
		return false;
	}
	metrics_compute(&ctx->shm->task[0], 0, NULL, &m);
	/*
	 * Other tasks' time on the CPU (read at the window's edges) is no noise of the machine's:
	 * each window allows for it by its own reading (others_us), so the floor leaves it out.
	 */
	others = ctx->last_others_us > 0 ? ctx->last_others_us / (m.window_s * 1e6) : 0;
	ctx->noise = (struct noise_floor){
		.window_s = m.window_s,
		.gap_max_us = m.gap_max_us,
		.loss_share = fmax(0, m.gap_total_us / (m.window_s * 1e6) - others),
		.cpu_loss_share = fmax(0, (m.cpu_share < 1 ? 1 - m.cpu_share : 0) - others),
		.loop_ns = m.loop_ns,
	};
	obj = json_object_new_object();
	json_add_int(obj, "cpu", opt->cpu);
	json_add_double(obj, "window_s", m.window_s);
	json_add_double(obj, "gap_threshold_us", noise.gap_threshold_ns / 1e3);
	json_add_int64(obj, "gap_count", (int64_t)m.gap_count);
	json_add_double(obj, "gap_total_us", m.gap_total_us);
	json_add_double(obj, "gap_max_us", m.gap_max_us);
	json_add_double(obj, "loss_share", ctx->noise.loss_share);
	json_add_double(obj, "cpu_loss_share", ctx->noise.cpu_loss_share);
	json_add_double(obj, "steal_us", ctx->last_steal_us);
	json_add_double(obj, "others_us", ctx->last_others_us);
	json_add_double(obj, "loop_ns", m.loop_ns);
	json_object_object_add(obj, "gap_hist_us", gap_hist_to_json(&ctx->shm->task[0].gaps));
	json_object_object_add(ctx->root, "noise_floor", obj);
	ktap_diag("noise floor on CPU %d: longest gap %.0f us, %.3f%% of the time lost in gaps, %.3f%% of its CPU "
		  "time, %.0f ns a loop", opt->cpu, m.gap_max_us, 100 * ctx->noise.loss_share,
		  100 * ctx->noise.cpu_loss_share, m.loop_ns);
	return true;
}

/*
 * A case whose checks the noise floor made as wide as what they exist to catch: the floor is
 * measured again, once a run (the first may have caught a passing disturbance), and the case
 * runs again, judged by the new one. What stays too wide is unjudged.
 */
static void remeasure_and_rerun(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int sweep,
				int rep)
{
	json_object *first;

	ctx->noise_remeasured = true;
	if (json_object_object_get_ex(ctx->root, "noise_floor", &first))
		json_object_object_add(ctx->root, "noise_floor_first", json_object_get(first));
	/* A floor that failed to measure leaves the first one in force; a stop ends the run. */
	if (!measure_noise_floor(ctx) && ctx->stop_reason[0])
		return;
	run_case(ctx, s, p, sweep, rep, false);
}

/*
 * Confirms the predicted regime by behaviour: a lone hog at 950000/1000000, hog + CFS at -1,
 * and where CFS timer wake-ups run in an RT thread (PREEMPT_RT) hog + CFS at -1 again with the
 * CFS task running before the hog starts: what the fair server does for a runnable CFS task.
 */
static bool probe_regime(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct task_config tasks[2] = {
		run_task_config(ROLE_HOG, "hog", opt->cpu, opt->probe_s),
		run_task_config(ROLE_VICTIM, "victim", opt->cpu, opt->probe_s),
	};
	const bool running = regime_probe_running_cfs(&ctx->model);
	const int windows = running ? 3 : 2;
	struct policy dflt, unlimited;
	struct task_metrics hog, victim;
	enum window_status status;
	char why[256];

	tasks[0].sched_policy = SCHED_FIFO;
	tasks[0].priority = HOG_PRIORITY;
	policy_find("default", &dflt);
	policy_find("unlimited", &unlimited);
	progress_step("regime probe 1/%d: a lone FIFO hog at 950000/1000000 for %.1f s", windows, opt->probe_s);
	status = run_measure(ctx, &dflt, tasks, 1, opt->probe_s, why, sizeof(why));
	if (status != WINDOW_OK)
		goto failed;
	/* Throttle gaps of the default policy last 50 ms: count those above half of it. */
	metrics_compute(&ctx->shm->task[0], (dflt.period_us - dflt.runtime_us) / 2.0, NULL, &hog);
	progress_step("regime probe 2/%d: FIFO hog + CFS task at runtime -1 for %.1f s", windows, opt->probe_s);
	status = run_measure(ctx, &unlimited, tasks, 2, opt->probe_s, why, sizeof(why));
	if (status != WINDOW_OK)
		goto failed;
	metrics_compute(&ctx->shm->task[1], 0, NULL, &victim);
	ctx->observed.victim_share_unlimited = victim.cpu_share;
	if (running) {
		/* Awake while the hog still sleeps: ktimers, idle then, wakes it; the hog never stops it again. */
		tasks[1].early_ns = 10000000;
		progress_step("regime probe 3/3: FIFO hog + CFS task at runtime -1, the CFS task running first, for %.1f s",
			      opt->probe_s);
		status = run_measure(ctx, &unlimited, tasks, 2, opt->probe_s, why, sizeof(why));
		if (status != WINDOW_OK)
			goto failed;
		metrics_compute(&ctx->shm->task[1], 0, NULL, &victim);
		/*
		 * Woken only after the hog started (a guest's idle vCPU woken 10 ms late or more), the
		 * CFS task waited for ktimers like the one before: the window did not probe a running one.
		 */
		ctx->observed.running = ctx->shm->task[1].ran_before_start ? RUNNING_PROBED : RUNNING_MISSED;
		ctx->observed.victim_running_share_unlimited = victim.cpu_share;
	}
	ctx->observed.done = true;
	ctx->observed.window_s = victim.window_s;
	ctx->observed.hog_alone_share = hog.periods_span_s > 0 ? hog.cpu_share_periods : hog.cpu_share;
	ctx->observed.hog_alone_gap_max_us = hog.gap_max_us;
	regime_observation_judge(&ctx->model, &ctx->observed);
	ktap_diag("regime: %s", ctx->observed.evidence);
	kernel_results_regime(ctx, NULL, NULL);
	return true;
failed:
	rtt_err("regime probe failed: %s", why);
	if (status == WINDOW_INTERRUPTED) {
		snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
		return false;
	}
	kernel_results_regime(ctx, NULL, why);
	return true;
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
	cal->priority = ctx->priv.rt_priority_max < HOG_PRIORITY ? ctx->priv.rt_priority_max : HOG_PRIORITY;
	cal->calibration_samples = CALIBRATION_SAMPLES;
	cal->calibration_loops = calibration_loops(CALIBRATION_SAMPLE_US, ctx->noise.loop_ns);
	progress_step("calibrating the periodic task's work loop on CPU %d", ctx->opt->cpu);
	status = run_measure(ctx, NULL, tasks, 2, 0.3, why, sizeof(why));
	if (status != WINDOW_OK || c->samples < 2) {
		rtt_err("calibration failed: %s", why);
		if (status == WINDOW_INTERRUPTED)
			snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
		return false;
	}
	run_settle_after_knobs(ctx);
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
	json_add_int(obj, "cpu", ctx->opt->cpu);
	json_add_double(obj, "loops_per_us", ctx->loops_per_us);
	json_add_double(obj, "spread", (hi - lo) / ctx->loops_per_us);
	json_object_object_add(obj, "samples", arr);
	json_object_object_add(ctx->root, "calibration", obj);
	ktap_diag("calibration on CPU %d: %.2f loops/us, spread %.2f%% over %d samples", ctx->opt->cpu,
		  ctx->loops_per_us, 100 * (hi - lo) / ctx->loops_per_us, c->samples - 1);
	return true;
}

static const char *case_missing(const struct run_ctx *ctx, const struct scenario *s, const struct policy *p,
				char *buf, size_t len);

/* Some case that will run has a periodic task. */
static bool needs_calibration(const struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_CASE_POLICIES_MAX];
	char missing[480];

	for (int i = 0; i < opt->scenario_count; i++) {
		const struct scenario *s = opt->scenario[i];
		int np = run_policies(opt, s, policies);
		bool periodic = false, runs = false;

		for (int t = 0; t < s->task_count; t++)
			periodic |= s->tasks[t].role == ROLE_PERIODIC;
		for (int k = 0; k < np && periodic; k++)
			runs |= !case_missing(ctx, s, &policies[k], missing, sizeof(missing));
		if (runs)
			return true;
	}
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
	return cyclictest_unsupported(s);
}

/* Why a policy that sets the fair server cannot run here (nothing is written for it), or NULL. */
static const char *fair_server_missing(const struct run_ctx *ctx, const struct policy *p, char *buf, size_t len)
{
	struct knobs target;
	struct knob_plan there, back;

	if (!p->fair_server.set)
		return NULL;
	if (!ctx->priv.write_knobs)
		return "setting the fair server (debugfs sched/fair_server) needs root";
	if (ctx->fair_server_why[0]) {
		snprintf(buf, len, "the fair server cannot be set here: %s", ctx->fair_server_why);
		return buf;
	}
	target = knobs_for_policy(&ctx->before, p);
	if (knob_plan_make(&ctx->before, &target, &ctx->floor, &there) &&
	    knob_plan_make(&target, &ctx->before, &ctx->floor, &back))
		return NULL;
	knob_plan_refusal(&ctx->before, &target, &ctx->floor, buf, len);
	return buf;
}

static const char *case_missing(const struct run_ctx *ctx, const struct scenario *s, const struct policy *p,
				char *buf, size_t len)
{
	const char *unreachable = grid_cell_unreachable(p, &ctx->model, buf, len);

	if (!unreachable)
		unreachable = fair_server_missing(ctx, p, buf, len);
	return unreachable ? unreachable : privileges_case_missing(&ctx->priv, s, p, &ctx->before, buf, len);
}

/* Some policy of the run sets the fair server. */
static bool sets_fair_server(const struct run_options *opt)
{
	struct policy policies[RUN_CASE_POLICIES_MAX];

	for (int i = 0; i < opt->scenario_count; i++) {
		int np = run_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < np; k++)
			if (policies[k].fair_server.set)
				return true;
	}
	return false;
}

/*
 * With a policy that sets the fair server, debugfs is mounted before the knobs are first read
 * and stays until they are back; where the fair server cannot be read or written, why.
 */
static void fair_server_prepare(struct run_ctx *ctx)
{
	if (!sets_fair_server(ctx->opt) || !ctx->priv.write_knobs)
		return;
	ctx->fair_server_mounted = fair_server_mount(ctx->fair_server_why, sizeof(ctx->fair_server_why));
}

static void fair_server_read_why(struct run_ctx *ctx)
{
	if (!ctx->fair_server_why[0] && !ctx->before.has_fair_server)
		snprintf(ctx->fair_server_why, sizeof(ctx->fair_server_why), "%s", knobs_fair_server_why());
	else if (!ctx->fair_server_why[0] &&
		 fair_server_writable(ctx->fair_server_why, sizeof(ctx->fair_server_why)))
		fair_server_accounted(ctx->before.value[KNOB_FAIR_SERVER_RUNTIME], ctx->before.value[KNOB_FAIR_SERVER_PERIOD],
				      ctx->fair_server_why, sizeof(ctx->fair_server_why));
}

/*
 * The results from `from` on back in the order of the policies: policy k's are the `count[k]`
 * that start at `first[k]`, each policy's one run (they ran one policy after another).
 */
static void results_in_policy_order(json_object *results, size_t from, int np, const size_t *first,
				    const size_t *count)
{
	size_t n = json_object_array_length(results) - from, at = from;
	json_object **r = calloc(n ? n : 1, sizeof(*r));

	if (!r)
		return;	/* they stay in the order they ran */
	for (size_t i = 0; i < n; i++)
		r[i] = json_object_get(json_object_array_get_idx(results, from + i));
	for (int k = 0; k < np; k++)
		for (size_t i = 0; i < count[k]; i++)
			json_object_array_put_idx(results, at++, r[first[k] - from + i]);	/* drops the old reference */
	free(r);
}

/* One scenario x policy's windows: every sweep value, every repetition. */
static void run_policy_cases(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, const char *why)
{
	int sweeps = s->sweep_count ? s->sweep_count : 1;
	char missing[480];
	const char *skip = why ? why : case_missing(ctx, s, p, missing, sizeof(missing));

	for (int w = 0; w < sweeps && !ctx->stop_reason[0]; w++)
		for (int rep = 0; rep < ctx->opt->repeat && !ctx->stop_reason[0]; rep++) {
			if (skip)
				run_skip_case(ctx, s, p, w, rep, skip);
			else if (run_case(ctx, s, p, w, rep, !ctx->noise_remeasured))
				remeasure_and_rerun(ctx, s, p, w, rep);
		}
}

/*
 * Every case, each scenario's policies in grid_run_order; the results file lists them in the
 * order of the policies all the same.
 */
static void for_each_case(struct run_ctx *ctx, bool skip_all, const char *skip_reason)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_CASE_POLICIES_MAX];
	int order[RUN_CASE_POLICIES_MAX];
	size_t first[RUN_CASE_POLICIES_MAX], count[RUN_CASE_POLICIES_MAX];

	for (int i = 0; i < opt->scenario_count && !ctx->stop_reason[0]; i++) {
		const struct scenario *s = opt->scenario[i];
		const char *why = skip_all ? skip_reason : scenario_unsupported(ctx, s);
		int np = run_policies(opt, s, policies);
		size_t from = json_object_array_length(ctx->results);

		grid_run_order(policies, np, order);
		memset(count, 0, sizeof(count));
		for (int k = 0; k < np; k++)
			first[k] = from;
		for (int k = 0; k < np && !ctx->stop_reason[0]; k++) {
			first[order[k]] = json_object_array_length(ctx->results);
			run_policy_cases(ctx, s, &policies[order[k]], why);
			count[order[k]] = json_object_array_length(ctx->results) - first[order[k]];
		}
		results_in_policy_order(ctx->results, from, np, first, count);
	}
}

/* Counts the windows the privileges allow; as root, all of them. */
static int count_runnable(const struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_CASE_POLICIES_MAX];
	int total = 0;

	for (int i = 0; i < opt->scenario_count; i++) {
		const struct scenario *s = opt->scenario[i];
		int np = run_policies(opt, s, policies);
		char missing[480];

		if (scenario_unsupported(ctx, s))
			continue;
		for (int k = 0; k < np; k++)
			if (!case_missing(ctx, s, &policies[k], missing, sizeof(missing)))
				total += (s->sweep_count ? s->sweep_count : 1) * opt->repeat;
	}
	return total;
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
	struct policy policies[RUN_CASE_POLICIES_MAX];

	if (!hogs_harness_cpu(opt))
		return true;
	for (int i = 0; i < opt->scenario_count; i++) {
		int np = run_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < np; k++) {
			struct kernel_model model;	/* a policy switching the fair server off may leave no limit */
			struct limiter l;
			char why[256];

			if (grid_cell_unreachable(&policies[k], &ctx->model, why, sizeof(why)))
				continue;
			kernel_model_for_policy(&ctx->model, &policies[k], &model);
			run_scenario_limiter(&model, opt->scenario[i], &policies[k], &l);
			if (!l.limited) {
				rtt_cmd_err("run", "refusing to hog CPU %d, where the harness runs: %s under policy %s "
					    "has no limit in force on this kernel (%s)",
					    opt->cpu, opt->scenario[i]->name, policies[k].name, l.why);
				return false;
			}
		}
	}
	return true;
}

static int measure_all(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;

	const char *probe_why = NULL;

	if (!measure_noise_floor(ctx))
		return ctx->stop_reason[0] ? 0 : -1;
	if (opt->probe_s <= 0)
		probe_why = PROBE_NOT_ASKED;
	else if (!ctx->priv.write_knobs)
		probe_why = PROBE_NOT_ALLOWED;
	if (probe_why)
		kernel_results_regime(ctx, probe_why, NULL);
	else if (!probe_regime(ctx))
		return 0;
	else if (!ctx->observed.done)
		probe_why = "its window failed";
	kernel_results_defaults(ctx, probe_why);
	if (needs_calibration(ctx) && !calibrate(ctx))
		return ctx->stop_reason[0] ? 0 : -1;
	for_each_case(ctx, false, NULL);
	return 0;
}

/* kernel_results go next to kernel_model (or last, when there is none): moved to the end. */
static void kernel_results_place(struct run_ctx *ctx)
{
	json_object_get(ctx->kernel_results);
	json_object_object_del(ctx->root, "kernel_results");
	json_object_object_add(ctx->root, "kernel_results", ctx->kernel_results);
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
	if (ctx->opt->record_dir[0])
		record_run_document(ctx->opt->record_dir, ctx->root, &ctx->model);
	if (written)
		rtt_err("results in %s", ctx->opt->output);
	/* The same document, in the formats other CI systems read. */
	if (export_wanted(&ctx->opt->exports) && !export_write_all(ctx->root, &ctx->opt->exports))
		written = false;
	return written;
}

/* Nothing the privileges allow: every case skips, each with its own reason. */
static int run_nothing_allowed(struct run_ctx *ctx)
{
	const char *probe_why = ctx->opt->probe_s > 0 ? PROBE_NOT_ALLOWED : PROBE_NOT_ASKED;

	ktap_plan(run_planned_results(ctx->opt) + KERNEL_RESULTS);
	/* The settings can be read without privileges: kernel-defaults is judged all the same. */
	kernel_results_regime(ctx, probe_why, NULL);
	kernel_results_defaults(ctx, probe_why);
	for_each_case(ctx, false, NULL);
	rtt_err("every check skipped: nothing here can run with these privileges (see above)");
	kernel_results_place(ctx);
	if (!finish_document(ctx, 0) || ctx->failed)
		return EXIT_CHECK_FAILED;
	/* With every privilege, what stopped the cases is the kernel or the machine: not judged. */
	return privileges_complete(&ctx->priv) ? EXIT_NOT_JUDGED : EXIT_ALL_SKIPPED;
}

/*
 * Takes the run lock and, when the run writes knobs, recovers a dead run's state. Without the
 * right to write the knobs the run changes nothing: it only needs to know no other run is
 * changing them, so it takes an existing lock read-only and goes on when there is none.
 * Returns the lock fd, -2 for "no lock to take", -1 on refusal.
 */
static int take_run_lock(const struct run_ctx *ctx)
{
	int fd;

	if (!ctx->priv.write_knobs)
		return state_lock_if_present();
	fd = state_lock();
	if (fd < 0)
		return -1;
	/* A state file under a free lock: a run died with its guardian. Put its knobs back first. */
	if (access(state_file_path(), F_OK) == 0) {
		rtt_err("found %s from a run that died; restoring its saved knobs", state_file_path());
		if (!state_restore()) {
			close(fd);
			return -1;
		}
	}
	cgroups_remove_stale();
	trace_remove_stale(0);
	rt_queue_remove_stale(0);
	return fd;
}

/* The run's own knob writes are undone and checked; a run that writes none checks nobody else did. */
static bool put_back_knobs(struct run_ctx *ctx, struct knobs *after)
{
	bool ok;

	if (!ctx->priv.write_knobs) {
		ok = knobs_read(after) && knobs_equal(after, &ctx->before);
		if (!ok)
			rtt_err("the knobs changed during the run, not by it: its results may not "
				"match the policies they name");
		return ok;
	}
	ok = knobs_apply(&ctx->before, &ctx->floor) && knobs_read(after) && knobs_equal(after, &ctx->before);
	if (ok) {
		state_remove();
		guardian_release();
	} else {
		rtt_err("the knobs differ from those saved in %s; run 'rtthrottle restore'", state_file_path());
	}
	return ok;
}

static json_object *privileges_summary(const struct run_ctx *ctx)
{
	json_object *obj = json_object_new_object();

	json_add_bool(obj, "complete", privileges_complete(&ctx->priv));
	json_add_bool(obj, "write_knobs", ctx->priv.write_knobs);
	json_add_bool(obj, "write_cgroups", ctx->priv.write_cgroups);
	json_add_bool(obj, "cap_sys_nice", ctx->priv.cap_sys_nice);
	json_add_int(obj, "rt_priority_max", ctx->priv.rt_priority_max);
	json_add_int(obj, "cases_runnable", ctx->cases_runnable);
	json_add_int(obj, "cases_planned", run_planned_results(ctx->opt));
	return obj;
}

/*
 * A check failed (or the knobs or results could not be put back or written): 1. Nothing
 * failed but something was not judged: an error, a run that stopped early, or, with every
 * privilege, a skipped result: 125, which `git bisect run` takes as "cannot test this commit".
 * An unprivileged run's skips are its privileges' doing: 0 when something passed, else 4.
 */
static int run_exit_status(const struct run_ctx *ctx, int status, bool restored_and_written)
{
	bool every_privilege = privileges_complete(&ctx->priv);

	if (!restored_and_written || ctx->failed > ctx->errors)
		return EXIT_CHECK_FAILED;
	if (status < 0 || ctx->errors || (every_privilege && (ctx->skipped || !ctx->passed)))
		return EXIT_NOT_JUDGED;
	return ctx->passed ? EXIT_ALL_PASSED : EXIT_ALL_SKIPPED;
}

static const char *settle_mode_name(enum settle_mode mode)
{
	return mode == SETTLE_NONE ? "none" : mode == SETTLE_TIMER ? "timer" : "period";
}

/* The document's head: run id, the kernel's facts and model, the system, the CPUs, privileges. */
static void run_begin(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	char run_id[96], host[64] = "unknown", stamp[32];

	gethostname(host, sizeof(host));
	format_utc(realtime_ns(), stamp, sizeof(stamp), true);
	snprintf(run_id, sizeof(run_id), "%s-%s", stamp, host);
	ctx->root = results_new(run_id, opt->cmdline);
	json_object_object_get_ex(ctx->root, "results", &ctx->results);
	/* Owned by the document from the start; placed next to kernel_model at the end. */
	ctx->kernel_results = json_object_new_array();
	json_object_object_add(ctx->root, "kernel_results", ctx->kernel_results);
	load_note_run(ctx->root, opt);
	kernel_facts_read(&ctx->facts);
	kernel_model_predict(&ctx->facts, &ctx->model);
	ctx->floor = *dl_floor_of_system();	/* probed before the guardian forks: it inherits it */
	json_object_object_add(ctx->root, "system", sysinfo_collect(knobs_read_json()));
	json_object_object_add(ctx->root, "measured_cpus", placement_to_json(opt->cpus, opt->cpu_count));
	for (int c = 0; c <= cpu_last_online() && ctx->other_cpu < 0; c++)
		if (!placement_has(opt->cpus, opt->cpu_count, c) && cpu_is_online(c))
			ctx->other_cpu = c;
	privileges_probe(&ctx->priv);
}

/*
 * Every window, then the knobs put back and checked, and the document written: the run's exit
 * status. The guardian and the state file are in place when it starts.
 */
static int run_windows_and_finish(struct run_ctx *ctx)
{
	struct knobs after;
	bool restore_ok, written;
	int status, dma_fd;

	json_object_object_add(ctx->root, "knobs_before", knobs_to_json(&ctx->before));
	dma_fd = hold_cpu_dma_latency(ctx->root);
	ctx->shm = window_shm_create();
	ktap_plan(run_planned_results(ctx->opt) + KERNEL_RESULTS);
	ctx->noise_s = noise_seconds(ctx);
	progress_begin(ctx->opt->quiet, planned_seconds(ctx));
	announce_grids(ctx);
	ctx->trace = trace_open(ctx->opt->trace, ctx->opt->cpus, ctx->opt->cpu_count);
	ctx->rt_queue_readable = rt_queue_open(ctx->opt->cpu, ctx->rt_queue_why, sizeof(ctx->rt_queue_why));
	status = ctx->shm ? measure_all(ctx) : -1;
	run_settle_due(ctx);	/* the next run starts on forgiven time too */
	if (ctx->rt_queue_readable)
		rt_queue_close();
	trace_close(ctx->trace);
	private_dir_remove(2.0);

	/* Restore, verify, and only then let the guardian go. */
	restore_ok = put_back_knobs(ctx, &after);
	json_object_object_add(ctx->root, "knobs_after", restore_ok || knobs_read(&after) ? knobs_to_json(&after) : NULL);
	json_add_bool(ctx->root, "knobs_restored", restore_ok);
	json_object_object_add(ctx->root, "kernel_model", kernel_model_to_json(&ctx->model, &ctx->observed));
	kernel_results_place(ctx);
	json_add_str(ctx->root, "settle", settle_mode_name(ctx->opt->settle));
	json_add_double(ctx->root, "settle_s", ctx->settle_us / 1e6);
	written = finish_document(ctx, status);
	window_shm_destroy(ctx->shm);
	if (dma_fd >= 0)
		close(dma_fd);
	if (signals_stop_requested())
		return 128 + signals_stop_requested();
	return run_exit_status(ctx, status, restore_ok && written);
}

int run_execute(const struct run_options *opt)
{
	struct run_ctx ctx = { .opt = opt, .other_cpu = -1 };
	int lock_fd = -2, status = EXIT_USAGE;
	bool writes;

	run_begin(&ctx);
	writes = ctx.priv.write_knobs;
	if (!limit_in_force(&ctx))
		goto out_document;
	if (!writes && hogs_harness_cpu(opt)) {
		rtt_cmd_err("run", "hogging CPU %d, where the harness runs, needs the guardian and the "
			    "knob restore of a root run: run as root", opt->cpu);
		goto out_document;
	}
	/* A run that writes knobs locks first: a dead run's knobs go back before we read them. */
	if (writes && (lock_fd = take_run_lock(&ctx)) == -1)
		goto out_document;
	status = EXIT_CHECK_FAILED;
	fair_server_prepare(&ctx);
	if (!knobs_read(&ctx.before))
		goto out_lock;
	fair_server_read_why(&ctx);
	ctx.cases_runnable = count_runnable(&ctx);
	json_object_object_add(ctx.root, "privilege_plan", privileges_summary(&ctx));
	if (!privileges_complete(&ctx.priv))
		privileges_explain(&ctx.priv, &ctx.before);
	if (ctx.cases_runnable == 0) {
		status = run_nothing_allowed(&ctx);
		goto out_lock;
	}
	if (!writes && (lock_fd = take_run_lock(&ctx)) == -1) {
		status = EXIT_USAGE;
		goto out_document;
	}
	ctx.longest_period_us = ctx.before.value[KNOB_SYSCTL_PERIOD];
	if (ctx.before.has_cgroup && ctx.before.value[KNOB_CGROUP_PERIOD] > ctx.longest_period_us)
		ctx.longest_period_us = ctx.before.value[KNOB_CGROUP_PERIOD];
	move_off_cpus(opt);
	signals_install();
	/* Before the guardian, which inherits its path and removes it should the run die. */
	if (private_dir_create())
		goto out_lock;
	/* The guardian before the state file: from the moment it exists, someone acts on it. */
	if (writes && !guardian_start(hogs_harness_cpu(opt)))
		goto out_private_dir;
	if (writes && !state_save(&ctx.before, getpid()))
		goto out_guardian;
	status = run_windows_and_finish(&ctx);
	goto out_lock;

out_guardian:
	guardian_release();
out_private_dir:
	private_dir_remove(0);
out_lock:
	/* After the knobs are back (or were never written): the fair server's debugfs is no longer needed. */
	if (ctx.fair_server_mounted)
		fair_server_unmount();
	if (lock_fd >= 0)
		close(lock_fd);
out_document:
	json_object_put(ctx.root);
	return status;
}
