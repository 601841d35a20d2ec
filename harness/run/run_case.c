// SPDX-License-Identifier: GPL-2.0-only
/* A case from policy to verdict: knobs, lead-in, window, judging (settling between windows: settle.c). */
#include "run_case.h"
#include "fair_server.h"
#include "json_util.h"
#include "cgroups.h"
#include "cpu_stat.h"
#include "cyclictest.h"
#include "grid.h"
#include "guardian.h"
#include "judge.h"
#include "load.h"
#include "metrics.h"
#include "kernel_grid.h"
#include "promise.h"
#include "quantity.h"
#include "record.h"
#include "report.h"
#include "rt_timer.h"
#include "role_metrics.h"
#include "role_setup.h"
#include "settle.h"
#include "scenario_task.h"
#include "signals.h"
#include "sysinfo.h"
#include "util.h"
#include "verdict.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define GAP_THRESHOLD_NS 10000ull	/* 10 us: well above a loop step, below any preemption */
#define LONG_GAP_NS 200000ull		/* stored one by one for throttle analysis */
#define CHECKS_MAX SCENARIO_CHECKS_MAX

double run_window_s(const struct run_options *opt, const struct scenario *s, const struct policy *p)
{
	double window = s->window_s > 0 ? s->window_s : opt->duration_s;

	window = fmax(window, s->min_periods * p->period_us / 1e6);
	/*
	 * A grid cell of periods longer than the fair server's default second: the server's
	 * period straddling the window start may have been spent before it, so the share over
	 * whole periods is taken after that second, and the cell's window holds its whole periods
	 * after it too. A named policy keeps its whole periods: a window past them leaves the next
	 * case a period timer on this period, which a shorter period does not re-arm.
	 */
	if (p->grid.cells && s->min_periods > 0 && p->period_us > FAIR_SERVER_DEFAULT_PERIOD_US)
		window = fmax(window, FAIR_SERVER_DEFAULT_PERIOD_US / 1e6 + s->min_periods * p->period_us / 1e6);
	return p->grid.cells ? grid_cell_window_s(window, p->period_us) : window;
}

struct task_config run_task_config(enum task_role role, const char *name, int cpu, double window_s)
{
	struct task_config c = {
		.role = role,
		.cpu = cpu,
		.sched_policy = SCHED_OTHER,
		.gap_threshold_ns = GAP_THRESHOLD_NS,
		.long_gap_ns = LONG_GAP_NS,
		.lifetime_cap_s = (uint64_t)window_s + 10,
		.avoid_cpu = -1,
		.mem_node = placement_node_of(cpu),
	};

	snprintf(c.name, sizeof(c.name), "%s", name);
	return c;
}

/* A scenario's lead-in: the policies written while its spinners already run. */
struct lead_writes {
	struct run_ctx *ctx;
	const struct policy *policy[SCENARIO_LEAD_IN_MAX + 1];	/* [0] before the tasks start, [k] at step k - 1 */
	int count;
	struct window_lead lead;
};

static bool apply_lead_step(void *arg, int step, char *why, size_t why_len)
{
	struct lead_writes *w = arg;
	const struct policy *p = w->policy[step + 1];
	struct knobs target = knobs_for_policy(&w->ctx->before, p);

	if (knobs_apply(&target, &w->ctx->floor))
		return true;
	snprintf(why, why_len, "the kernel refused policy %s (%lld/%lld) on the live system; see above", p->name,
		 (long long)p->runtime_us, (long long)p->period_us);
	return false;
}

/*
 * Lead-in policy k holds lead_in_ms from the tasks' start; the result's policy is written
 * after the last. The window starts two periods later: the write takes effect when the
 * period timer next fires (a timer idle under -1 first fires when the limit is hit and
 * refills at once), so from the second period on RT must keep to the new runtime.
 */
double run_lead_in_s(const struct scenario *s, const struct policy *p)
{
	int64_t period = p->period_us;

	if (!s->lead_in_count)
		return 0;
	for (int i = 0; i < s->lead_in_count; i++)
		if (s->lead_in[i].period_us > period)
			period = s->lead_in[i].period_us;
	return s->lead_in_count * s->lead_in_ms / 1e3 + 2 * period / 1e6;
}

static void lead_writes_init(struct lead_writes *w, struct run_ctx *ctx, const struct scenario *s,
			     const struct policy *p)
{
	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	for (int i = 0; i < s->lead_in_count; i++)
		w->policy[w->count++] = &s->lead_in[i];
	w->policy[w->count++] = p;
	w->lead.steps = w->count - 1;
	for (int k = 0; k < w->lead.steps; k++)
		w->lead.at_ns[k] = (uint64_t)((k + 1) * s->lead_in_ms * 1e6);
	w->lead.span_ns = (uint64_t)(run_lead_in_s(s, p) * 1e9);
	w->lead.apply = apply_lead_step;
	w->lead.ctx = w;
}

/* Each lead-in policy and when it took over, in ms from the window start (negative: before it). */
static json_object *lead_in_json(const struct lead_writes *w, uint64_t start_ns)
{
	json_object *arr = json_object_new_array();

	for (int k = 0; k < w->count; k++) {
		json_object *o = json_object_new_object();
		uint64_t at = k ? w->lead.applied_ns[k - 1] : start_ns - w->lead.span_ns;

		json_add_str(o, "policy", w->policy[k]->name);
		json_add_int64(o, "runtime_us", w->policy[k]->runtime_us);
		json_add_int64(o, "period_us", w->policy[k]->period_us);
		json_add_double(o, "from_ms", ((double)at - (double)start_ns) / 1e6);
		json_object_array_add(arr, o);
	}
	return arr;
}

/*
 * CPU time that tasks other than the window's took on the measured CPU while it ran. Other
 * CFS tasks share "the rest" with the victim; this is what they took of it, measured apart
 * from the judged tasks. With the edges' reads: the CPU's busy time between the edges less
 * the window's tasks' own, both read at the edges (a task that runs on past the end, as a
 * late periodic job does, is not counted twice). Without them: the busy time around the whole
 * window (set-up and tear-down in it) less the tasks' whole lives, which counts what ran there
 * before and after as other too. A task of the window that strayed onto the CPU counts as other.
 */
