// SPDX-License-Identifier: GPL-2.0-only
/* Waits between windows only as long as the kernel's RT period timers need (or a whole period). */
#include "settle.h"
#include "report.h"
#include "rt_timer.h"
#include "signals.h"
#include "util.h"

#include <sched.h>
#include <stdio.h>

/*
 * RT time a window ran up is only forgiven when the kernel's period timer fires, and
 * shortening the period does not re-arm that timer: the next window's RT tasks would start
 * with another window's budget spent, throttled for up to the old period.
 */
static void wait_us(int64_t us)
{
	uint64_t until = now_ns() + (uint64_t)us * 1000ull;

	while (now_ns() < until && !signals_stop_requested()) {
		uint64_t step = now_ns() + 100000000ull;	/* stay responsive to signals */

		sleep_until_ns(step < until ? step : until);
	}
}

/* Past a timer's expiry before its handler has surely run: a tick covers a late hard interrupt. */
#define SETTLE_MARGIN_US 4000

/*
 * Waits until every armed RT period timer has fired `firings` times from `since_ns` on, at
 * most `bound_us` (the whole-period rule). A firing forgives up to a runtime: what a period's
 * throttle ran beyond it (the throttle is caught at a tick) and the ~1 ms its tasks take to
 * leave after that firing stay, and keep the timer armed one period more: at most a tick and a
 * millisecond the next window inherits (the kernel test allows two ticks for it). A timer that
 * is not armed has nothing to forgive: the kernel stops it only when no RT queue has time run
 * up or a task queued. Returns what it waited; the whole bound when /proc/timer_list cannot be
 * read.
 */
static int64_t wait_rt_timers(int firings, int64_t bound_us, int64_t period_us, uint64_t since_ns)
{
	int64_t waited = 0;

	for (int i = 0; i < firings && waited < bound_us && !signals_stop_requested(); i++) {
		struct rt_timer_state t;
		int64_t us;

		if (!rt_timer_read(&t)) {
			wait_us(bound_us - waited);
			return bound_us;
		}
		if (!t.armed)
			break;
		/* It fired as the window ended: that firing counts. */
		if (i == 0 && rt_timer_fired_since(&t, period_us * 1000, since_ns))
			continue;
		us = (t.last_in_ns > 0 ? t.last_in_ns / 1000 : 0) + SETTLE_MARGIN_US;
		if (us > bound_us - waited)
			us = bound_us - waited;
		wait_us(us);
		waited += us;
	}
	return waited;
}

/*
 * From when a firing of the RT period timer forgives the window's RT time: when its last RT
 * task left the class (a task killed mid-window: when it was reaped). One throttled at the
 * window's end runs on only when that firing lets it, and leaves within a millisecond or so
 * (1.0-1.1 ms for the hog at 950000/1000000 after 3 whole periods): leaving within a
 * tick of the end counts as at the end. A window without RT tasks ran up nothing: 0.
 */
static uint64_t rt_forgiven_from_ns(const struct window_shm *shm)
{
	uint64_t from = 0;

	for (int i = 0; i < shm->task_count; i++) {
		const struct task_record *t = &shm->task[i];
		uint64_t at = t->left_rt_ns ? t->left_rt_ns : t->last_ns ? t->last_ns : now_ns();

		if (!task_config_is_rt(&t->config))
			continue;
		if (at <= shm->end_ns + SETTLE_MARGIN_US * 1000ull && at > shm->end_ns)
			at = shm->end_ns;
		if (at > from)
			from = at;
	}
	return from;
}

/* The period the knobs go back to between windows: the longer of the sysctl's and the root cgroup's. */
static int64_t restored_period_us(const struct run_ctx *ctx)
{
	int64_t period = ctx->before.value[KNOB_SYSCTL_PERIOD];

	if (ctx->before.has_cgroup && ctx->before.value[KNOB_CGROUP_PERIOD] > period)
		period = ctx->before.value[KNOB_CGROUP_PERIOD];
	return period;
}

/*
 * After a window, with the knobs put back. A whole period (--settle period) waits at once; the
 * timer rule waits before the next window (run_settle_due), so the work between windows runs
 * inside the wait. Under -1 the kernel counted nothing.
 */
