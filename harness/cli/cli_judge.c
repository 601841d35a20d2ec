// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle judge DIR`: judges the windows a `run --record DIR` kept, again, offline. */
#include "commands.h"
#include "defects.h"
#include "record.h"
#include "util.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	char names[512];

	defect_names(names, sizeof(names));
	fprintf(out,
		"Usage: rtthrottle judge [OPTIONS] DIR\n\n"
		"Judges again, with this build's scenarios and checks, every window 'rtthrottle run\n"
		"--record DIR' kept: the tasks' CPU-clock timelines, gaps and latencies, the trace's\n"
		"figures, /proc/stat's and the noise floor, as the live run read them. Nothing is run\n"
		"and no knob is touched: no root needed. Unchanged recordings get the live run's\n"
		"verdicts; with --inject, a defect is put into each window first (how `make power`\n"
		"measures what each check catches). KTAP on stdout, as 'rtthrottle run' prints it.\n\n"
		"Options:\n"
		"  --output FILE   results JSON, as 'rtthrottle run' writes it (run.json's document with\n"
		"                  the results judged again and a judged_again block)\n"
		"  --inject NAME   a defect of the size its check detects, put into each window's\n"
		"                  hog and CFS timelines on the kernel's period grid: %s\n"
		"                  ('rtthrottle judge --defects' describes them)\n"
		"  --defects       list the defects and exit\n"
		"  --quiet         no progress on stderr\n"
		"  -h, --help      this text\n\n"
		"Exit status: 0 all checks passed, 1 a check failed, 2 usage or bad input (no recording\n"
		"in DIR, or one this build cannot read: named), 125 nothing failed but something was\n"
		"unjudged.\n",
		names);
}

int cmd_judge(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' }, { "inject", required_argument, NULL, 'i' },
		{ "defects", no_argument, NULL, 'd' },	  { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },	  { NULL, 0, NULL, 0 },
	};
	const struct defect *defect = NULL;
	char output[PATH_MAX] = "", names[512];
	bool quiet = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:q", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (snprintf(output, sizeof(output), "%s", optarg) >= (int)sizeof(output))
				return usage_error("judge", "--output: path too long");
			break;
		case 'i':
			if (!(defect = defect_find(optarg))) {
				defect_names(names, sizeof(names));
				return usage_error("judge", "--inject: unknown defect '%s' (%s)", optarg, names);
			}
			break;
		case 'd':
			defect_list(stdout);
			return EXIT_ALL_PASSED;
		case 'q': quiet = true; break;
		case 'h':
			usage(stdout);
			return EXIT_ALL_PASSED;
		default:
			return usage_error("judge", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("judge", optind < argc ? "one folder, not several" : "which folder? (DIR)");
	return record_judge_dir(argv[optind], output, quiet, defect ? defect_apply : NULL, defect,
				defect ? defect->name : NULL, defect ? defect->catches : NULL, NULL);
}
