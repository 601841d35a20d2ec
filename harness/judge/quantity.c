// SPDX-License-Identifier: GPL-2.0-only
/* The model quantities checks are written in: one table of name, unit, meaning and value. */
#include "quantity.h"
#include "judge.h"
#include "kernel_grid.h"
#include "scenario_task.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double metric_at(json_object *metrics, const char *path, bool *found)
{
	char key[64];
	const char *dot = strchr(path, '.');
	json_object *v;

	*found = false;
	if (!metrics)
		return 0;
	if (dot) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		if (!json_object_object_get_ex(metrics, key, &v))
			return 0;
		return metric_at(v, dot + 1, found);
	}
	if (!json_object_object_get_ex(metrics, path, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return 0;
	*found = true;
	return json_object_get_double(v);
}

bool sweep_sets(const struct scenario *s, int task, const char *name)
{
	return s->sweep_count && !strcmp(name, s->sweep_param) && !strcmp(s->tasks[task].name, s->sweep_task);
}

double task_param_in_force(const struct judge_context *jc, const struct scenario *s, int task, const char *name)
{
	if (sweep_sets(s, task, name))
		return jc->sweep_value;
	return task_param(&s->tasks[task], name);
}

/*
 * CPU time other tasks took on the measured CPU during the window (they share CFS's rest with
 * the victim): the kernel's account (cpuacct), else what the trace saw them run there, else
 * the noise floor's wall-time loss over the window.
 */
static bool others_measured(const struct judge_context *jc, double *us)
{
	bool found;

	*us = jc->others_us;
	if (*us >= 0)
		return true;
	*us = metric_at(jc->trace, "others.total_us", &found);
	return found && *us >= 0;
}

static double others_in_window_us(const struct judge_context *jc)
{
	double us;

	return others_measured(jc, &us) ? us : jc->noise->loss_share * jc->window_s * 1e6;
}

/*
 * How late the machine delivered the timer interrupt that was to wake the measured CPU's
 * spinners at the window's start while it idled (trace.idle_at_start_us): the interrupt's
 * lateness, not the scheduler's time from it to the task.
 */
static double idle_at_start_us(const struct judge_context *jc)
{
	bool found;
	double idle = metric_at(jc->trace, "idle_at_start_us", &found);

	return found ? idle : 0;
}

static double window_share_tol(const struct judge_context *jc)
{
	const double window_us = jc->window_s * 1e6, tick = jc->model->tick_us;
	const struct limiter *l = jc->limiter;
	/* The machine's noise and the steal during the window, plus accounting rounding. */
	double tol = jc->noise->cpu_loss_share + (jc->steal_us + others_in_window_us(jc) + idle_at_start_us(jc)) / window_us +
		     0.002;

	/* A tick of accounting at each edge; a window in arbitrary phase may hold a slot more or less at each end. */
	return tol + 2 * tick / window_us + (l->limited ? 2 * l->gap_us / window_us : 0);
}

/* A CFS task on the measured CPU: what the fair server serves. */
static bool has_cfs_task(const struct scenario *s)
{
	for (int i = 0; i < s->task_count; i++)
		if (s->tasks[i].sched_policy == SCHED_OTHER && s->tasks[i].cpu == CPU_MEASURED)
			return true;
	return false;
}

/*
 * Whether the fair server may cut in between RT throttling's slots, so that event counts,
 * intervals and medians depend on how the two phases meet (on 6.18 at 475000/500000, one 52 ms
 * slot a second takes the place of two 25 ms ones). It stays out only when RT throttling alone
 * gives CFS the server's runtime within any span the server defers for (its period less its
 * runtime), counting each slot a tick short (the throttle lands on a tick).
 */
static bool fair_server_interleaves(const struct judge_context *jc, const struct scenario *s)
{
	const struct kernel_model *km = jc->model;
	double P = (double)jc->policy->period_us, R = (double)jc->policy->runtime_us, tick = km->tick_us;
	double span = (double)(km->fs_period_us - km->fs_runtime_us), cfs;

	if (!km->fair_server || !has_cfs_task(s))
		return false;
	if (jc->limiter->regime != REGIME_CLASSIC)
		return false;	/* alone, the fair server's slots are regular */
	/*
	 * The rule below is fitted to the kernel's own server. One the policy set may cut in where
	 * it says not: on 6.12 at 950000/1000000, a 10 ms/1 s server cuts CFS's waits to 868 ms at
	 * the median (RT throttling alone gives CFS 36 ms of any 990 ms span there).
	 */
	if (jc->policy->fair_server.set)
		return true;
	cfs = floor(span / P) * fmax(0, P - R - tick) + fmax(0, fmod(span, P) - R - tick);
	return cfs < (double)km->fs_runtime_us;
}

/*
 * Where the fair server interleaves with classic throttling, RT's share lies in a band: at most
 * what the lower of the two limits leaves it, at least the policy's ratio less the fair server's
 * share, when the server's slots miss the throttle's (its period runs out of phase with the RT
 * timer; on 6.18 an 83 ms gap: the 50 ms throttle slot, then 33 ms of the server's).
 * The band's width is the smaller of the two limits' CFS shares; 0 where no band applies or
 * the limiter already spreads one (share_band).
 */
static double fs_band(const struct judge_context *jc, const struct scenario *s)
{
	const struct kernel_model *km = jc->model;
	const struct policy *p = jc->policy;

	if (!fair_server_interleaves(jc, s) || jc->limiter->share_band > 0 || km->fs_period_us <= 0 || p->period_us <= 0)
		return 0;
	return fmin((double)km->fs_runtime_us / km->fs_period_us, 1.0 - (double)p->runtime_us / p->period_us);
}

/* One function per quantity: Q(name) reads the case through qc and writes *v. */
#define Q(name) static bool q_##name(const struct quantity_ctx *qc, double *v)
#define JC (qc->jc)
#define LIM (qc->jc->limiter)
#define WINDOW_US (qc->jc->window_s * 1e6)

Q(rt_share) { *v = LIM->hog_share; return true; }
Q(cfs_share) { *v = 1 - LIM->hog_share; return true; }
Q(slot_us) { *v = LIM->gap_us; return true; }
Q(max_slot_us) { *v = LIM->max_slot_us; return true; }
Q(share_band) { *v = LIM->share_band; return true; }
Q(fs_band) { *v = fs_band(JC, qc->s); return true; }
Q(limit_interval_us) { *v = LIM->interval_us; return true; }
Q(rt_run_us) { *v = LIM->interval_us - LIM->gap_us; return true; }
/*
 * A slot ends at a firing of the limit's timer, so what a window sees close is one slot per
 * firing in it, the first only when RT had run its time by then: with W/P = n + x, 0 <= x < 1,
 * that is n - 1, n or n + 1 whatever the timer's phase, so n. Rounding expected n + 1 where
 * x > 0.5, two above a window that starts just after a firing and ends just before one.
 */
Q(slots_in_window) { *v = LIM->interval_us > 0 ? floor(WINDOW_US / LIM->interval_us) : 0; return true; }
Q(limited) { *v = LIM->limited; return true; }
/*
 * Slots the hypervisor could have taken whole from CFS. Steal while RT runs is kept out of
 * its clock (paravirt accounting), so RT reaches its runtime that much later; stolen a slot
 * or more in one period, not before the period ends: no throttle, CFS waits a period more,
 * as on a kernel that missed one. By the trace, the hog's own uncharged time (to a sampling
 * step) when traced, none when no span of a period held a slot of it; else the window's
 * /proc/stat steal.
 */
Q(slots_stolen)
{
	bool traced, spanned, most_found;
	double steal = metric_at(JC->trace, "uncharged_us", &traced);
	double span = metric_at(JC->trace, "uncharged_span_us", &spanned);
	double most = metric_at(JC->trace, "uncharged_max_us", &most_found);

	*v = 0;
	if (!LIM->limited || LIM->gap_us <= 0)
		return true;
	if (!traced)
		steal = JC->steal_us;
	else if (JC->steal_most_us > 0)
		steal = fmin(steal, JC->steal_most_us);	/* it also holds each switch's uncharged microseconds */
	if (traced && spanned && most_found && fabs(span - LIM->interval_us) < 1 && most < LIM->gap_us)
		return true;
	*v = floor(fmax(steal, 0) / LIM->gap_us);
	return true;
}

Q(rt_share_alone)
{
	/* Alone, RT throttling idles the CPU; a fair server has no CFS task to serve. */
	*v = LIM->regime == REGIME_CLASSIC || LIM->regime == REGIME_TIMERS_STARVED
		     ? (double)JC->policy->runtime_us / JC->policy->period_us
		     : 1.0;
	return true;
}

Q(policy_runtime_us) { *v = (double)JC->policy->runtime_us; return true; }
Q(policy_period_us) { *v = (double)JC->policy->period_us; return true; }
Q(window_us) { *v = WINDOW_US; return true; }
Q(window_s) { *v = JC->window_s; return true; }
Q(tick_us) { *v = JC->model->tick_us; return true; }

/* How late the machine delivered an RT period timer firing in the window (trace.rt_timer): 0 untraced. */
static double timer_late_in_window_us(const struct judge_context *jc)
{
	bool found;
	double late = metric_at(jc->trace, "rt_timer.late_max_us", &found);

	return found ? late : 0;
}

/*
 * The longest time the kernel charged a spinner on the measured CPU as CPU time while it did
 * not run (metrics' charged_stall_max_us): the hypervisor's stalls this VM does not report as steal.
 */
static double charged_stall_in_window_us(const struct judge_context *jc)
{
	double longest = 0;

	for (int i = 0; i < jc->scenario->task_count && i < TASKS_MAX; i++) {
		bool found;
		double v = metric_at(jc->metrics[i], "charged_stall_max_us", &found);

		if (found && jc->scenario->tasks[i].cpu == CPU_MEASURED)
			longest = fmax(longest, v);
	}
	return longest;
}

/*
 * How late the measured CPU got a timer interrupt while busy (trace.tick.late_max_us): the
 * tick's longest gap there less a tick. Nothing the scheduler does delays the tick.
 */
static double tick_late_in_window_us(const struct judge_context *jc)
{
	bool found;
	double late = metric_at(jc->trace, "tick.late_max_us", &found);

	return found ? late : 0;
}

/*
 * How late the measured CPU took an interrupt sent to wake it (trace.ipi.late_max_us): an
 * idle vCPU the machine woke late. The kernel's part, when it sends, is not in it.
 */
static double ipi_late_in_window_us(const struct judge_context *jc)
{
	bool found;
	double late = metric_at(jc->trace, "ipi.late_max_us", &found);

	return found ? late : 0;
}

Q(timer_late_us) { *v = timer_late_in_window_us(JC); return true; }
Q(ipi_late_us) { *v = ipi_late_in_window_us(JC); return true; }
Q(charged_stall_us) { *v = charged_stall_in_window_us(JC); return true; }
Q(tick_late_us) { *v = tick_late_in_window_us(JC); return true; }
/*
 * As tick_late_us, in the periods judged: where the promise left out the periods the trace
 * saw the tick held back in (tick_late_judged_us, the task's metric: the listing threshold),
 * no more than that.
 */
static double tick_late_judged(const struct judge_context *jc, int task)
{
	bool found;
	double judged = metric_at(jc->metrics[task], "tick_late_judged_us", &found);
	double window = tick_late_in_window_us(jc);

	return found && judged >= 0 && judged < window ? judged : window;
}

Q(tick_late_judged_us) { *v = tick_late_judged(JC, qc->task); return true; }
Q(idle_at_start_us) { *v = idle_at_start_us(JC); return true; }

/*
 * Jobs of the check's periodic task the machine alone could hold a throttle gap long: its
 * timer interrupts held back for tick_late_us plus the tick they were due in, a job released
 * at that span's start waits all of it, and each next one the backlog holds a job period less
 * its CPU time shorter. The longest span only, as the stall witnesses.
 */
Q(held_back_jobs)
{
	bool found, have_cpu;
	double gap = metric_at(JC->metrics[qc->task], "throttle_gap_us", &found);
	double cpu = metric_at(JC->metrics[qc->task], "job_cpu_us", &have_cpu);
	double span = tick_late_in_window_us(JC) + JC->model->tick_us;
	double period = task_param_in_force(JC, qc->s, qc->task, "period_us");

	*v = 0;
	if (!found || gap <= 0 || tick_late_in_window_us(JC) <= 0 || span < gap || period <= 0)
		return true;
	/* A backlog that never shrinks (jobs as long as their period): every job may wait. */
	if (!have_cpu || cpu >= period)
		*v = floor(WINDOW_US / period);
	else
		*v = floor((span - gap) / (period - cpu)) + 1;
	return true;
}

/*
 * The machine's longest stall: before the window, the noise floor's longest gap; in it, CPU
 * time charged while a spinner did not run, the tick held back, a wake-up interrupt delivered
 * late, the idle CPU's timer interrupt held back at the start (on a host, a probe due at 1 ms
 * may wait 15.5 ms, the CPU idle for 16.4 ms). The longest counts, not the sum: they are views
 * of the same stalls.
 */
static double stall_in_window_us(const struct judge_context *jc)
{
	return fmax(fmax(fmax(jc->noise->gap_max_us, ipi_late_in_window_us(jc)), idle_at_start_us(jc)),
		    fmax(charged_stall_in_window_us(jc), tick_late_in_window_us(jc)));
}

Q(stall_us) { *v = stall_in_window_us(JC); return true; }

/*
 * The stall a 99th percentile of the check task's wake-ups may hold: a stall delays the
 * wake-ups due in it (its length over the interval, and one), so the witnessed stalls (the
 * trace's held-back ticks, the VM's steal) move the p99 only where together they delayed 1% of
 * the wake-ups; then the longest stall and the steal, else nothing.
 */
Q(p99_stall_us)
{
	double interval = task_param_in_force(JC, qc->s, qc->task, "interval_us"), delayed, wakeups, listed_from;
	struct disturbance *held = NULL;
	bool found;
	int n;

	wakeups = metric_at(JC->metrics[qc->task], "wakeups", &found);
	n = found && interval > 0 ? kernel_grid_disturbed(JC->trace, (uint64_t)(JC->model->tick_us * 1000), &held,
							  &listed_from) : -1;
	/* No trace, or more held-back ticks than it lists: nothing places the stalls, all of it. */
	delayed = n < 0 ? INFINITY : JC->steal_us / interval;
	for (int i = 0; i < n; i++)
		delayed += held[i].late_us / interval + 1;
	free(held);
	*v = delayed >= 0.01 * wakeups ? stall_in_window_us(JC) + JC->steal_us : 0;
	return true;
}

/* Two ticks of accounting, the machine's longest stall, what the VM stole, a late RT period timer. */
Q(time_tol)
{
	*v = 2 * JC->model->tick_us + stall_in_window_us(JC) + JC->steal_us + timer_late_in_window_us(JC);
	return true;
}

/*
 * What other tasks may have taken from the check's task in the window: all they took, or for
 * an RT task where the trace told them apart, the RT ones' only (other CFS tasks and kernel
 * threads share CFS's time, not RT's runtime).
 */
static double others_taking(const struct judge_context *jc, const struct quantity_ctx *qc)
{
	bool found;
	double rt_others = metric_at(jc->trace, "others.rt_total_us", &found);
	int policy = qc->task >= 0 ? qc->s->tasks[qc->task].sched_policy : SCHED_OTHER;

	if (found && (policy == SCHED_FIFO || policy == SCHED_RR))
		return rt_others;
	return others_in_window_us(jc);
}

/* A metric of the check's task, 0 where it has none. */
static double task_metric_or_0(const struct judge_context *jc, int task, const char *name)
{
	bool found;
	double v = metric_at(jc->metrics[task], name, &found);

	return found ? v : 0;
}

Q(share_tol)
{
	bool found;
	double span = metric_at(JC->metrics[qc->task], "periods_span_s", &found);

	/*
	 * Whole periods: only the noise and a tick at each end of the span. What the VM stole and
	 * other tasks took in the window may all fall inside the span (9 ms of steal in a 1 s span
	 * of a 3 s window cost 0.009 of the share, not 0.003).
	 */
	if (qc->used_metric && strstr(qc->used_metric, "_periods") && found && span > 0)
		*v = JC->noise->cpu_loss_share + (JC->steal_us + others_taking(JC, qc)) / fmin(span * 1e6, WINDOW_US) +
		     0.002 + (2 * JC->model->tick_us + task_metric_or_0(JC, qc->task, "periods_held_us")) / (span * 1e6);
	else
		*v = window_share_tol(JC);
	*v += LIM->share_band;
	return true;
}

/*
 * How far CFS's rest of a period may fall short on a healthy kernel: a tick (the throttle is
 * found at one, held back at most tick_late_judged_us in the periods judged), the grid's step
 * and the CPU clock's sampling of the check's task, the machine's stalls (the noise floor's
 * longest gap, a late period timer), the CPU-clock loss over the rest, and what other tasks
 * and the VM took in the window (other tasks' only where the trace did not place it in each
 * period: others_unplaced_us).
 */
/* What other tasks took in the window, unless the trace placed it in each period (the check task's others_placed). */
static double others_unplaced(const struct judge_context *jc, int task)
{
	bool found;
	double placed = metric_at(jc->metrics[task], "others_placed", &found);

	return found && placed == 1 ? 0 : others_in_window_us(jc);
}

Q(others_unplaced_us) { *v = others_unplaced(JC, qc->task); return true; }

Q(cfs_rest_tol)
{
	/* They come with the rest it bounds (cfs_period_min_us): without them there is nothing to judge. */
	double step = task_metric_or_0(JC, qc->task, "cfs_grid_step_us");
	double placement = task_metric_or_0(JC, qc->task, "cfs_placement_us");
	double rest = (double)(JC->policy->period_us - JC->policy->runtime_us);

	*v = JC->model->tick_us + tick_late_judged(JC, qc->task) + step + placement + JC->noise->gap_max_us +
	     timer_late_in_window_us(JC) + JC->noise->cpu_loss_share * rest + others_unplaced(JC, qc->task) + JC->steal_us;
	return true;
}

/*
 * How far the CFS tasks' time in one of the fair server's periods may fall short of its
 * runtime on a healthy kernel: a tick, the grid's step and the sampling of the check's task,
 * the noise floor's longest gap and its CPU-clock loss over the runtime, and steal in the
 * window; other tasks' time where the trace did not place it in each period.
 */
Q(fs_rest_tol)
{
	double step = task_metric_or_0(JC, qc->task, "fs_grid_step_us");
	double placement = task_metric_or_0(JC, qc->task, "fs_placement_us");

	*v = JC->model->tick_us + step + placement + JC->noise->gap_max_us +
	     JC->noise->cpu_loss_share * (double)JC->model->fs_runtime_us + others_unplaced(JC, qc->task) + JC->steal_us;
	return true;
}

Q(noise_gap_max_us) { *v = JC->noise->gap_max_us; return true; }
Q(noise_loss) { *v = JC->noise->cpu_loss_share; return true; }
Q(noise_loss_wall) { *v = JC->noise->loss_share; return true; }
Q(steal_us) { *v = JC->steal_us; return true; }
Q(tick_stretch) { *v = JC->tick_stretch > 1 ? JC->tick_stretch : 1; return true; }
Q(fair_server) { *v = JC->model->fair_server && has_cfs_task(qc->s); return true; }
Q(fs_runtime_us) { *v = (double)JC->model->fs_runtime_us; return true; }
Q(fs_period_us) { *v = (double)JC->model->fs_period_us; return true; }

/*
 * The least a spinning RT task must get in its best whole period: its runtime, less what a
 * fair server serving a CFS task there may take beyond the throttle's slot. A period as long
 * as the server's or longer spans its slots, which may all miss the throttle's: the floor
 * allows each. A shorter one may hold none: each of the server's slots in the window touches
 * at most ceil(its runtime / period) + 1 whole periods, so with more whole periods than they
 * can touch, one ran the whole runtime. `periods`: the whole periods judged.
 */
static double rt_period_floor_us(const struct judge_context *jc, const struct scenario *s, double periods)
{
	const struct kernel_model *km = jc->model;
	double runtime = (double)jc->policy->runtime_us, period = (double)jc->policy->period_us;
	double fs_period = (double)km->fs_period_us, fs_runtime = (double)km->fs_runtime_us, slots, touched;

	if (!km->fair_server || !has_cfs_task(s) || fs_period <= 0 || fs_runtime <= 0 || period <= 0)
		return runtime;
	if (period < fs_period) {
		slots = ceil(jc->window_s * 1e6 / fs_period) + 1;
		touched = slots * (ceil(fs_runtime / period) + 1);
		if (periods > touched)
			return runtime;
	}
	return fmin(runtime, period - fs_runtime * ceil(period / fs_period));
}

/*
 * 1 where the CFS task's rest of each RT period has no whole period to be judged in: the
 * kernel's period timer fired at most once in the window (a 10 s period in a window under
 * 20 s). A grid searched in its place would not be the kernel's periods.
 */
Q(cfs_rest_unheld)
{
	bool found;
	double periods = metric_at(JC->metrics[qc->task], "cfs_periods", &found);

	*v = found && periods < 1;
	return true;
}

/*
 * 1 where the most RT ran in a whole period cannot be held to its runtime: no whole period
 * in the window, or a floor below the runtime (a check allowing that would allow more than
 * the regression it exists to catch); 0 where it can.
 */
Q(rt_period_top_unheld)
{
	bool found, searched_found;
	double periods = metric_at(JC->metrics[qc->task], "rt_periods", &found);
	double searched = metric_at(JC->metrics[qc->task], "grid_searched", &searched_found);

	/*
	 * A searched grid is laid to favour RT's budget, not on the kernel's boundaries, and with
	 * no trace no disturbed period is left out: RT's fullest period there is no measure of it.
	 */
	*v = !found || periods < 1 || (searched_found && searched > 0) ||
	     rt_period_floor_us(JC, qc->s, periods) < (double)JC->policy->runtime_us;
	return true;
}

/* The fair server's promise is measured only over two of its periods (promise.c). */
Q(fs_periods_in_window)
{
	*v = JC->model->fs_period_us > 0 ? WINDOW_US / (double)JC->model->fs_period_us : 0;
	return true;
}

/* Fewer than two throttles can end inside: nothing to measure between two ends. */
Q(few_intervals)
{
	*v = LIM->interval_us > 0 && WINDOW_US < 2 * LIM->interval_us + LIM->max_slot_us;
	return true;
}

Q(others_us) { *v = others_in_window_us(JC); return true; }
/* Where cpuacct is missing others_us is the noise floor's wall loss: a bound, not a measurement. */
Q(others_unmeasured_us)
{
	double us;

	*v = others_measured(JC, &us) ? 0 : others_in_window_us(JC);
	return true;
}

/*
 * A fair server runs above RT: what other CFS tasks took on the CPU in the window, served by
 * it, an RT task may have waited in one piece (its runtime at most).
 */
Q(fs_others_us)
{
	*v = JC->model->fair_server ? fmin(others_in_window_us(JC), (double)JC->model->fs_runtime_us) : 0;
	return true;
}

Q(fs_interleaves) { *v = fair_server_interleaves(JC, qc->s); return true; }

/*
 * A fair server keeps its runtime and its period's phase from one window to the next: after a
 * window that left CFS about its share, it served the CFS task for 18.8 ms as RT's throttle
 * ended (6.18, r0.5p1s after r0.95p200ms), so a throttle gap may last up to its runtime more.
 */
Q(fs_gap_extra_us)
{
	*v = JC->model->fair_server && has_cfs_task(qc->s) ? (double)JC->model->fs_runtime_us : 0;
	return true;
}

/*
 * The throttle lands on a tick: where the slot or the run is under a few ticks, gap lengths,
 * counts and the span between throttles follow the tick's phase, not the policy (the promise
 * still holds: the kernel carries the overrun).
 */
Q(tick_coarse)
{
	*v = LIM->limited && LIM->interval_us > 0 &&
	     (LIM->gap_us < 4 * JC->model->tick_us || LIM->interval_us - LIM->gap_us < 4 * JC->model->tick_us);
	return true;
}

/*
 * A throttle found at a tick, or a replenishment the trace saw fire late, that outlasts the
 * slot costs CFS that period's slot: RT runs on into the next period unthrottled (at
 * 95000/100000 a firing 7.6 ms late after a fair-server slot leaves CFS 250 ms without one).
 */
Q(cfs_wait_bound_us)
{
	*v = throttle_wait_bound_us(LIM->interval_us, LIM->gap_us, fmax(JC->model->tick_us, timer_late_in_window_us(JC)));
	return true;
}

/* The check's task's cgroup: its rt budget as a share of its period, or in us. */
static bool cgroup_budget(const struct quantity_ctx *qc, bool as_share, double *v)
{
	const char *group = qc->s->tasks[qc->task].cgroup;

	*v = 0;
	for (int i = 0; i < qc->s->cgroup_count; i++)
		if (!strcmp(qc->s->cgroups[i].name, group))
			*v = as_share ? (double)qc->s->cgroups[i].rt_runtime_us / qc->s->cgroups[i].rt_period_us
				      : (double)qc->s->cgroups[i].rt_runtime_us;
	return group[0] != '\0';
}

Q(cgroup_rt_share) { return cgroup_budget(qc, true, v); }
Q(cgroup_rt_runtime_us) { return cgroup_budget(qc, false, v); }

#undef Q
#undef JC
#undef LIM
#undef WINDOW_US

#define QUANTITY(name, unit, doc) { #name, unit, doc, false, q_##name }
#define CGROUP_QUANTITY(name, unit, doc) { #name, unit, doc, true, q_##name }

static const struct quantity_info table[] = {
	QUANTITY(rt_share, "ratio", "what the limit in force leaves RT (the middle of the band where two limits interleave)"),
	QUANTITY(cfs_share, "ratio", "what the limit in force leaves CFS: 1 - rt_share"),
	QUANTITY(slot_us, "us", "the CFS slot each interval (period - runtime, or the fair server's runtime); 0 unlimited"),
	QUANTITY(max_slot_us, "us", "the longest CFS slot when two limits give slots; else slot_us"),
	QUANTITY(share_band, "ratio", "half-width of RT's share band with an RT period shorter than the fair server's; in share_tol"),
	QUANTITY(fs_gap_extra_us, "us", "with a fair server and a CFS task on the measured CPU, its runtime: how much longer it may make an RT throttle gap, serving CFS on from runtime it kept from the window before; else 0"),
	QUANTITY(fs_band, "ratio", "where the fair server interleaves with classic throttling: the smaller of the two limits' CFS shares; RT's share lies between rt_share - fs_band and rt_share"),
	QUANTITY(limit_interval_us, "us", "the interval of the limit's slots (the policy's period, or the fair server's)"),
	QUANTITY(rt_run_us, "us", "how long RT runs between two slots: limit_interval_us - slot_us"),
	QUANTITY(slots_stolen, "count", "slots the hypervisor's steal while RT ran could have taken whole from CFS (no throttle in that period, as if the kernel missed one): floor(steal / slot_us), the steal the hog's trace.uncharged_us when traced (0 when no span of a period held a slot of it: trace.uncharged_max_us), else steal_us"),
	QUANTITY(slots_in_window, "count", "slots that close in the window: whole intervals in it (one more or less by the timer's phase)"),
	QUANTITY(limited, "flag", "1 when a limit acts on a FIFO hog"),
	QUANTITY(rt_share_alone, "ratio", "a lone hog's share: runtime/period under classic throttling (idle gaps), else 1"),
	QUANTITY(policy_runtime_us, "us", "the policy's RT runtime"),
	QUANTITY(policy_period_us, "us", "the policy's RT period"),
	QUANTITY(window_us, "us", "the measured window"),
	QUANTITY(window_s, "s", "the measured window"),
	QUANTITY(tick_us, "us", "the kernel tick"),
	QUANTITY(p99_stall_us, "us", "stall_us + steal_us where the trace's held-back ticks and the steal together delayed 1% of the check task's wake-ups (each its length over interval_us, and one), else 0: fewer cannot move a 99th percentile"),
	QUANTITY(time_tol, "us", "2 ticks + stall_us + the VM steal during the window + timer_late_us"),
	QUANTITY(stall_us, "us", "the machine's longest stall: the longest of the noise floor's longest gap, charged_stall_us, tick_late_us, ipi_late_us and idle_at_start_us"),
	QUANTITY(charged_stall_us, "us", "the longest time the kernel charged a spinner on the measured CPU as run while it did not run (its charged_stall_max_us): the hypervisor's stalls unreported as steal, an interrupt"),
	QUANTITY(ipi_late_us, "us", "how late the measured CPU, idle, took an interrupt sent to wake it: from ipi:ipi_send_cpu to its vector's entry (reschedule or call_function_single) or its leaving idle, whichever came first (trace.ipi.late_max_us); an idle vCPU woken late; 0 when not traced"),
	QUANTITY(idle_at_start_us, "us", "how late the timer interrupt came that was to wake the measured CPU's hog or victim at the window's start while the CPU idled (trace.idle_at_start_us: its first timer interrupt from the start, at most the idle time): the machine's lateness, not the scheduler's; in share_tol and stall_us; 0 when not traced"),
	QUANTITY(held_back_jobs, "count", "jobs of the check's periodic task that timer interrupts held back for tick_late_us (plus the tick they were due in) could keep waiting a throttle gap (throttle_gap_us) or longer, the first the whole span, each next a period less its CPU time (job_cpu_us) less: floor((tick_late_us + tick_us - throttle_gap_us) / (period_us - job_cpu_us)) + 1, 0 when the span is shorter"),
	QUANTITY(tick_late_us, "us", "how late the measured CPU got a timer interrupt while it ran tasks: its tick's longest gap less a tick (trace.tick.late_max_us), which no scheduling decision lengthens; 0 when not traced"),
	QUANTITY(tick_late_judged_us, "us", "tick_late_us in the periods judged: the censoring threshold, from the trace's listing threshold (0.5 ms) up to half a tick, the lowest that keeps half the window's periods; periods the trace saw the tick held back that much or more in were left out"),
	QUANTITY(timer_late_us, "us", "how late the machine delivered an RT period timer firing in the window with a neighbour on time and none half as late or more (trace.rt_timer.late_max_us); 0 when not traced"),
	QUANTITY(cfs_rest_tol, "us", "how far CFS's rest of a period may fall short: tick_us + tick_late_judged_us + the check task's cfs_grid_step_us and cfs_placement_us + noise_gap_max_us + timer_late_us + noise_loss x (period - runtime) + others_unplaced_us + steal_us"),
	QUANTITY(fs_rest_tol, "us", "how far the CFS tasks' time in a fair-server period may fall short of its runtime: tick_us + the check task's fs_grid_step_us and fs_placement_us + noise_gap_max_us + noise_loss x fs_runtime_us + others_unplaced_us + steal_us"),
	QUANTITY(others_unplaced_us, "us", "others_us, or 0 where the trace placed other tasks' time in each period (the check task's others_placed: each period's CFS figure holds it)"),
	QUANTITY(share_tol, "ratio", "noise loss of the CPU clock + steal and others' time (an RT task's: only other RT tasks', where the trace told them apart) + rounding + 2 ticks and the ticks the trace saw held back below the censoring threshold (periods_held_us) over the span (over a window in arbitrary phase also two slots) + share_band; tolerance \"share\""),
	QUANTITY(noise_gap_max_us, "us", "the noise floor's longest gap"),
	QUANTITY(noise_loss, "ratio", "the share of its CPU clock the noise floor lost"),
	QUANTITY(noise_loss_wall, "ratio", "the share of wall time the noise floor lost in gaps (charged to an RT task, it spends RT runtime)"),
	QUANTITY(steal_us, "us", "VM steal on the measured CPU during the window (steal_judged_us): /proc/stat's, in whole 10 ms steps, or the hog's time on the CPU by the trace its CPU clock did not count (trace.uncharged_us, up to /proc/stat's reading plus a step) when more"),
	QUANTITY(tick_stretch, "ratio", "CPU time counted per tick over the tick (>= 1)"),
	QUANTITY(fair_server, "flag", "1 when a fair server serves a CFS task of the scenario on the measured CPU"),
	QUANTITY(fs_runtime_us, "us", "the fair server's runtime (debugfs where readable, else the kernel's default)"),
	QUANTITY(cfs_rest_unheld, "flag", "1 where the CFS task's rest of each RT period has no whole period of the kernel's in the window to be judged in (the timer fired at most once there)"),
	QUANTITY(rt_period_top_unheld, "flag", "1 where the most RT ran in a whole period cannot be held to the runtime: no whole period in the window, periods on a searched grid (no kernel grid from the trace), or a fair server serving a CFS task may take more than the period less the runtime from every whole period (its slots missing the throttle's)"),
	QUANTITY(fs_period_us, "us", "the fair server's period (debugfs where readable, else the kernel's default)"),
	QUANTITY(fs_periods_in_window, "count", "the window in fair-server periods (its promise is measured over two)"),
	QUANTITY(fs_interleaves, "flag", "1 when the fair server may cut in between RT throttling's slots: counts, intervals and medians then follow how the phases meet"),
	QUANTITY(tick_coarse, "flag", "1 when the slot or the RT run is under four ticks: gaps and counts follow the tick's phase"),
	QUANTITY(cfs_wait_bound_us, "us", "the longest CFS wait RT throttling allows: two RT runs back to back, plus a period per slot a tick (or a late firing the trace saw: timer_late_us) outlasts"),
	QUANTITY(few_intervals, "flag", "1 when fewer than two throttles can end inside the window"),
	QUANTITY(others_us, "us", "CPU time other tasks took on the measured CPU in the window (cpuacct at both edges less the window's tasks'; else what the trace saw them run there, trace.others.total_us; else the noise floor's wall loss)"),
	QUANTITY(others_unmeasured_us, "us", "0 where cpuacct or the trace measured others_us; else others_us (the noise floor's wall loss, at most what other tasks took: an expectation centred on half of it, with half of it in the tolerance, spans both ends)"),
	QUANTITY(fs_others_us, "us", "with a fair server, others_us up to its runtime (what an RT task above the hog may have waited in one piece); else 0"),
	CGROUP_QUANTITY(cgroup_rt_share, "ratio", "the check's task's cgroup RT budget: rt_runtime_us / rt_period_us"),
	CGROUP_QUANTITY(cgroup_rt_runtime_us, "us", "the check's task's cgroup rt_runtime_us"),
};

const struct quantity_info *quantity_table(size_t *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct quantity_info *quantity_find(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(name, table[i].name))
			return &table[i];
	return NULL;
}

bool quantity_value(const struct quantity_ctx *qc, const char *name, double *v)
{
	const struct quantity_info *q = quantity_find(name);

	return q && q->value(qc, v);
}
