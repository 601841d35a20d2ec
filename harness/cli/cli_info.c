// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle info`: prints the system probe as JSON. Reads only; needs no privileges. */
#include "commands.h"
#include "knobs.h"
#include "sysinfo.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Long-only values above any char, so a bad short option is told apart from "--help=x". */
enum {
	OPT_COMPACT = 256,
	OPT_HELP,
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: rtthrottle info [--compact]\n\n"
		     "Prints what the system is, as JSON: kernel release and config (HZ, preemption\n"
		     "model, RT group scheduling), online CPUs, NUMA nodes, the throttling knobs,\n"
		     "cgroup layout, debugfs access and privileges. Changes nothing.\n\n"
		     "Options:\n"
		     "  --compact   one line instead of indented JSON\n"
		     "  -h, --help  this text\n");
}

/* getopt's own message would carry argv[0], which is "info" here. */
static int bad_option(char **argv)
{
	if (optopt > 0 && optopt < OPT_COMPACT)
		return usage_error("info", "unknown option '-%c'", optopt);
	return usage_error("info", "bad option '%s'", argv[optind - 1]);
}

int cmd_info(int argc, char **argv)
{
	static const struct option options[] = {
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE;
	json_object *info;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case OPT_COMPACT:
			flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
			break;
		case 'h':
		case OPT_HELP:
			usage(stdout);
			return EXIT_ALL_PASSED;
		default:
			return bad_option(argv);
		}
	}
	if (optind < argc)
		return usage_error("info", "unexpected argument '%s'", argv[optind]);
	info = sysinfo_collect(knobs_read_json());
	if (!info) {
		rtt_cmd_err("info", "out of memory");
		return EXIT_CHECK_FAILED;
	}
	puts(json_object_to_json_string_ext(info, flags));
	json_object_put(info);
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) || ferror(stdout)) {
		perror("rtthrottle info: stdout");
		return EXIT_CHECK_FAILED;
	}
	return EXIT_ALL_PASSED;
}