static double others_us(const struct run_ctx *ctx, int count, const struct window_busy *edges, uint64_t busy_ns)
{
	double ours = 0;

	if (edges->known)
		return fmax(0, ((double)(edges->at_end_ns - edges->at_start_ns) -
				(double)(edges->tasks_at_end_ns - edges->tasks_at_start_ns)) / 1000.0);
	for (int i = 0; i < count; i++) {
		const struct task_record *t = &ctx->shm->task[i];

		if (t->config.cpu == ctx->opt->cpu)
			ours += (double)task_life_cpu_ns(t);
	}
	return fmax(0, ((double)busy_ns - ours) / 1000.0);
}

/*
 * Once a window cut before a firing is over: where the timer fires next. A firing on the
 * grid foretold is followed by one a period on; one off it shows the window's end was not
 * the kernel's period boundary (aligned_periods_end_us).
 */
static void aligned_end_read(struct window_align *align)
{
	if (align && align->cut_ns && !rt_timer_read(&align->after))
		align->after.armed = false;
}

/* results[].aligned_end: the firing the window ended before, and how far the timer's grid was off it. */
/*
 * The measured CPU's RT queue as the window began, as the kernel accounts it: RT time a window
 * inherits shows here, whatever the settle inferred.
 */
static json_object *rt_queue_json(const struct run_ctx *ctx)
{
	const struct rt_queue_state *q = &ctx->rt_queue_at_start;
	json_object *obj = json_object_new_object();

	if (!ctx->rt_queue_read) {
		json_add_str(obj, "unknown", ctx->rt_queue_why[0] ? ctx->rt_queue_why : "not read: no policy was applied");
		return obj;
	}
	json_add_int(obj, "cpu", q->cpu);
	json_add_double(obj, "rt_time_us", q->rt_time_us);
	json_add_bool(obj, "throttled", q->throttled);
	json_add_int(obj, "nr_running", q->nr_running);
	json_add_double(obj, "runtime_us", q->runtime_us);
	json_add_double(obj, "settle_waited_us", (double)ctx->rt_queue_waited_us);
	return obj;
}

static json_object *aligned_end_json(const struct window_shm *shm, const struct window_align *align)
{
	json_object *o = json_object_new_object();
	int64_t off;

	json_add_double(o, "firing_ms", ((double)align->firing_ns - (double)shm->start_ns) / 1e6);
	if (align->after.armed && align->after.now_ns > 0)
		json_add_double(o, "timer_next_ms",
				((double)(align->after.now_ns + align->after.last_in_ns) - (double)shm->start_ns) / 1e6);
	if (rt_timer_off_grid(&align->after, (int64_t)align->period_ns, align->firing_ns, &off))
		json_add_double(o, "off_grid_us", (double)off / 1e3);
	return o;
}

/*
 * The last boundary of the kernel's RT periods within the window, in us from its start, when
 * the timer's grid after the window lay more than a tick off the one its end was cut for: the
 * window then holds only part of its last period (on an emulator a CFS task's slot that the
 * end cut 12.5 ms short of the kernel's firing counted as a period's). 0: the window's end is
 * as good a boundary as any.
 */
static double aligned_periods_end_us(const struct window_shm *shm, const struct window_align *align, double tick_us)
{
	int64_t off, boundary;

	if (!align || !align->cut_ns ||
	    !rt_timer_off_grid(&align->after, (int64_t)align->period_ns, align->firing_ns, &off) ||
	    llabs(off) <= (int64_t)(tick_us * 1000))
		return 0;
	boundary = rt_timer_grid_last_by((int64_t)align->firing_ns + off, (int64_t)align->period_ns,
					 (int64_t)shm->end_ns);
	/* Before the start: no boundary inside, so no whole period (1 ns, not 0: 0 means none known). */
	return boundary > (int64_t)shm->start_ns ? ((double)boundary - (double)shm->start_ns) / 1000.0 : 1e-3;
}

static enum window_status run_measure_led(struct run_ctx *ctx, const struct policy *p, struct lead_writes *w,
					  struct window_align *align, const struct task_config *tasks, int count,
					  double window_s, char *why, size_t why_len)
{
	enum window_status status = WINDOW_OK;
	const struct policy *first = w ? w->policy[0] : p;

	/* Each window's own account: read by the settle, or why not (a closed queue keeps its reason). */
	ctx->rt_queue_read = false;
	ctx->rt_queue_waited_us = 0;
	if (ctx->rt_queue_readable)
		ctx->rt_queue_why[0] = '\0';
	/* A window without a policy (the noise floor) has no RT task: what is due waits for the next. */
	if (first)
		run_settle_due(ctx);
	if (p) {
		struct knobs target = knobs_for_policy(&ctx->before, first);

		if (p->period_us > ctx->longest_period_us)
			ctx->longest_period_us = p->period_us;
		if (!knobs_apply(&target, &ctx->floor)) {
			snprintf(why, why_len, "the kernel refused policy %s (%lld/%lld); see above", first->name,
				 (long long)first->runtime_us, (long long)first->period_us);
			status = WINDOW_TASK_FAILED;
		} else {
			run_settle_before(ctx, first);
			run_settle_queue(ctx, first);
		}
	}
	if (status == WINDOW_OK) {
		uint64_t steal_before = 0, steal_after = 0;
		bool steal_known = cpu_steal_us(ctx->opt->cpu, &steal_before);
		uint64_t irqs_before = 0, irqs_after = 0;
		bool irqs_known = cpu_timer_interrupts(ctx->opt->cpu, &irqs_before);
		uint64_t busy_before = 0, busy_after = 0;
		bool busy_known = cpu_busy_ns(ctx->opt->cpu, &busy_before);
		struct window_busy edges = { .cpu = ctx->opt->cpu };

		/*
		 * Shortening the RT period does not re-arm the kernel's period timer: a queue
		 * throttled under a longer period stays throttled until that timer fires. Setup
		 * may wait that long.
		 */
		status = window_run(ctx->shm, tasks, count, (uint64_t)(window_s * 1e9),
				    (uint64_t)ctx->longest_period_us * 1000ull, w ? &w->lead : NULL, align, &edges, why,
				    why_len);
		trace_window_end(ctx->trace);
		guardian_watch_group(0);	/* the group is gone; its id may be reused */
		steal_known &= cpu_steal_us(ctx->opt->cpu, &steal_after);
		ctx->last_steal_us = steal_known ? (double)(steal_after - steal_before) : -1;
		irqs_known &= cpu_timer_interrupts(ctx->opt->cpu, &irqs_after);
		ctx->last_timer_irqs = irqs_known ? (double)(irqs_after - irqs_before) : -1;
		busy_known &= cpu_busy_ns(ctx->opt->cpu, &busy_after);
		edges.known &= busy_known;
		ctx->last_others_us = busy_known ? others_us(ctx, count, &edges, busy_after - busy_before) : -1;
		aligned_end_read(align);	/* after the counters: they bracket the window only */
	}
	/* Put the knobs back after every window: the system runs with its own values in between. */
	if (p && status == WINDOW_OK)
		run_settle_before_restore(ctx, p);
	if (p && !knobs_apply(&ctx->before, &ctx->floor)) {
		snprintf(why, why_len, "restoring the knobs after policy %s failed", p->name);
		status = WINDOW_TASK_FAILED;
	}
	if (p && status == WINDOW_OK)
		run_settle_after(ctx, p);
	progress_advance(window_s + (w ? w->lead.span_ns / 1e9 : 0));
	return status;
}

