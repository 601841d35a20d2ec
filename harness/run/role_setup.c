// SPDX-License-Identifier: GPL-2.0-only
/* Each role's set-up of its task from the case: a table, so adding a role adds a line here. */
#include "role_setup.h"
#include "cyclictest.h"
#include "quantity.h"
#include "scenario_task.h"
#include "timerlat.h"

#include <math.h>

typedef void setup_fn(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c);

/*
 * The shortest victim run that may end at an RT throttle's end (metrics.c, whole periods): a
 * tick, so that microseconds the fair server gives mid-period are no slot; half RT's slot
 * where that is longer than the fair server's own, which may come anywhere in a period. A
 * window at half may begin with such a 50 ms slot (runtime the server keeps from the window
 * before); counted as a slot, its end starts the victim's periods off the grid: 0.475 of the
 * CPU where 0.5 is due.
 */
static uint64_t victim_slot_min_ns(const struct run_ctx *ctx, const struct limiter *l)
{
	double min_us = fmin(l->gap_us / 2, ctx->model.tick_us);

	if (!l->limited || l->gap_us <= 0)
		return 0;
	if (ctx->model.fair_server && l->gap_us / 2 > ctx->model.fs_runtime_us + ctx->model.tick_us)
		min_us = l->gap_us / 2;
	return (uint64_t)(min_us * 1000);
}

static void setup_victim(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	c->early_ns = (uint64_t)(task_param(t, "running_before_ms") * 1e6);
	c->slot_min_ns = victim_slot_min_ns(sc->run, sc->limiter);
	c->interruption_max_ns = (uint64_t)((sc->run->noise.gap_max_us + sc->run->model.tick_us) * 1000);
}

static void setup_probe(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	(void)sc;
	c->interval_ns = (uint64_t)(task_param(t, "interval_us") * 1000);
	c->phase_set = json_object_object_get_ex(t->params, "phase_us", NULL);
	c->phase_ns = (uint64_t)(task_param(t, "phase_us") * 1000);
}

static void setup_kernel_work(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	(void)sc;
	c->interval_ns = (uint64_t)(task_param(t, "interval_us") * 1000);
}

/* Its work in loops of the calibrated length; the throttle threshold of its utilisation. */
static void setup_periodic(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	const struct run_ctx *ctx = sc->run;
	const struct scenario *s = sc->s;
	double utilisation = sweep_sets(s, (int)(t - s->tasks), "utilisation") ? s->sweep_values[sc->sweep]
										: task_param(t, "utilisation");

	c->interval_ns = (uint64_t)(task_param(t, "period_us") * 1000);
	c->throttle_gap_ns =
		(uint64_t)(periodic_throttle_gap_us(sc->limiter, &ctx->noise, ctx->model.tick_us, utilisation) * 1000);
	c->work_cpu_ns = (uint64_t)(utilisation * task_param(t, "period_us") * 1000);
	c->work_loops = (uint64_t)(c->work_cpu_ns / 1000.0 * ctx->loops_per_us);
	c->dl_runtime_ns = (uint64_t)(task_param(t, "dl_runtime_us") * 1000);
	c->dl_period_ns = (uint64_t)(scenario_param(t, "dl_period_us", task_param(t, "period_us")) * 1000);
}

static void setup_admin(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	json_object *target;

	c->act_at_ns = (uint64_t)(task_param(t, "act_at_ms") * 1e6);
	c->target = json_object_object_get_ex(t->params, "target", &target)
			    ? scenario_task_index(sc->s, json_object_get_string(target))
			    : 0;
}

static void setup_invalid_writes(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	(void)sc;
	c->act_at_ns = (uint64_t)(task_param(t, "act_at_ms") * 1e6);
}

static void setup_cyclictest(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	(void)sc;
	cyclictest_configure(t, c);
}

static void setup_timerlat(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	(void)sc;
	timerlat_configure(t, c);
}

static void setup_burst_hog(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	c->burst_ns = (uint64_t)(task_param(t, "burst_ms") * 1e6);
	c->burst_every_ns = (uint64_t)(task_param(t, "every_ms") * 1e6);
	/* The limit's interval: how long what a burst spent may still throttle after it. */
	c->interval_ns = (uint64_t)(sc->limiter->interval_us * 1000);
}

/* Roles absent here (hog, noise, calibrate, load) need nothing beyond the common fields. */
static const struct {
	enum task_role role;
	setup_fn *setup;
} setups[] = {
	{ ROLE_VICTIM, setup_victim },
	{ ROLE_PROBE, setup_probe },
	{ ROLE_KERNEL_WORK, setup_kernel_work },
	{ ROLE_PERIODIC, setup_periodic },
	{ ROLE_ADMIN, setup_admin },
	{ ROLE_INVALID_WRITES, setup_invalid_writes },
	{ ROLE_CYCLICTEST, setup_cyclictest },
	{ ROLE_TIMERLAT, setup_timerlat },
	{ ROLE_BURST_HOG, setup_burst_hog },
};

void role_setup(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c)
{
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++)
		if (setups[i].role == t->role) {
			setups[i].setup(sc, t, c);
			return;
		}
}
