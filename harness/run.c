#include "run.h"
#include "cpu_stat.h"
#include "expect.h"
#include "guardian.h"
#include "kernel_model.h"
#include "knobs.h"
#include "metrics.h"
#include "report.h"
#include "results.h"
#include "signals.h"
#include "state.h"
#include "sysinfo.h"
#include "util.h"
#include "window.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HOG_PRIORITY 50
#define GAP_THRESHOLD_NS 10000ull	/* 10 us: well above a loop step, below any preemption */
#define LONG_GAP_NS 200000ull		/* stored one by one for throttle analysis */
#define CHECKS_MAX 16

struct run_ctx {
	const struct run_options *opt;
	struct window_shm *shm;
	struct kernel_facts facts;
	struct kernel_model model;
	struct regime_observation observed;
	struct noise_floor noise;
	struct knobs before;
	json_object *root, *results;
	int ktap_number, passed, failed, skipped;
	double last_steal_us;	/* VM steal on the measured CPU during the last window, -1 unknown */
	char stop_reason[256];
};

static struct task_config task_config(enum task_role role, int cpu, double window_s)
{
	return (struct task_config){
		.role = role,
		.cpu = cpu,
		.sched_policy = role == ROLE_HOG ? SCHED_FIFO : SCHED_OTHER,
		.priority = role == ROLE_HOG ? HOG_PRIORITY : 0,
		.gap_threshold_ns = GAP_THRESHOLD_NS,
		.long_gap_ns = LONG_GAP_NS,
		.lifetime_cap_s = (uint64_t)window_s + 10,
	};
}

static const char *role_name(enum task_role role)
{
	return role == ROLE_HOG ? "hog" : role == ROLE_VICTIM ? "victim" : "noise";
}

/* Apply, measure, put the knobs back: the system runs with its own values between windows. */
static enum window_status measure(struct run_ctx *ctx, const struct policy *p, const struct task_config *tasks,
				  int count, double window_s, char *why, size_t why_len)
{
	enum window_status status = WINDOW_OK;

	if (p) {
		struct knobs target = knobs_target(&ctx->before, p->runtime_us, p->period_us);

		if (!knobs_apply(&target)) {
			snprintf(why, why_len, "the kernel refused policy %s (%lld/%lld); see above", p->name,
				 (long long)p->runtime_us, (long long)p->period_us);
			status = WINDOW_TASK_FAILED;
		}
	}
	if (status == WINDOW_OK) {
		uint64_t steal_before = 0, steal_after = 0;
		bool steal_known = cpu_steal_us(ctx->opt->cpu, &steal_before);

		status = window_run(ctx->shm, tasks, count, (uint64_t)(window_s * 1e9), why, why_len);
		steal_known &= cpu_steal_us(ctx->opt->cpu, &steal_after);
		ctx->last_steal_us = steal_known ? (double)(steal_after - steal_before) : -1;
	}
	if (p && !knobs_apply(&ctx->before)) {
		snprintf(why, why_len, "restoring the knobs after policy %s failed", p->name);
		status = WINDOW_TASK_FAILED;
	}
	progress_advance(window_s);
	return status;
}

static bool stopped(struct run_ctx *ctx, enum window_status status, const char *why)
{
	if (status == WINDOW_INTERRUPTED)
		snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
	return status == WINDOW_INTERRUPTED;
}

static bool measure_noise_floor(struct run_ctx *ctx)
{
	const struct run_options *opt = ctx->opt;
	struct task_config noise = task_config(ROLE_NOISE, opt->cpu, opt->noise_s);
	struct task_metrics m;
	json_object *obj;
	char why[256];
	enum window_status status;

	progress_step("noise floor: a SCHED_OTHER spinner alone on CPU %d for %.1f s", opt->cpu, opt->noise_s);
	status = measure(ctx, NULL, &noise, 1, opt->noise_s, why, sizeof(why));
	if (status != WINDOW_OK) {
		fprintf(stderr, "rtthrottle: noise floor measurement failed: %s\n", why);
		stopped(ctx, status, why);
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
	json_object_object_add(obj, "gap_threshold_us", json_object_new_double(GAP_THRESHOLD_NS / 1e3));
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
		task_config(ROLE_HOG, opt->cpu, opt->probe_s),
		task_config(ROLE_VICTIM, opt->cpu, opt->probe_s),
	};
	struct policy dflt, unlimited;
	struct task_metrics hog, victim;
	enum window_status status;
	char why[256];

	policy_find("default", &dflt);
	policy_find("unlimited", &unlimited);
	progress_step("regime probe 1/2: a lone FIFO hog at 950000/1000000 for %.1f s", opt->probe_s);
	status = measure(ctx, &dflt, tasks, 1, opt->probe_s, why, sizeof(why));
	if (status != WINDOW_OK)
		goto failed;
	/* Throttle gaps of the default policy last 50 ms: count those above half of it. */
	metrics_compute(&ctx->shm->task[0], (dflt.period_us - dflt.runtime_us) / 2.0, &hog);
	progress_step("regime probe 2/2: FIFO hog + CFS task at runtime -1 for %.1f s", opt->probe_s);
	status = measure(ctx, &unlimited, tasks, 2, opt->probe_s, why, sizeof(why));
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
	stopped(ctx, status, why);
	return status != WINDOW_INTERRUPTED;
}