enum window_status run_measure(struct run_ctx *ctx, const struct policy *p, const struct task_config *tasks,
			       int count, double window_s, char *why, size_t why_len)
{
	return run_measure_led(ctx, p, NULL, NULL, tasks, count, window_s, why, why_len);
}

static void case_name(char *buf, size_t len, const struct run_ctx *ctx, const struct scenario *s,
		      const struct policy *p, int sweep, int rep)
{
	int n = snprintf(buf, len, "%.48s.%.48s", s->name, p->name);

	if (s->sweep_count && n < (int)len)
		n += snprintf(buf + n, len - (size_t)n, ".%s=%g", s->sweep_param, s->sweep_values[sweep]);
	if (ctx->opt->repeat > 1 && n < (int)len)
		snprintf(buf + n, len - (size_t)n, ".rep%d", rep + 1);
}

/* The CPUs a policy's fair server was set on: the run's measured ones, or every online CPU. */
static void fair_server_cpus_json(json_object *res, const struct policy *p)
{
	json_object *policy, *fs, *list;
	int cpus[FAIR_SERVER_CPUS_MAX], count = fair_server_cpus(cpus);

	if (!p->fair_server.set || !json_object_object_get_ex(res, "policy", &policy) ||
	    !json_object_object_get_ex(policy, "fair_server", &fs))
		return;
	if (!count) {
		json_add_str(fs, "cpus", "all");
		return;
	}
	list = json_object_new_array();
	for (int i = 0; i < count; i++)
		json_object_array_add(list, json_object_new_int(cpus[i]));
	json_object_object_add(fs, "cpus", list);
}

static json_object *case_json(const struct scenario *s, const struct policy *p, int sweep, int rep)
{
	json_object *res = json_object_new_object();

	json_add_str(res, "scenario", s->name);
	json_object_object_add(res, "policy", policy_to_json(p));
	fair_server_cpus_json(res, p);
	json_add_int(res, "repetition", rep + 1);
	if (s->sweep_count) {
		json_object *sw = json_object_new_object();

		json_add_str(sw, "task", s->sweep_task);
		json_add_str(sw, "param", s->sweep_param);
		json_add_double(sw, "value", s->sweep_values[sweep]);
		json_object_object_add(res, "sweep", sw);
	}
	if (p->grid.cells)
		json_object_object_add(res, "grid", grid_place_to_json(p));
	return res;
}

/* "cell 3 of 8: " before a grid cell's progress lines: a grid runs long. */
static void grid_cell_prefix(const struct policy *p, char *buf, size_t len)
{
	if (p->grid.cells)
		snprintf(buf, len, "grid cell %d of %d: ", p->grid.cell, p->grid.cells);
	else
		buf[0] = '\0';
}

void run_skip_case(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int sweep, int rep,
		   const char *reason)
{
	json_object *res = case_json(s, p, sweep, rep);
	char name[192], cell[48];

	case_name(name, sizeof(name), ctx, s, p, sweep, rep);
	grid_cell_prefix(p, cell, sizeof(cell));
	if (cell[0])
		progress_step("%s%s: skipped: %s", cell, name, reason);
	json_add_str(res, "verdict", verdict_name(VERDICT_SKIP));
	json_add_str(res, "skip_reason", reason);
	json_object_array_add(ctx->results, res);
	ktap_result(++ctx->ktap_number, true, name, reason);
	ctx->skipped++;
}

static int cpu_for(const struct run_ctx *ctx, enum cpu_placement where)
{
	if (where == CPU_MEASURED || where == CPU_EACH_BUT_0)
		return ctx->opt->cpu;
	return where == CPU_OTHER ? ctx->other_cpu : -1;
}

/*
 * Copies, after the scenario's own tasks (so checks, which name the scenario's tasks, judge the
 * first measured CPU's): of tasks on the measured CPU for every other measured CPU, and of
 * "each-but-0" tasks for every other online CPU but CPU 0. Returns the number of tasks in all.
 */
static int add_copies(const struct run_ctx *ctx, const struct scenario *s, struct task_config *out, int count)
{
	const struct run_options *opt = ctx->opt;

	for (int i = 0; i < s->task_count; i++) {
		bool measured = s->tasks[i].cpu == CPU_MEASURED;

		if (!measured && s->tasks[i].cpu != CPU_EACH_BUT_0)
			continue;
		for (int c = 1; c <= cpu_last_online() && count < TASKS_MAX; c++) {
			if (c == opt->cpu || !cpu_is_online(c) || measured != placement_has(opt->cpus, opt->cpu_count, c))
				continue;
			out[count] = out[i];
			out[count].cpu = c;
			out[count].mem_node = placement_node_of(c);
			snprintf(out[count].name, sizeof(out[count].name), "%.16s@%d", s->tasks[i].name, c % 10000);
			count++;
		}
	}
	return count;
}

