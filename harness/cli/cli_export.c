// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle export`: JUnit, KCIDB, rt-tests JSON and lava-test-case lines from a results file already written. */
#include "commands.h"
#include "result_file.h"
#include "export.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rtthrottle export [OPTIONS] RESULTS.json\n\n"
		"Converts a results file of 'rtthrottle run' for other CI systems; 'run' takes the same\n"
		"options and writes the same files at the end of a run. At least one of:\n\n"
		EXPORT_OPTION_HELP
		"  -h, --help            this text\n\n"
		"Each file is written atomically (temporary file, fsync, rename). The KCIDB test ids are\n"
		"ORIGIN:<run id>:<path>; give --kcidb-build-id the id of the build your CI submits.\n"
		"Exit status: 0 written, 1 a file could not be written, 2 usage or bad input (the\n"
		"message names the file and the field; nothing is written).\n");
}

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		EXPORT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_options o = { 0 };
	struct result_file f;
	int c;
	bool ok;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (export_option(&o, c, optarg))
			continue;
		if (c == 'h') {
			usage(stdout);
			return EXIT_ALL_PASSED;
		}
		if (c == ':')
			return usage_error("export", "option '%s' needs a value", argv[optind - 1]);
		return usage_error("export", "unknown option '%s'", argv[optind - 1]);
	}
	if (optind == argc)
		return usage_error("export", "needs a results file");
	if (optind + 1 < argc)
		return usage_error("export", "one results file at a time; unexpected '%s'", argv[optind + 1]);
	if (!export_wanted(&o))
		return usage_error("export", "nothing to write: give --junit, --kcidb, --rt-tests-json or --lava");
	if (!export_options_check(&o, "export", argv[optind], "the results file"))
		return EXIT_USAGE;
	if (!result_file_read(argv[optind], &f))
		return EXIT_USAGE;
	ok = export_write_all(f.root, &o);
	result_file_free(&f);
	return ok ? EXIT_ALL_PASSED : EXIT_CHECK_FAILED;
}
