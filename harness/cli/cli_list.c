// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle list [scenarios|policies|quantities|roles]`: the catalogue, one line each. */
#include "commands.h"
#include "policy.h"
#include "quantity.h"
#include "scenario.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "Usage: rtthrottle list [--scenario-file PATH]... [scenarios|policies|quantities|roles]\n\n"
		     "Lists the scenarios (with their default policies and suites) and the policies\n"
		     "(runtime/period and where each comes from). Without an argument, both.\n"
		     "'quantities': the model quantities a scenario's checks may name in expect,\n"
		     "tolerance, detects and if, with their unit and meaning. 'roles': the task roles a\n"
		     "scenario may use, with their parameters and defaults.\n"
		     "Scenarios are the JSON files in %s (set RTTHROTTLE_SCENARIO_DIR\n"
		     "to use another folder) plus any --scenario-file.\n", scenario_dir());
}

static void list_scenarios(void)
{
	size_t count;
	const struct scenario *s = scenario_catalogue(&count);

	printf("Scenarios (from %s):\n", scenario_dir());
	for (size_t i = 0; i < count; i++) {
		char policies[256] = "";

		for (int k = 0; k < s[i].policy_count; k++)
			snprintf(policies + strlen(policies), sizeof(policies) - strlen(policies), "%s%s", k ? "," : "",
				 s[i].policies[k].name);
		if (s[i].grid.row_count)
			snprintf(policies + strlen(policies), sizeof(policies) - strlen(policies), "%sa %d x %d knob grid",
				 s[i].policy_count ? " and " : "", s[i].grid.row_count, s[i].grid.period_count);
		printf("  %-20s %s\n  %-20s policies: %s; suites: %s\n", s[i].name, s[i].summary, "", policies,
		       s[i].suites[0] ? s[i].suites : "none");
	}
}

static void list_policies(void)
{
	size_t count;
	const struct policy *p = policy_builtins(&count);

	printf("Policies (runtime_us/period_us):\n");
	for (size_t i = 0; i < count; i++) {
		char pair[40];

		snprintf(pair, sizeof(pair), "%lld/%lld", (long long)p[i].runtime_us, (long long)p[i].period_us);
		printf("  %-18s %-17s %s\n", p[i].name, pair, p[i].origin);
	}
	printf("  %-18s %-17s %s\n", "(ad hoc)", "N/M", "run --runtime-us N --period-us M");
}

static void list_quantities(void)
{
	size_t count;
	const struct quantity_info *q = quantity_table(&count);

	printf("Model quantities (besides the task's parameters, TASK.METRIC and trace.NAME):\n");
	for (size_t i = 0; i < count; i++)
		printf("  %-21s %-6s %s%s\n", q[i].name, q[i].unit, q[i].doc,
		       q[i].needs_cgroup ? " (a task in a cgroup only)" : "");
}

static void list_roles(void)
{
	printf("Task roles (a scenario task's \"role\"; its \"params\", with their defaults):\n");
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct role_info *ri = role_info((enum task_role)r);

		if (!ri->in_scenarios)
			continue;
		printf("  %-15s %s\n", ri->name, ri->doc);
		for (int i = 0; ri->params[i].name; i++) {
			const struct role_param *p = &ri->params[i];

			if (p->shown)
				printf("  %-15s   %s (default %s): %s\n", "", p->name, p->shown, p->doc);
			else
				printf("  %-15s   %s (default %g): %s\n", "", p->name, p->fallback, p->doc);
		}
	}
}

int cmd_list(int argc, char **argv)
{
	static const struct option options[] = { { "help", no_argument, NULL, 'h' },
						 { "scenario-file", required_argument, NULL, 'f' },
						 { NULL, 0, NULL, 0 } };
	int c;

	if (!scenario_read_catalogue())
		return EXIT_USAGE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_ALL_PASSED;
		}
		if (c == 'f') {
			if (!scenario_add_file(optarg))
				return EXIT_USAGE;
			continue;
		}
		rtt_cmd_err("list", "unknown option '%s'", argv[optind - 1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (optind + 1 < argc)
		return usage_error("list", "too many arguments");
	if (optind < argc && !strcmp(argv[optind], "quantities")) {
		list_quantities();
		return EXIT_ALL_PASSED;
	}
	if (optind < argc && !strcmp(argv[optind], "roles")) {
		list_roles();
		return EXIT_ALL_PASSED;
	}
	if (optind == argc || !strcmp(argv[optind], "scenarios"))
		list_scenarios();
	if (optind == argc)
		printf("\n");
	if (optind == argc || !strcmp(argv[optind], "policies"))
		list_policies();
	else if (strcmp(argv[optind], "scenarios"))
		return usage_error("list", "unknown list '%s' (scenarios, policies, quantities or roles)", argv[optind]);
	return EXIT_ALL_PASSED;
}