/* Appends the load task of this window, if any; returns the new task count. */
static int add_load_task(const struct run_ctx *ctx, const struct scenario *s, double window_s,
			 struct task_config *out, int count)
{
	enum cpu_placement where;
	int tool = load_tool_for(ctx->opt, s, &where);
	struct task_config *c = &out[count];

	if (tool == LOAD_NONE || count >= TASKS_MAX)
		return count;
	/* SCHED_OTHER, nice 0: on CPU 0 it shares the harness's CPU without starving it. */
	*c = run_task_config(ROLE_LOAD, "load", where == CPU_MEASURED ? ctx->opt->cpu : -1, window_s);
	c->avoid_cpu = where == CPU_OTHER ? ctx->opt->cpu : -1;
	c->load_tool = tool;
	return count + 1;
}

/* The scenario's tasks as the workloads take them; returns how many. */
static int build_tasks(const struct run_ctx *ctx, const struct scenario *s, int sweep, double window_s,
		       const struct limiter *limiter, struct task_config *out)
{
	const struct role_setup_ctx setup = { .run = ctx, .s = s, .sweep = sweep, .limiter = limiter };

	for (int i = 0; i < s->task_count; i++) {
		const struct scenario_task *t = &s->tasks[i];
		struct task_config *c = &out[i];

		*c = run_task_config(t->role, t->name, cpu_for(ctx, t->cpu), window_s);
		c->sched_policy = t->sched_policy;
		c->priority = t->priority;
		if (t->cgroup[0])
			cgroups_dir_name(t->cgroup, c->cgroup, sizeof(c->cgroup));
		c->rttime_soft_us = (uint64_t)task_param(t, "rttime_soft_us");
		c->rttime_hard_us = (uint64_t)task_param(t, "rttime_hard_us");
		c->may_be_killed = c->rttime_hard_us > 0;
		role_setup(&setup, t, c);
	}
	/* What an admin kills is killed on purpose. */
	for (int i = 0; i < s->task_count; i++)
		if (out[i].role == ROLE_ADMIN)
			out[out[i].target].may_be_killed = 1;
	return add_copies(ctx, s, out, add_load_task(ctx, s, window_s, out, s->task_count));
}

/*
 * cyclictest measures from its measuring thread's start on (start_lag_us into the window: its
 * exec and mlockall, 50-80 ms in an emulated guest, at the probe's priority on the probe's
 * CPU), rtla's timerlat from when its trace instance starts tracing: the probe's longest
 * wake-up over that same span, for the cross-check. A trace a threshold stopped ends at a
 * moment rtla sees only at its next look (a second apart): that span is not known.
 */
static void tool_span_metrics(const struct task_record *tasks, json_object *const *metrics, int count)
{
	for (int c = 0; c < count; c++) {
		enum task_role role = tasks[c].config.role;
		json_object *stop;

		if (role != ROLE_CYCLICTEST && role != ROLE_TIMERLAT)
			continue;
		if (json_object_object_get_ex(metrics[c], "threshold_stop", &stop) && json_object_get_boolean(stop)) {
			for (int p = 0; p < count; p++)
				if (tasks[p].config.role == ROLE_PROBE)
					json_add_str(metrics[p], "latency_us.max_in_timerlat_span_unmeasured",
						     "a threshold (rtla -T) stopped timerlat's trace at a moment rtla sees only at its "
						     "next look, up to a second later: the span it measured is not known");
			continue;
		}
		for (int p = 0; p < count; p++) {
			json_object *latency;
			double max_us;

			if (tasks[p].config.role == ROLE_PROBE && json_object_object_get_ex(metrics[p], "latency_us", &latency) &&
			    cyclictest_probe_max_in_span_us(&tasks[p], &tasks[c], &max_us))
				json_add_double(latency, role == ROLE_CYCLICTEST ? "max_in_cyclictest_span" : "max_in_timerlat_span",
						max_us);
		}
	}
}

static double threshold_for(const struct run_ctx *ctx, const struct limiter *l, enum task_role role)
{
	if (role == ROLE_VICTIM)
		return starvation_threshold_us(l, &ctx->noise, ctx->model.tick_us);
	return throttle_threshold_us(l, &ctx->noise, ctx->model.tick_us);
}

/*
 * The CFS spinner at nice 0 or below on rec's CPU, always runnable through the window: what it
 * did not see of rec's gaps was no slot of CFS's. NULL when the case has none.
 */
static const struct gap_stats *cfs_witness(const struct task_record *tasks, int count, const struct task_record *rec)
{
	for (int i = 0; i < count; i++) {
		const struct task_config *c = &tasks[i].config;

		if (c->role == ROLE_VICTIM && c->sched_policy == SCHED_OTHER && c->priority <= 0 &&
		    c->cpu == rec->config.cpu && &tasks[i] != rec && !c->cgroup[0] && !c->may_be_killed)
			return &tasks[i].gaps;
	}
	return NULL;
}

/*
 * A victim's RT witness: the hog on its CPU when it is the only RT task there, in the root
 * group and not to be killed mid-window; where it did not run, RT did not. NULL otherwise.
 */
static const struct gap_stats *rt_witness(const struct task_record *tasks, int count, const struct task_record *rec)
{
	const struct task_record *only = NULL;

	for (int i = 0; i < count; i++) {
		const struct task_config *c = &tasks[i].config;

		if (c->cpu != rec->config.cpu || (c->sched_policy != SCHED_FIFO && c->sched_policy != SCHED_RR))
			continue;
		if (only)
			return NULL;
		only = &tasks[i];
	}
	if (!only || only->config.role != ROLE_HOG || only->config.cgroup[0] || only->config.may_be_killed)
		return NULL;
	return &only->gaps;
}

