/* SPDX-License-Identifier: GPL-2.0-only */
/* One `rtthrottle run`: the options as parsed and validated, and the run itself. */
#ifndef RTT_RUN_H
#define RTT_RUN_H

#include <limits.h>
#include <stdbool.h>

#include "export.h"
#include "grid.h"
#include "kernel_defaults.h"
#include "placement.h"
#include "policy.h"
#include "scenario.h"

#define RUN_POLICIES_MAX 16
/* The policies of one scenario in a run: named ones plus the cells of a knob grid. */
#define RUN_CASE_POLICIES_MAX (RUN_POLICIES_MAX + GRID_CELLS_MAX)
#define RUN_SCENARIOS_MAX SCENARIOS_MAX
#define RUN_FAIR_SERVERS_MAX 6

/* How a run waits between windows so that none inherits another's spent RT budget. */
enum settle_mode {
	SETTLE_PERIOD,	/* a whole period, always */
	SETTLE_TIMER,	/* until the RT period timers fire (/proc/timer_list); a period when unreadable (the default) */
	SETTLE_NONE,	/* not at all: windows may inherit spent budget (to show what settling prevents) */
};

struct run_options {
	const struct scenario *scenario[RUN_SCENARIOS_MAX];
	int scenario_count;
	/* Empty, and no grid: each scenario's own policies (and grid). */
	struct policy policy[RUN_POLICIES_MAX];
	int policy_count;
	struct grid grid;	/* --grid: its cells follow the policies; row_count 0 without one */
	/* --fair-server: each policy without its own runs once with each of these */
	struct policy_fair_server fair_server[RUN_FAIR_SERVERS_MAX];
	int fair_server_count;
	int cpu;		/* the first measured CPU: noise floor, probe, calibration, checks */
	int cpus[PLACEMENT_CPUS_MAX];	/* every measured CPU (--cpu), ascending; cpus[0] == cpu */
	int cpu_count;
	double duration_s;
	double noise_s;		/* 0: as long as the longest window planned (at least 1 s) */
	double probe_s;		/* each regime-probe window; 0 skips the probe */
	int repeat;
	char output[PATH_MAX];
	char record_dir[PATH_MAX];	/* --record: each window's raw measurements go there (record.h) */
	char cmdline[1024];
	bool quiet;
	bool trace;		/* record sched_switch as ground truth (--trace / --no-trace) */
	const char *suite;
	int64_t restored_period_us;	/* the period in force before the run (for the ETA) */
	struct export_options exports;	/* JUnit, KCIDB, rt-tests files written beside the results */
	int load_tool;		/* --load: enum load_tool for every scenario; -1: each scenario's own */
	struct site_settings site;	/* --site-setting: values the site sets on purpose */
	enum settle_mode settle;
};

/* Runs everything; returns the exit status (see util.h), 128+signal when interrupted. */
int run_execute(const struct run_options *opt);
/*
 * The policies a scenario runs under: the command line's, or its own; grid cells last; each
 * with --fair-server's setting unless it sets its own.
 */
int run_policies(const struct run_options *opt, const struct scenario *s, struct policy *out);
/* Windows (scenario results) the options plan; KTAP plans KERNEL_RESULTS more (kernel_results.h). */
int run_planned_results(const struct run_options *opt);

#endif
