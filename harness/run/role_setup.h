/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What each role's task needs from the run beyond the fields every task has: its parameters
 * turned into the workload's units, and what the case measured before the window (noise
 * floor, limit, calibration). One set-up function per role, in one table (role_setup.c).
 */
#ifndef RTT_ROLE_SETUP_H
#define RTT_ROLE_SETUP_H

#include "run_case.h"
#include "scenario.h"

/* The case a task is set up for. */
struct role_setup_ctx {
	const struct run_ctx *run;
	const struct scenario *s;
	int sweep;			/* the sweep value's index */
	const struct limiter *limiter;	/* the limit the case's tasks meet */
};

/* Sets in c what t's role needs (t: one of sc->s's tasks); a role without a set-up needs none. */
void role_setup(const struct role_setup_ctx *sc, const struct scenario_task *t, struct task_config *c);

#endif