static json_object *task_json(const struct task_record *rec, const struct task_metrics *m)
{
	json_object *obj = json_object_new_object();
	const struct task_config *c = &rec->config;

	json_object_object_add(obj, "role", json_object_new_string(role_name(c->role)));
	json_object_object_add(obj, "cpu", json_object_new_int(c->cpu));
	json_object_object_add(obj, "sched_policy",
			       json_object_new_string(c->sched_policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER"));
	json_object_object_add(obj, "priority", json_object_new_int(c->priority));
	json_object_object_add(obj, "metrics", metrics_to_json(rec, m));
	return obj;
}

/* KTAP test name: scenario.policy, with .repN when repeating. */
static void result_name(char *buf, size_t len, const struct scenario *s, const struct policy *p, int rep, int repeat)
{
	if (repeat > 1)
		snprintf(buf, len, "%.80s.%.48s.rep%d", s->name, p->name, rep + 1);
	else
		snprintf(buf, len, "%.80s.%.48s", s->name, p->name);
}

static void run_one(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int rep)
{
	const struct run_options *opt = ctx->opt;
	struct task_config tasks[2] = {
		task_config(ROLE_HOG, opt->cpu, opt->duration_s),
		task_config(ROLE_VICTIM, opt->cpu, opt->duration_s),
	};
	struct check checks[CHECKS_MAX];
	struct task_metrics hog, victim;
	struct limiter limiter;
	json_object *res = json_object_new_object(), *arr;
	char name[160], why[256] = "";
	enum window_status status;
	double hog_threshold, victim_threshold;
	bool ok = true;
	int n = 0;

	result_name(name, sizeof(name), s, p, rep, opt->repeat);
	limiter_for(&ctx->model, p, &limiter);
	hog_threshold = throttle_threshold_us(&limiter, &ctx->noise, ctx->model.tick_us);
	victim_threshold = starvation_threshold_us(&limiter, &ctx->noise, ctx->model.tick_us);
	progress_step("%s: policy %s (%lld/%lld), %.1f s window, expecting %s", s->name, p->name,
		      (long long)p->runtime_us, (long long)p->period_us, opt->duration_s, regime_name(limiter.regime));
	status = measure(ctx, p, tasks, 2, opt->duration_s, why, sizeof(why));

	json_object_object_add(res, "scenario", json_object_new_string(s->name));
	json_object_object_add(res, "policy", policy_to_json(p));
	json_object_object_add(res, "repetition", json_object_new_int(rep + 1));
	json_object_object_add(res, "regime", json_object_new_string(regime_name(limiter.regime)));
	json_object_object_add(res, "window_s", json_object_new_double(opt->duration_s));
	json_object_object_add(res, "steal_us", json_object_new_double(ctx->last_steal_us));
	if (status != WINDOW_OK) {
		json_object_object_add(res, "verdict", json_object_new_string("error"));
		json_object_object_add(res, "error", json_object_new_string(why));
		json_object_array_add(ctx->results, res);
		if (stopped(ctx, status, why))
			return;
		ktap_diag("%s: %s", name, why);
		ktap_result(++ctx->ktap_number, false, name, NULL);
		ctx->failed++;
		return;
	}
	metrics_compute(&ctx->shm->task[0], hog_threshold, &hog);
	metrics_compute(&ctx->shm->task[1], victim_threshold, &victim);
	arr = json_object_new_array();
	json_object_array_add(arr, task_json(&ctx->shm->task[0], &hog));
	json_object_array_add(arr, task_json(&ctx->shm->task[1], &victim));
	json_object_object_add(res, "tasks", arr);

	n = expect_hog_with_cfs(&(struct expect_input){ &ctx->model, &limiter, &ctx->noise, opt->duration_s,
							fmax(ctx->last_steal_us, 0) },
				&hog, &victim, checks, CHECKS_MAX);
	arr = json_object_new_array();
	for (int i = 0; i < n; i++) {
		json_object_array_add(arr, check_to_json(&checks[i]));
		ok &= checks[i].passed;
	}
	json_object_object_add(res, "checks", arr);
	json_object_object_add(res, "verdict", json_object_new_string(ok ? "pass" : "fail"));
	json_object_array_add(ctx->results, res);
	ktap_checks(checks, n);
	if (!ok && ctx->last_steal_us > 0)
		ktap_diag("%s: the hypervisor stole %.0f ms of CPU %d during this window", name,
			  ctx->last_steal_us / 1000, opt->cpu);
	ktap_result(++ctx->ktap_number, ok, name, NULL);
	ok ? ctx->passed++ : ctx->failed++;
	progress_step("%s: hog %.4f, victim %.4f of the CPU, victim starved up to %.1f ms: %s", name,
		      hog.cpu_share, victim.cpu_share, victim.gap_max_us / 1000, ok ? "pass" : "FAIL");
}

/* The policies a scenario runs: the command line's, or the scenario's own. */
static int scenario_policies(const struct run_options *opt, const struct scenario *s, struct policy *out)
{
	char list[256], *save = NULL;
	int n = 0;

	if (opt->policy_count) {
		memcpy(out, opt->policy, sizeof(*out) * (size_t)opt->policy_count);
		return opt->policy_count;
	}
	snprintf(list, sizeof(list), "%s", s->default_policies);
	for (char *name = strtok_r(list, ",", &save); name && n < RUN_POLICIES_MAX;
	     name = strtok_r(NULL, ",", &save))
		if (policy_find(name, &out[n]))
			n++;
	return n;
}

static int planned_results(const struct run_options *opt)
{
	struct policy policies[RUN_POLICIES_MAX];
	int total = 0;

	for (int i = 0; i < opt->scenario_count; i++)
		total += scenario_policies(opt, opt->scenario[i], policies) * opt->repeat;
	return total;
}

static void print_summary(json_object *results)
{
	size_t n = json_object_array_length(results);

	ktap_diag("%-16s %-18s %17s %9s %9s %12s %7s", "scenario", "policy", "runtime/period us",
		  "hog", "victim", "starved ms", "verdict");
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(results, i), *v, *tasks, *pol;
		double share[2] = { -1, -1 }, starved = -1;
		char rp[40];

		json_object_object_get_ex(r, "policy", &pol);
		json_object_object_get_ex(pol, "runtime_us", &v);
		snprintf(rp, sizeof(rp), "%lld", (long long)json_object_get_int64(v));
		json_object_object_get_ex(pol, "period_us", &v);
		snprintf(rp + strlen(rp), sizeof(rp) - strlen(rp), "/%lld", (long long)json_object_get_int64(v));
		if (json_object_object_get_ex(r, "tasks", &tasks))
			for (size_t t = 0; t < 2 && t < json_object_array_length(tasks); t++) {
				json_object *m;

				json_object_object_get_ex(json_object_array_get_idx(tasks, t), "metrics", &m);
				json_object_object_get_ex(m, "cpu_share", &v);
				share[t] = json_object_get_double(v);
				if (json_object_object_get_ex(m, "starvation_max_us", &v))
					starved = json_object_get_double(v) / 1000;
			}
		json_object_object_get_ex(r, "verdict", &v);
		ktap_diag("%-16s %-18s %17s %9.4f %9.4f %12.1f %7s",
			  json_object_get_string(json_object_object_get(r, "scenario")),
			  json_object_get_string(json_object_object_get(pol, "name")), rp, share[0], share[1],
			  starved, json_object_get_string(v));
	}
}

/* Keeps the harness (and so the guardian) off the measured CPU when another one is online. */
static void move_off_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != cpu && cpu_is_online(c))
			CPU_SET(c, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

static int skip_all(struct run_ctx *ctx, const char *reason)
{
	const struct run_options *opt = ctx->opt;
	struct policy policies[RUN_POLICIES_MAX];

	ktap_plan(planned_results(opt));
	for (int i = 0; i < opt->scenario_count; i++) {
		int np = scenario_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < np; k++)
			for (int rep = 0; rep < opt->repeat; rep++) {
				char name[160];
				json_object *res = json_object_new_object();

				result_name(name, sizeof(name), opt->scenario[i], &policies[k], rep, opt->repeat);
				ktap_result(++ctx->ktap_number, true, name, reason);
				json_object_object_add(res, "scenario", json_object_new_string(opt->scenario[i]->name));
				json_object_object_add(res, "policy", policy_to_json(&policies[k]));
				json_object_object_add(res, "repetition", json_object_new_int(rep + 1));
				json_object_object_add(res, "verdict", json_object_new_string("skip"));
				json_object_object_add(res, "skip_reason", json_object_new_string(reason));
				json_object_array_add(ctx->results, res);
				ctx->skipped++;
			}
	}
	fprintf(stderr, "rtthrottle: every check skipped: %s\n", reason);
	return EXIT_ALL_SKIPPED;
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
	struct policy policies[RUN_POLICIES_MAX];

	ktap_plan(planned_results(opt));
	if (!measure_noise_floor(ctx))
		return ctx->stop_reason[0] ? 0 : -1;
	if (opt->probe_s > 0 && !probe_regime(ctx))
		return 0;
	for (int i = 0; i < opt->scenario_count; i++) {
		int np = scenario_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < np; k++)
			for (int rep = 0; rep < opt->repeat; rep++) {
				run_one(ctx, opt->scenario[i], &policies[k], rep);
				if (ctx->stop_reason[0])
					return 0;
			}
	}
	return 0;
}

