// SPDX-License-Identifier: GPL-2.0-only
/* Each role's set-up from the case: every role that takes parameters has a row, and the periodic task's sweep. */
#include "role_setup.h"
#include "role_table.h"
#include "unit.h"

#include <string.h>

/* A run with a 4 ms tick, a 2 ms noise floor and 100 loops a microsecond; a 50 ms CFS slot a second. */
static struct run_ctx run_fixture(void)
{
	struct run_ctx ctx = { 0 };

	ctx.model.tick_us = 4000;
	ctx.noise.gap_max_us = 2000;
	ctx.loops_per_us = 100;
	return ctx;
}

static const struct limiter slot = { .limited = true, .hog_share = 0.95, .gap_us = 50000, .interval_us = 1000000 };

TEST(role_setup_sets_up_every_role_that_takes_parameters)
{
	struct run_ctx ctx = run_fixture();
	struct scenario s = { .task_count = 1 };
	const struct role_setup_ctx sc = { .run = &ctx, .s = &s, .limiter = &slot };
	static const struct task_config untouched;

	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct role_info *ri = role_info((enum task_role)r);
		struct scenario_task t = { .role = (enum task_role)r };
		struct task_config c = { 0 };

		/* The hog's parameters (RLIMIT_RTTIME) are every task's: build_tasks sets them. */
		if (!ri || !ri->params[0].name || r == ROLE_HOG)
			continue;
		snprintf(t.name, sizeof(t.name), "%s", ri->name);
		s.tasks[0] = t;
		role_setup(&sc, &s.tasks[0], &c);
		CHECK(memcmp(&c, &untouched, sizeof(c)) != 0, "%s takes parameters but its task is not set up", ri->name);
	}
}

TEST(role_setup_gives_the_periodic_task_its_swept_utilisation_in_calibrated_loops)
{
	struct run_ctx ctx = run_fixture();
	struct scenario s = { .task_count = 1, .sweep_count = 2, .sweep_values = { 0.5, 0.8 } };
	struct scenario_task app = { .role = ROLE_PERIODIC };
	const struct role_setup_ctx sc = { .run = &ctx, .s = &s, .sweep = 1, .limiter = &slot };
	struct task_config c = { 0 };

	snprintf(app.name, sizeof(app.name), "app");
	snprintf(s.sweep_task, sizeof(s.sweep_task), "app");
	snprintf(s.sweep_param, sizeof(s.sweep_param), "utilisation");
	s.tasks[0] = app;
	role_setup(&sc, &s.tasks[0], &c);
	/* The role's default period, 10 ms: 8 ms of work at 0.8, 100 loops a microsecond. */
	CHECK(c.interval_ns == 10000000 && c.work_cpu_ns == 8000000 && c.work_loops == 800000,
	      "period %llu, work %llu ns in %llu loops", (unsigned long long)c.interval_ns,
	      (unsigned long long)c.work_cpu_ns, (unsigned long long)c.work_loops);
	CHECK(c.throttle_gap_ns > 0 && c.dl_runtime_ns == 0 && c.dl_period_ns == 10000000,
	      "throttle gap %llu, deadline %llu/%llu", (unsigned long long)c.throttle_gap_ns,
	      (unsigned long long)c.dl_runtime_ns, (unsigned long long)c.dl_period_ns);
}
