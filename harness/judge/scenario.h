/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scenarios are JSON files (one per scenario in workloads/scenarios, or --scenario-file): the tasks that run
 * together, the policies to run them under, and the checks with their expectation rules.
 * workloads/scenarios/README.md describes the format.
 */
#ifndef RTT_SCENARIO_H
#define RTT_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "role_table.h"
#include "expect.h"
#include "grid.h"
#include "policy.h"
#include "task_shm.h"

#define SCENARIO_NAME_MAX 48
#define SCENARIO_POLICIES_MAX 8
#define SCENARIO_CHECKS_MAX 24
#define SCENARIO_CGROUPS_MAX 4
#define SCENARIO_SWEEP_MAX 12
#define SCENARIO_LEAD_IN_MAX 4
#define SCENARIOS_MAX 32
#define EXPR_MAX 192

enum cpu_placement {
	CPU_MEASURED,	/* the run's measured CPU */
	CPU_OTHER,	/* an online CPU that is not the measured one */
	CPU_ANY,	/* not pinned */
	CPU_EACH_BUT_0,	/* the measured CPU, and a copy on every other online CPU but CPU 0 */
};

struct scenario_task {
	char name[24];
	enum task_role role;
	int sched_policy;
	int priority;		/* RT priority, or nice */
	enum cpu_placement cpu;
	char cgroup[24];	/* one of the scenario's cgroups, or empty */
	json_object *params;	/* role parameters (numbers), also names in expressions */
};

struct scenario_check {
	char task[24];
	char metric[48];
	char fallback[48];	/* used when metric was not measured */
	enum check_kind kind;
	char expect[EXPR_MAX];
	char tolerance[EXPR_MAX];	/* an expression; "share" picks the share tolerance */
	char condition[EXPR_MAX];	/* "if": the check applies only when it holds */
	/*
	 * "detects": the smallest regression the check exists to catch, in the metric's unit; a
	 * tolerance at least that wide leaves the check unjudged. Empty: the metric's default.
	 */
	char detects[EXPR_MAX];
	char detects_why[160];	/* "detects_why": the regression detects stands for, in words */
	unsigned regimes;	/* bit mask of enum regime */
	char why[160];
	/* "tolerance_why": why a tolerance more than half the expected value is still right */
	char tolerance_why[200];
	char label[24];		/* "name": tells apart checks of one metric in KTAP (task.metric.name) */
};

struct scenario_cgroup {
	char name[24];
	int64_t rt_runtime_us, rt_period_us;
};

struct scenario {
	char name[SCENARIO_NAME_MAX];
	char summary[200];
	char source[PATH_MAX];
	struct policy policies[SCENARIO_POLICIES_MAX];
	int policy_count;
	struct grid grid;		/* "grid": cells run after the policies; row_count 0 without one */
	char suites[80];		/* comma-separated */
	double window_s;		/* 0: the command line's --duration */
	double min_periods;		/* the window covers at least this many policy periods */
	/*
	 * "window.lead_in": policies the spinners run under first, each for lead_in_ms, before the
	 * result's policy is written on the live system; the window is measured from a settle
	 * after that write (see run_case.c).
	 */
	struct policy lead_in[SCENARIO_LEAD_IN_MAX];
	int lead_in_count;
	double lead_in_ms;
	bool needs_rt_groups;		/* cgroup v1 cpu controller with cpu.rt_runtime_us */
	struct scenario_task tasks[TASKS_MAX];
	int task_count;
	struct scenario_check checks[SCENARIO_CHECKS_MAX];
	int check_count;
	struct scenario_cgroup cgroups[SCENARIO_CGROUPS_MAX];
	int cgroup_count;
	char sweep_task[24], sweep_param[32];	/* one window per value, or none */
	double sweep_values[SCENARIO_SWEEP_MAX];
	int sweep_count;
	int load_tool;			/* "load": enum load_tool, LOAD_NONE without one */
	enum cpu_placement load_cpu;	/* where it runs: other (default), measured or any */
};

/* Parses one file (scenario_parse.c); false after printing "FILE: FIELD: reason" to stderr. */
bool scenario_parse_file(const char *path, struct scenario *out);
/* Frees what a parsed scenario holds (its tasks' params); for a scenario not added to the catalogue. */
void scenario_release(struct scenario *s);
/* Parses every *.json of the catalogue folder (sorted); false on the first bad file. */
bool scenario_read_catalogue(void);
/* Adds a file given on the command line; NULL after printing why. */
const struct scenario *scenario_add_file(const char *path);
const struct scenario *scenario_catalogue(size_t *count);
const struct scenario *scenario_find(const char *name);
/* In the suite: the scenario names it, or names the suite it holds (mutants holds quick). */
bool scenario_in_suite(const struct scenario *s, const char *suite);
bool suite_known(const char *suite);
#define SUITES_KNOWN "quick, full, debate, mutants"
const char *scenario_dir(void);


#endif
