/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A scenario's tasks looked up: by name, and their numeric params. Below the parser
 * (judge/scenario_parse.c) because the role files (cyclictest.c), the judge and the run all read them.
 */
#ifndef RTT_SCENARIO_TASK_H
#define RTT_SCENARIO_TASK_H

#include "scenario.h"

/* The index of the task called `name`, or -1. */
int scenario_task_index(const struct scenario *s, const char *name);
/* A task parameter, or `fallback` when absent. */
double scenario_param(const struct scenario_task *t, const char *name, double fallback);
/* A parameter of the task's role: the scenario's value, or the role's default (role_table.c); 0 for one it does not take. */
double task_param(const struct scenario_task *t, const char *name);

#endif