static const struct gap_stats *witness_for(const struct task_record *tasks, int count, const struct task_record *rec)
{
	return rec->config.role == ROLE_VICTIM ? rt_witness(tasks, count, rec) : cfs_witness(tasks, count, rec);
}

static json_object *task_json(const struct task_record *rec, json_object *metrics, uint64_t window_start_ns)
{
	const struct task_config *c = &rec->config;
	json_object *obj = json_object_new_object();
	static const char *const classes[] = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "?", "?", "?", "SCHED_DEADLINE" };

	json_add_str(obj, "name", c->name);
	json_add_str(obj, "role", role_name(c->role));
	json_add_int(obj, "cpu", c->cpu);
	if (c->mem_node >= 0)
		json_add_int(obj, "memory_node", c->mem_node);
	json_add_str(obj, "sched_policy", classes[c->sched_policy % 7]);
	json_add_int(obj, c->sched_policy == SCHED_OTHER ? "nice" : "priority", c->priority);
	if (c->cgroup[0])
		json_add_str(obj, "cgroup", c->cgroup);
	/* After its window: when it left the RT class (a task throttled at the end, once let run). */
	if (rec->left_rt_ns && window_start_ns)
		json_add_double(obj, "left_rt_at_ms", ((double)rec->left_rt_ns - (double)window_start_ns) / 1e6);
	json_object_object_add(obj, "metrics", metrics);
	return obj;
}

static void record_error(struct run_ctx *ctx, json_object *res, const char *name, const char *why)
{
	json_add_str(res, "verdict", verdict_name(VERDICT_ERROR));
	json_add_str(res, "error", why);
	json_object_array_add(ctx->results, res);
	ktap_diag("%s: %s", name, why);
	ktap_result(++ctx->ktap_number, false, name, NULL);
	ctx->failed++;
	ctx->errors++;
}

/*
 * How much longer than its CPU time a tick count takes here: the kernel counts some figures in
 * ticks (RLIMIT_RTTIME's watchdog, once a tick handler run), and an emulator or a busy host
 * runs the handler less often than HZ a second of CPU (one late interrupt may move jiffies on
 * by two, counted once). The best witness is the trace's count of the tick handler's runs
 * while the followed task ran, against that task's CPU time; without it, the window's tasks on
 * the measured CPU used busy seconds of it and it took irqs local timer interrupts (ticks and
 * other hrtimers, so this errs towards 1). 1 when unknown. *from says which. traced: the
 * task the trace followed, or -1.
 */
static double tick_stretch(const struct run_ctx *ctx, int count, int traced, json_object *res, const char **from)
{
	json_object *trace, *tick, *firings;
	double busy_s = 0;

	*from = "unknown";
	if (traced >= 0 && ctx->model.tick_us > 0 && json_object_object_get_ex(res, "trace", &trace) &&
	    json_object_object_get_ex(trace, "tick", &tick) &&
	    json_object_object_get_ex(tick, "task_firings", &firings) && json_object_get_int(firings) > 0) {
		*from = "the trace's tick firings while the followed task ran";
		return fmax(1, ctx->shm->task[traced].rusage_cpu_ns / 1e3 / ctx->model.tick_us /
				       json_object_get_int(firings));
	}
	for (int i = 0; i < count; i++)
		if (ctx->shm->task[i].config.cpu == ctx->opt->cpu)
			busy_s += ctx->shm->task[i].rusage_cpu_ns / 1e9;
	if (ctx->last_timer_irqs <= 0 || ctx->model.tick_us <= 0)
		return 1;
	*from = "the measured CPU's timer interrupts over the window";
	return fmax(1, busy_s * 1e6 / ctx->model.tick_us / ctx->last_timer_irqs);
}

/*
 * The steal checks allow: /proc/stat's counts it in whole USER_HZ steps (a 4 ms stall reads 0
 * or 10 ms); the hog's time on the CPU by the trace that its clock did not count
 * (trace.uncharged_us) sees it to a sampling step while the hog ran, and a stall then is
 * what lengthens the hog's gaps beyond its switches. That also holds what each switch leaves
 * uncharged (185 ms over 20 s beside a probe waking every millisecond, where /proc/stat has 70 ms),
 * so it counts only up to what /proc/stat allows: its reading and one step more.
 */
static double judged_steal_us(double proc_stat_us, double most_us, json_object *trace)
{
	bool found;
	double uncharged = metric_at(trace, "uncharged_us", &found);

	if (!found)
		uncharged = 0;
	else if (most_us > 0)
		uncharged = fmin(uncharged, most_us);
	return fmax(fmax(proc_stat_us, 0), uncharged);
}

/*
 * A case left unjudged by tolerances as wide as what they catch, or by checks whose every
 * period the trace saw disturbed (censored), runs again, once a run: another window may hold
 * clean periods. Never one with a failed check.
 */
static bool retry_wanted(bool may_retry, int unjudged_by_noise, enum verdict verdict)
{
	return may_retry && unjudged_by_noise && verdict == VERDICT_UNJUDGED;
}

/* A check not measured because censoring took every period or span it needs. */
static bool censored_out(const struct check *c)
{
	return !c->was_measured && !c->not_applicable && !strncmp(c->rule, "not measured: censored:", 23);
}

/*
 * Judges a result. Returns its verdict; *promise_kept: 1 when every check on the promise's own
 * figures passed, 0 when one failed, -1 when none was judged. traced: the task the trace followed.
 */
