// SPDX-License-Identifier: GPL-2.0-only
/* rtthrottle: measures what Linux realtime throttling gives and takes. Subcommand dispatch. */
#include "commands.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const struct command commands[] = {
	{ "run", cmd_run, "run scenarios under throttling policies and judge the results" },
	{ "info", cmd_info, "print the system (kernel, config, CPUs, NUMA, knobs) as JSON" },
	{ "list", cmd_list, "list scenarios and policies" },
	{ "restore", cmd_restore, "put back the knobs saved by a run that died" },
	{ "plan", cmd_plan, "print the order of knob writes to a policy and back (writes nothing)" },
	{ "compare", cmd_compare, "compare two result files: improved, regressed or unchanged per metric" },
	{ "plot", cmd_plot, "draw regression plots (PNG) from result files" },
	{ "report", cmd_report, "write a self-contained HTML report from result files" },
	{ "export", cmd_export, "convert a result file to JUnit XML, KCIDB JSON or rt-tests JSON" },
	{ "judge", cmd_judge, "judge the windows a 'run --record DIR' kept again, offline (no root)" },
	{ "soak", cmd_soak, "run the quick suite N times: false alarms and margins per check" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: rtthrottle COMMAND [OPTIONS]\n\n"
		     "Measures what Linux realtime (SCHED_FIFO) throttling gives and takes.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'rtthrottle COMMAND --help' describes each command.\n"
		     "Exit status: 0 all checks passed, 1 a check failed, 2 usage or bad input,\n"
		     "4 everything skipped, 125 (run) something could not be judged.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_ALL_PASSED;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rtthrottle %s\n", RTT_VERSION);
		return EXIT_ALL_PASSED;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	rtt_err("unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
