/* One `rtthrottle run`: the options as parsed and validated, and the run itself. */
#ifndef RTT_RUN_H
#define RTT_RUN_H

#include <limits.h>
#include <stdbool.h>

#include "policy.h"
#include "scenario.h"

#define RUN_POLICIES_MAX 16
#define RUN_SCENARIOS_MAX 16

struct run_options {
	const struct scenario *scenario[RUN_SCENARIOS_MAX];
	int scenario_count;
	/* Empty: each scenario's default policies. */
	struct policy policy[RUN_POLICIES_MAX];
	int policy_count;
	int cpu;
	double duration_s;
	double noise_s;
	double probe_s;		/* each regime-probe window; 0 skips the probe */
	int repeat;
	char output[PATH_MAX];
	char cmdline[1024];
	bool quiet;
	const char *suite;
};

/* Runs everything; returns the exit status (see util.h), 128+signal when interrupted. */
int run_execute(const struct run_options *opt);

#endif