void run_settle_after(struct run_ctx *ctx, const struct policy *p)
{
	int64_t period = restored_period_us(ctx);

	if (p->period_us > period)
		period = p->period_us;
	switch (ctx->opt->settle) {
	case SETTLE_NONE:
		break;
	case SETTLE_PERIOD:
		if (period > 1000000)
			progress_step("settling: the %.1f s RT period timer of policy %s fires before the next window",
				      period / 1e6, p->name);
		wait_us(period);
		ctx->settle_us += period;
		break;
	case SETTLE_TIMER:
		ctx->settle_pending = p->runtime_us >= 0;
		ctx->settle_policy = *p;
		ctx->settle_left_ns = rt_forgiven_from_ns(ctx->shm);
		break;
	}
}

/*
 * The calibration spins at RT priority on the measured CPU under the knobs in force: without
 * this the first window begins with its 96-98 ms still counted, and waits on the RT queue.
 */
void run_settle_after_knobs(struct run_ctx *ctx)
{
	struct policy in_force = { .runtime_us = ctx->before.value[KNOB_SYSCTL_RUNTIME],
				   .period_us = restored_period_us(ctx) };

	snprintf(in_force.name, sizeof(in_force.name), "%s", "in force");
	run_settle_after(ctx, &in_force);
}

/*
 * Before a window, or at the run's end: until every armed RT period timer has fired once since
 * the last window ended (rt_forgiven_from_ns; twice when its policy allowed more runtime than
 * the knobs now give: one firing forgives only the restored runtime), at most the longer of
 * the two periods (as when /proc/timer_list cannot be read). Under this rule a window ends
 * just before a firing of the timer armed as it starts (struct window_align): that firing then
 * counts, and there is no wait. Not waiting at all once the slot P - R has passed under the
 * same policy is not enough: a window after a hog RLIMIT_RTTIME killed runs 1.18 s, then
 * throttles 320 ms.
 */
void run_settle_due(struct run_ctx *ctx)
{
	const struct policy *last = &ctx->settle_policy;
	int64_t restored = ctx->before.value[KNOB_SYSCTL_RUNTIME], bound = restored_period_us(ctx);

	if (!ctx->settle_pending)
		return;
	ctx->settle_pending = false;
	if (last->period_us > bound)
		bound = last->period_us;
	if (bound > 1000000)
		progress_step("settling: the %.1f s RT period timer of policy %s fires before the next window",
			      bound / 1e6, last->name);
	ctx->settle_us += wait_rt_timers(restored >= 0 && last->runtime_us > restored ? 2 : 1, bound, last->period_us,
					 ctx->settle_left_ns);
}

/*
 * A window whose period is shorter than the one the knobs go back to: under the timer rule,
 * until its RT period timer stops, at most two of its periods and a margin. The timer stops at
 * a firing that finds no RT time run up and no RT task queued, and that firing has already
 * moved its expiry on by the period in force. Put back first, the knobs make that a whole old
 * period ahead, where the next RT task to start the timer arms it: the next window at a short
 * period would wait it out (run_settle_before). Left at the window's period, it is two short
 * periods ahead and soon past. The first firing after the window rarely stops it: the RT tasks
 * were throttled until then and leave their class just after.
 */
void run_settle_before_restore(struct run_ctx *ctx, const struct policy *p)
{
	int64_t bound = 2 * p->period_us + 2 * SETTLE_MARGIN_US, waited = 0;

	if (ctx->opt->settle != SETTLE_TIMER || p->runtime_us < 0 || p->period_us >= restored_period_us(ctx))
		return;
	while (waited < bound && !signals_stop_requested()) {
		struct rt_timer_state t;
		int64_t us;

		if (!rt_timer_read(&t) || !t.armed)
			break;
		us = t.last_in_ns / 1000 + SETTLE_MARGIN_US;
		if (us > bound - waited)
			us = bound - waited;
		wait_us(us);
		waited += us;
	}
	ctx->settle_us += waited;
}

/*
 * Starts the RT period timers if they are stopped, so /proc/timer_list shows where they will
 * fire: the harness's own thread is an RT task for a moment. A stopped timer keeps the expiry
 * its last firing set and is armed there. False when the class cannot be changed.
 */
static bool arm_rt_period_timer(void)
{
	struct sched_param rt = { .sched_priority = 1 }, other = { .sched_priority = 0 };

	if (sched_setscheduler(0, SCHED_FIFO, &rt))
		return false;
	return sched_setscheduler(0, SCHED_OTHER, &other) == 0;
}