static enum verdict judge_and_record(struct run_ctx *ctx, const char *name, const struct scenario *s,
				     const struct policy *p, int sweep,
				     const struct limiter *limiter, double window_s, json_object *res,
				     json_object **metrics, int count, int traced, int *promise_kept, char *why,
				     size_t why_len, bool may_retry, int *hollow, int *censored)
{
	const char *stretch_from;
	const double stretch = tick_stretch(ctx, count, traced, res, &stretch_from);
	struct check checks[CHECKS_MAX];
	struct judge_context jc = {
		.scenario = s, .model = &ctx->model, .limiter = limiter, .policy = p, .noise = &ctx->noise,
		.window_s = window_s, .steal_us = fmax(ctx->last_steal_us, 0), .tick_stretch = stretch,
		.others_us = ctx->last_others_us,
		.sweep_value = s->sweep_count ? s->sweep_values[sweep] : 0,
	};
	json_object *arr = json_object_new_array();
	enum verdict verdict;
	int n;

	memcpy(jc.metrics, metrics, sizeof(jc.metrics));
	json_object_object_get_ex(res, "trace", &jc.trace);
	if (ctx->last_steal_us >= 0)
		jc.steal_most_us = ctx->last_steal_us + 1e6 / (double)(sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100);
	jc.steal_us = judged_steal_us(ctx->last_steal_us, jc.steal_most_us, jc.trace);
	json_add_double(res, "steal_judged_us", jc.steal_us);
	json_add_double(res, "tick_stretch", stretch);
	json_add_str(res, "tick_stretch_from", stretch_from);
	n = judge_result(&jc, checks, CHECKS_MAX);
	*promise_kept = -1;
	*hollow = *censored = 0;
	for (int i = 0; i < n; i++) {
		*hollow += checks[i].hollow;
		*censored += censored_out(&checks[i]);
		json_object_array_add(arr, check_to_json(&checks[i]));
		if (checks[i].was_measured && promise_metric(checks[i].metric))
			*promise_kept = (*promise_kept != 0) && checks[i].passed;
	}
	/* Kept only when every promise check was judged: one left unjudged leaves it unknown, not kept. */
	for (int i = 0; i < n && *promise_kept == 1; i++)
		if (!checks[i].was_measured && !checks[i].no_trace && !checks[i].not_applicable && !checks[i].skipped &&
		    promise_metric(checks[i].metric))
			*promise_kept = -1;
	json_object_object_add(res, "checks", arr);
	verdict = judge_verdict(checks, n, why, why_len);
	/* A case that will run again (see run_case) prints only its second judgement. */
	if (!retry_wanted(may_retry, *hollow + *censored, verdict))
		ktap_checks(name, checks, n);
	return verdict;
}

/* The window measured and left out when a case runs again: its time is measuring time too. */
static json_object *retried_json(const char *name, double window_s, int hollow, int censored)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "case", name);
	json_add_double(obj, "window_s", window_s);
	json_add_int(obj, "too_wide_checks", hollow);
	json_add_int(obj, "censored_checks", censored);
	return obj;
}

/* The first task of a role on the measured CPU (the one the checks name), or -1. */
static int measured_task(const struct run_ctx *ctx, int count, enum task_role role, int sched_policy)
{
	for (int i = 0; i < count; i++) {
		const struct task_config *c = &ctx->shm->task[i].config;

		if (c->role == role && c->cpu == ctx->opt->cpu && (sched_policy < 0 || c->sched_policy == sched_policy))
			return i;
	}
	return -1;
}

/* How far the RT period timer strays from the policy's period: the hog's rt_timer_drift_us. */
static void add_timer_drift(json_object *trace, const struct policy *p, uint64_t window_ns, json_object *metrics)
{
	char why[200];
	int intervals;
	double drift = kernel_grid_drift_us(trace, (uint64_t)p->period_us * 1000, window_ns, &intervals, why, sizeof(why));

	if (drift >= 0) {
		json_add_double(metrics, "rt_timer_drift_us", drift);
		json_add_int(metrics, "rt_timer_intervals", intervals);
	} else {
		json_add_str(metrics, "rt_timer_drift_us_unmeasured", why);
	}
}

/*
 * The promise's figures, period by period, for a FIFO hog and the CFS task beside it: added
 * to their metrics for the checks. Returns whether the window has them.
 */
static bool measure_promise(struct run_ctx *ctx, const struct scenario *s, const struct policy *p,
			    const struct limiter *limiter, const struct window_align *align, json_object *trace, int count,
			    json_object **metrics, struct promise_terms *terms, struct promise *out)
{
	int hog = measured_task(ctx, count, ROLE_HOG, -1), victim = measured_task(ctx, count, ROLE_VICTIM, SCHED_OTHER);
	/* A periodic RT task sleeps between jobs: its CPU time is known per job, not per instant. */
	int periodic = measured_task(ctx, count, ROLE_PERIODIC, SCHED_FIFO);
	struct cpu_timeline *rt = malloc(sizeof(*rt)), *cfs = malloc(sizeof(*cfs));
	bool with_rt = hog >= 0 && rt && cpu_timeline_build(&ctx->shm->task[hog], rt);
	bool with_cfs = victim >= 0 && cfs && cpu_timeline_build(&ctx->shm->task[victim], cfs);
	bool have = with_rt || (with_cfs && periodic >= 0);
	uint64_t *bounds = NULL;
	struct disturbance *disturbed = NULL;
	struct others_span *others = NULL;
	bool lost_known;

	if (have) {
		/* Periods end where the timelines do (a little before the window's end). */
		uint64_t known = with_rt ? rt->end_ns : cfs->end_ns;

		promise_terms_for(&ctx->model, limiter, p->runtime_us, p->period_us, with_cfs, terms);
		terms->periods_end_us = aligned_periods_end_us(ctx->shm, align, ctx->model.tick_us);
		if (with_cfs && cfs->end_ns < known)
			known = cfs->end_ns;
		terms->kernel_bounds = kernel_grid_bounds(trace, (uint64_t)p->period_us * 1000, known, &bounds,
							  terms->grid_why, sizeof(terms->grid_why));
		terms->kernel_bounds_ns = bounds;
		terms->disturbed_count = kernel_grid_disturbed(trace, (uint64_t)(ctx->model.tick_us * 1000), &disturbed,
							       &terms->disturbed_from_us);
		/*
		 * Where the trace lost switches nobody's time is known, and where the CFS spinner slept
		 * beside an idle CPU its rest was not wanted: those periods are left out too. Other
		 * tasks' time is placed per period only where the lost spans are known.
		 */
		lost_known = terms->disturbed_count >= 0 &&
			     kernel_grid_add_unrecorded(trace, &disturbed, &terms->disturbed_count) >= 0;
		if (terms->disturbed_count >= 0)
			kernel_grid_add_cfs_asleep(trace, &disturbed, &terms->disturbed_count);
		terms->others_count = lost_known ? kernel_grid_others(trace, &others) : -1;
		terms->disturbed = disturbed;
		terms->others = others;
		/* RT ran only this policy from the window start unless a lead-in wrote others first. */
		terms->partial_periods = !s->lead_in_count;
		promise_measure_censored(terms, with_rt ? rt : NULL, with_cfs ? cfs : NULL,
					 with_rt ? &ctx->shm->task[hog].gaps : NULL,
					 with_cfs ? &ctx->shm->task[victim].gaps : NULL, threshold_for(ctx, limiter, ROLE_HOG),
					 with_rt ? metrics[hog] : NULL, with_cfs ? metrics[victim] : NULL, out);
		promise_add_metrics(terms, out, with_rt ? metrics[hog] : NULL, with_cfs ? metrics[victim] : NULL);
		if (with_rt)
			add_timer_drift(trace, p, known, metrics[hog]);
		terms->kernel_bounds_ns = NULL;
		terms->disturbed = NULL;
		terms->others = NULL;
		free(bounds);
		free(disturbed);
		free(others);
	}
	free(rt);
	free(cfs);
	return have;
}