static double planned_seconds(const struct run_options *opt)
{
	return opt->noise_s + 2 * opt->probe_s + planned_results(opt) * opt->duration_s;
}

int run_execute(const struct run_options *opt)
{
	struct run_ctx ctx = { .opt = opt };
	char run_id[96], host[64] = "unknown", stamp[32];
	struct knobs after;
	const char *skip;
	int lock_fd, status, restored;
	bool restore_ok;

	gethostname(host, sizeof(host));
	format_utc(realtime_ns(), stamp, sizeof(stamp), true);
	snprintf(run_id, sizeof(run_id), "%s-%s", stamp, host);
	ctx.root = results_new(run_id, opt->cmdline);
	json_object_object_get_ex(ctx.root, "results", &ctx.results);
	kernel_facts_read(&ctx.facts);
	kernel_model_predict(&ctx.facts, &ctx.model);
	json_object_object_add(ctx.root, "system", sysinfo_collect());

	skip = missing_privilege();
	if (skip) {
		status = skip_all(&ctx, skip);
		results_finish(ctx.root, true, NULL);
		results_write(ctx.root, opt->output);
		json_object_put(ctx.root);
		return status;
	}
	lock_fd = state_lock();
	if (lock_fd < 0) {
		json_object_put(ctx.root);
		return EXIT_USAGE;
	}
	/* A state file under a free lock: a run died with its guardian. Put its knobs back first. */
	restored = access(state_file_path(), F_OK) == 0;
	if (restored) {
		fprintf(stderr, "rtthrottle: found %s from a run that died; restoring its saved knobs\n",
			state_file_path());
		if (!state_restore()) {
			close(lock_fd);
			json_object_put(ctx.root);
			return EXIT_CHECK_FAILED;
		}
	}
	if (!knobs_read(&ctx.before) || !state_save(&ctx.before, getpid())) {
		close(lock_fd);
		json_object_put(ctx.root);
		return EXIT_CHECK_FAILED;
	}
	json_object_object_add(ctx.root, "knobs_before", knobs_to_json(&ctx.before));
	move_off_cpu(opt->cpu);
	signals_install();
	if (!guardian_start()) {
		state_remove();
		close(lock_fd);
		json_object_put(ctx.root);
		return EXIT_CHECK_FAILED;
	}
	ctx.shm = window_shm_create();
	progress_begin(opt->quiet, planned_seconds(opt));
	status = ctx.shm ? measure_all(&ctx) : -1;

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
	results_finish(ctx.root, !ctx.stop_reason[0] && status == 0, ctx.stop_reason[0] ? ctx.stop_reason : NULL);
	if (ctx.results && json_object_array_length(ctx.results))
		print_summary(ctx.results);
	if (results_write(ctx.root, opt->output))
		fprintf(stderr, "rtthrottle: results in %s\n", opt->output);
	window_shm_destroy(ctx.shm);
	json_object_put(ctx.root);
	close(lock_fd);

	if (signals_stop_requested())
		return 128 + signals_stop_requested();
	if (status < 0 || !restore_ok || ctx.failed)
		return EXIT_CHECK_FAILED;
	return ctx.passed ? EXIT_ALL_PASSED : EXIT_ALL_SKIPPED;
}