/*
 * The other side of the same timer: a new period takes effect only when the timer next fires,
 * and until then RT gets the new runtime once in up to the old period (a hog at 190000/200000
 * gets 0.27 of a 1 s window, one 740 ms throttle). A timer that /proc/timer_list shows
 * stopped is no better: it keeps the expiry its last firing moved on by the old period, and
 * the next RT task to start it arms it there (on 6.18, waiting only for the armed timers, 7 of
 * the grid's 30 cells with periods under 1 s have a first throttle of 780-921 ms, and a burst
 * hog at 95000/100000 one of 579 ms). The old period may also be the last window's: the
 * firing that forgives a 10 s window moves the timer on by 10 s, and a probe at the default
 * after it waits up to 6.7 s. So the timer rule starts the timers and waits for any that
 * fires later than a new period from now, at most the longest period used. The whole-period
 * rule, and the timer rule where it cannot tell, wait a whole old period before a shorter one
 * (after a longer one the whole-period rule has already waited it out). Under -1 nothing
 * throttles: the period does not matter.
 */
void run_settle_before(struct run_ctx *ctx, const struct policy *p)
{
	int64_t old = restored_period_us(ctx), bound = ctx->longest_period_us > old ? ctx->longest_period_us : old, us;
	struct rt_timer_state t;

	if (ctx->opt->settle == SETTLE_NONE || p->runtime_us < 0)
		return;
	if (ctx->opt->settle == SETTLE_TIMER && arm_rt_period_timer() && rt_timer_read(&t)) {
		if (!t.armed || t.last_in_ns <= p->period_us * 1000)
			return;
		progress_step("settling: the RT period timer takes policy %s's %.0f ms period when it fires in %.0f ms",
			      p->name, p->period_us / 1e3, t.last_in_ns / 1e6);
		us = t.last_in_ns / 1000 + SETTLE_MARGIN_US;
		us = us < bound ? us : bound;
		wait_us(us);
		ctx->settle_us += us;
		return;
	}
	if (p->period_us >= old)
		return;
	progress_step("settling: the RT period timer takes policy %s's %.0f ms period when its %.1f s period ends",
		      p->name, p->period_us / 1e3, old / 1e6);
	wait_us(old);
	ctx->settle_us += old;
}

/* Between reads of the RT queue while waiting: a read of the debug file costs well under 1 ms. */
#define QUEUE_POLL_US 20000

/*
 * The kernel's own account, where its debug file can be read: the timer rule infers from the
 * period timer that a window starts on forgiven time; this reads it. Under a limited policy,
 * until the measured CPU's RT queue is not throttled and holds no more than the timer rule
 * leaves (a tick the throttle is caught late and the ~1 ms tasks take to leave), with the period
 * timer armed so that it fires (a stopped timer keeps its last expiry: armed there, or at once
 * when that has passed), at most the longest period used and a margin. The timer rule does not
 * wait after a window at -1, nor for a firing that is not armed: a window after one can find
 * its FIFO task throttled from its start for 668 ms.
 */
void run_settle_queue(struct run_ctx *ctx, const struct policy *p)
{
	int64_t bound = ctx->longest_period_us > restored_period_us(ctx) ? ctx->longest_period_us : restored_period_us(ctx);
	double left_us = ctx->model.tick_us + 1000.0;
	struct rt_queue_state q, found = { 0 };
	int64_t waited = 0;

	if (!ctx->rt_queue_readable)
		return;
	bound += SETTLE_MARGIN_US;
	while (rt_queue_read(ctx->opt->cpu, &q, ctx->rt_queue_why, sizeof(ctx->rt_queue_why))) {
		if (!ctx->rt_queue_read)
			found = q;
		ctx->rt_queue_read = true;
		ctx->rt_queue_at_start = q;
		if (ctx->opt->settle == SETTLE_NONE || p->runtime_us < 0 || waited >= bound || signals_stop_requested() ||
		    (!q.throttled && q.rt_time_us <= left_us))
			break;
		arm_rt_period_timer();
		wait_us(QUEUE_POLL_US);
		waited += QUEUE_POLL_US;
	}
	if (waited)
		progress_step("settling: CPU %d's RT queue had %.0f ms run up%s; waited %.0f ms for the kernel to forgive it",
			      ctx->opt->cpu, found.rt_time_us / 1e3, found.throttled ? " and was throttled" : "", waited / 1e3);
	ctx->rt_queue_waited_us = waited;
	ctx->settle_us += waited;
}