/*
 * The limit the scenario's tasks meet. The fair server only acts for CFS tasks: with none on
 * the measured CPU, RT throttling (or nothing) is all there is.
 */
void run_scenario_limiter(const struct kernel_model *m, const struct scenario *s, const struct policy *p,
			  struct limiter *out)
{
	struct kernel_model model = *m;
	bool cfs = false, kworker = false, full_hog = false;

	for (int i = 0; i < s->task_count; i++) {
		const struct scenario_task *t = &s->tasks[i];

		cfs |= t->sched_policy == SCHED_OTHER && t->cpu == CPU_MEASURED;
		/* Kernel work runs in the measured CPU's kworker, a CFS task. */
		kworker |= t->role == ROLE_KERNEL_WORK;
		/* An RT spinner on the measured CPU from the window start: it never leaves the CPU. */
		full_hog |= t->role == ROLE_HOG && (t->sched_policy == SCHED_FIFO || t->sched_policy == SCHED_RR) &&
			    (t->cpu == CPU_MEASURED || t->cpu == CPU_EACH_BUT_0);
	}
	if (!cfs && !kworker)
		model.fair_server = false;
	/*
	 * PREEMPT_RT wakes a CFS task sleeping on a timer from ktimers, an RT thread (FIFO 1) that
	 * runs only when no RT task above it wants the CPU (an RT task's own sleeps expire in hard
	 * interrupt context, a CFS task's in ktimers: hrtimer_init_sleeper). A hog spinning from the
	 * window start never lets it run, so a CFS task that sleeps there never comes back. Where
	 * the RT load leaves the CPU now and then (a periodic task between jobs, a burst hog between
	 * bursts), ktimers runs, the CFS task wakes and, running from then on, is served by the limit
	 * as on any kernel; so is a CFS task woken otherwise (the kworker, by its work queue). RT
	 * tasks' own sleeps never wait for it: without a CFS task the limit is all there is.
	 * So it goes on 6.1-rt and 6.12-rt under QEMU: on 6.12-rt duty-cycle's spinning CFS task
	 * gets 0.046 of the CPU beside a 0.96 app, the fair server's share.
	 */
	if (kworker || !full_hog || !cfs)
		model.timer_thread_priority = 0;
	limiter_for(&model, p, out);
}

static bool run_case_modelled(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int sweep,
			      int rep, bool may_retry)
{
	double window_s = run_window_s(ctx->opt, s, p);
	/* Under the timer rule a window may end as the RT period timer fires (window.h). */
	struct window_align align = { .period_ns = ctx->opt->settle == SETTLE_TIMER && p->runtime_us >= 0 &&
						    !s->cgroup_count ? (uint64_t)p->period_us * 1000ull : 0 };
	struct task_config tasks[TASKS_MAX];
	json_object *res = case_json(s, p, sweep, rep);
	char name[192], why[320] = "", cell[48], recorded[PATH_MAX] = "";
	enum window_status status;
	struct limiter limiter;
	struct window_taken taken;
	struct lead_writes lead;
	int count, traced;
	bool again;

	case_name(name, sizeof(name), ctx, s, p, sweep, rep);
	grid_cell_prefix(p, cell, sizeof(cell));
	run_scenario_limiter(&ctx->model, s, p, &limiter);
	json_add_str(res, "regime", regime_name(limiter.regime));
	json_add_double(res, "window_s", window_s);
	progress_step("%s%s: policy %lld/%lld, %.1f s window, expecting %s", cell, name, (long long)p->runtime_us,
		      (long long)p->period_us, window_s, regime_name(limiter.regime));
	count = build_tasks(ctx, s, sweep, window_s, &limiter, tasks);
	if (s->cgroup_count && !cgroups_create(s, why, sizeof(why))) {
		progress_advance(window_s);
		record_error(ctx, res, name, why);
		return false;
	}
	traced = trace_arm(ctx->trace, tasks, count, ctx->opt->cpu, window_s);
	if (s->lead_in_count)
		lead_writes_init(&lead, ctx, s, p);
	status = run_measure_led(ctx, p, s->lead_in_count ? &lead : NULL, &align, tasks, count, window_s, why,
				 sizeof(why));
	cgroups_remove(s);
	if (status == WINDOW_OK && align.cut_ns) {
		json_add_double(res, "window_asked_s", window_s);
		window_s -= align.cut_ns / 1e9;
		json_add_double(res, "window_s", window_s);	/* replaces the asked one in place */
		json_object_object_add(res, "aligned_end", aligned_end_json(ctx->shm, &align));
	}
	if (s->lead_in_count && status == WINDOW_OK)
		json_object_object_add(res, "lead_in", lead_in_json(&lead, ctx->shm->start_ns));
	json_add_double(res, "steal_us", ctx->last_steal_us);
	json_object_object_add(res, "rt_queue_at_start", rt_queue_json(ctx));
	json_add_double(res, "timer_interrupts", ctx->last_timer_irqs);
	json_add_double(res, "others_us", ctx->last_others_us);
	/* Where the window lies on CLOCK_MONOTONIC: another tool's samples can be lined up with it. */
	if (status == WINDOW_OK)
		json_add_int64(res, "window_start_ns", (int64_t)ctx->shm->start_ns);
	if (status != WINDOW_OK) {
		if (status == WINDOW_INTERRUPTED) {
			snprintf(ctx->stop_reason, sizeof(ctx->stop_reason), "%s", why);
			json_add_str(res, "verdict", verdict_name(VERDICT_ERROR));
			json_add_str(res, "error", why);
			json_object_array_add(ctx->results, res);
			return false;
		}
		record_error(ctx, res, name, why);
		return false;
	}
	/* The trace first: its record of the RT period timer lays the promise's periods. */
	taken = (struct window_taken){ .scenario = s, .policy = p, .sweep = sweep, .count = count, .traced = traced,
				       .window_s = window_s, .align = &align, .res = res };
	snprintf(taken.name, sizeof(taken.name), "%s", name);
	taken.trace = trace_case_json(ctx->trace, ctx->shm, traced, threshold_for(ctx, &limiter, ROLE_HOG),
				      (uint64_t)p->period_us * 1000ull, (uint64_t)(ctx->model.tick_us * 1000));
	/* Before judging, which reads (and removes) what external tools wrote. */
	if (ctx->opt->record_dir[0])
		record_window(ctx, &taken, recorded, sizeof(recorded));
	again = run_judge_window(ctx, &taken, may_retry);
	if (again)
		record_discard(recorded);
	return again;
}

/*
 * Judges a measured window (live, or from a recording): metrics, the trace, the promise's
 * periods, the checks; records the result in ctx->results and prints its KTAP line. Takes
 * w->res and w->trace. True when the case is to run again instead (run_case).
 */
bool run_judge_window(struct run_ctx *ctx, struct window_taken *w, bool may_retry)
{
	const struct scenario *s = w->scenario;
	const struct policy *p = w->policy;
	const char *name = w->name;
	json_object *res = w->res, *arr, *trace = w->trace, *metrics[TASKS_MAX] = { 0 };
	int count = w->count, traced = w->traced, kept, hollow, censored;
	char cell[48], unjudged[1024];
	struct limiter limiter;
	struct promise_terms terms;
	struct promise promise = { 0 };
	enum verdict verdict;
	bool ok, promised;

	grid_cell_prefix(p, cell, sizeof(cell));
	run_scenario_limiter(&ctx->model, s, p, &limiter);
	arr = json_object_new_array();
	for (int i = 0; i < count; i++) {
		struct task_metrics m;
		const struct task_record *rec = &ctx->shm->task[i];

		metrics_compute(rec, threshold_for(ctx, &limiter, rec->config.role), witness_for(ctx->shm->task, count, rec), &m);
		metrics[i] = metrics_to_json(rec, &m, role_metrics);
		json_object_array_add(arr, task_json(rec, json_object_get(metrics[i]), ctx->shm->start_ns));
	}
	tool_span_metrics(ctx->shm->task, metrics, count);
	json_object_object_add(res, "tasks", arr);
	json_object_object_add(res, "trace", trace);
	promised = measure_promise(ctx, s, p, &limiter, w->align, trace, count, metrics, &terms, &promise);
	verdict = judge_and_record(ctx, name, s, p, w->sweep, &limiter, w->window_s, res, metrics, count, traced, &kept,
				   unjudged, sizeof(unjudged), may_retry, &hollow, &censored);
	for (int i = 0; i < count; i++)
		json_object_put(metrics[i]);
	if (promised)
		json_object_object_add(res, "promise", promise_to_json(&terms, &promise, kept));
	/* Which periods the checks judged, and which the trace's witness left out. */
	if (promised && promise.censored && !retry_wanted(may_retry, hollow + censored, verdict)) {
		char first[120];

		disturbance_why(&promise.censored_at[0], first, sizeof(first));
		ktap_diag("%s: %d whole period%s judged, %d left out: %s, the first (from %.0f ms)", name,
			  promise.periods, promise.periods == 1 ? "" : "s", promise.censored, first,
			  promise.censored_at[0].from_ns / 1e6);
	}
	promise_release(&promise);
	if (retry_wanted(may_retry, hollow + censored, verdict)) {
		ktap_diag("%s: %d checks as wide as what they exist to catch with this noise floor, %d with every "
			  "period they need censored: measuring the noise floor again and the case once more", name, hollow,
			  censored);
		json_object_object_add(ctx->root, "retried", retried_json(name, w->window_s, hollow, censored));
		json_object_put(res);
		return true;
	}
	json_add_str(res, "verdict", verdict_name(verdict));
	if (verdict == VERDICT_UNJUDGED)
		json_add_str(res, "skip_reason", unjudged);
	json_object_array_add(ctx->results, res);
	ok = verdict != VERDICT_FAIL;
	if (!ok && ctx->last_steal_us > 0)
		ktap_diag("%s: the hypervisor stole %.0f ms of CPU %d during this window", name, ctx->last_steal_us / 1000,
			  ctx->opt->cpu);
	if (verdict == VERDICT_UNJUDGED) {
		char reason[sizeof(unjudged) + 16];

		snprintf(reason, sizeof(reason), "unjudged: %s", unjudged);
		ktap_result(++ctx->ktap_number, true, name, reason);
		ctx->skipped++;
	} else {
		ktap_result(++ctx->ktap_number, ok, name, NULL);
		ok ? ctx->passed++ : ctx->failed++;
	}
	progress_step("%s%s: %s", cell, name, verdict_name(verdict));
	return false;
}

/* A policy that sets the fair server is judged by the model of the kernel with its setting. */
bool run_case(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int sweep, int rep,
	      bool may_retry)
{
	const struct kernel_model system = ctx->model;
	bool again;

	kernel_model_for_policy(&system, p, &ctx->model);
	again = run_case_modelled(ctx, s, p, sweep, rep, may_retry);
	ctx->model = system;
	return again;
}
