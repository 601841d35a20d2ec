// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle compare BASE NEW`: a verdict per metric, exit 1 on any regression. */
#include "commands.h"
#include "compare.h"
#include "results.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rtthrottle compare [OPTIONS] BASE NEW\n\n"
		"Compares two result files (schema version %d) of the same scenarios: matches results by\n"
		"scenario, policy (and sweep value), task and metric, and calls each metric improved,\n"
		"regressed or unchanged. Each metric has a direction: higher is better, lower is better,\n"
		"or a target (the value the result's own check expects).\n\n"
		"With at least --min-repetitions values on both sides a Mann-Whitney U rank test decides,\n"
		"together with a minimum effect per metric; with fewer, the tolerance band of the results'\n"
		"own checks. The table says which method decided each line. Directions and minimum\n"
		"effects: harness/compare/compare.compare_rules.c; the method: results/reference/README.md.\n"
		"A result whose own verdict is unjudged (measured, but a check could not judge it) is\n"
		"compared like any other; the column 'unjudged' names the side (BASE, NEW, both) it is on.\n\n"
		"Options:\n"
		"  --json FILE               also write the verdict table as JSON to FILE ('-': stdout,\n"
		"                            then the text table is not printed)\n"
		"  --alpha P                 significance level of the rank test, two-sided (default %.2f;\n"
		"                            3 against 3 values reach p = 0.10 at best)\n"
		"  --min-repetitions N       values needed on each side for the rank test (default %d, >= 2)\n"
		"  --all                     also list the lines not judged: informational metrics (loops,\n"
		"                            loop_ns), targets without a check, bands without a check\n"
		"  -h, --help                this text\n\n"
		"Exit status: 0 nothing regressed, 1 a metric regressed, 2 bad input (missing or malformed\n"
		"file, another schema version, results of different scenarios), naming the file and field.\n",
		RESULTS_SCHEMA_VERSION, COMPARE_ALPHA_DEFAULT, COMPARE_MIN_REPS_DEFAULT);
}

static bool write_json(const char *path, const struct compare_table *t)
{
	json_object *root = compare_to_json(t);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	bool ok = true;

	if (!strcmp(path, "-")) {
		printf("%s\n", text);
	} else {
		size_t len = strlen(text);
		char *copy = malloc(len + 2);

		ok = copy != NULL;
		if (ok) {
			memcpy(copy, text, len);
			copy[len] = '\n';
			int err = write_file_atomic(path, copy, len + 1);

			if (err)
				rtt_cmd_err("compare", "--json %s: cannot write: %s", path, strerror(err));
			ok = !err;
			free(copy);
		}
	}
	json_object_put(root);
	return ok;
}

int cmd_compare(int argc, char **argv)
{
	enum { OPT_JSON = 1, OPT_ALPHA, OPT_MIN_REPS, OPT_ALL };
	static const struct option options[] = {
		{ "json", required_argument, NULL, OPT_JSON },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "min-repetitions", required_argument, NULL, OPT_MIN_REPS },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_options opt = { COMPARE_ALPHA_DEFAULT, COMPARE_MIN_REPS_DEFAULT };
	struct result_file base, new;
	struct compare_table table;
	const char *json_path = NULL;
	bool all = false;
	int64_t reps;
	int c, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json_path = optarg;
			break;
		case OPT_ALPHA:
			if (!parse_double(optarg, 1e-9, 0.999999, &opt.alpha))
				return usage_error("compare", "--alpha '%s': must be a number between 0 and 1", optarg);
			break;
		case OPT_MIN_REPS:
			if (!parse_i64(optarg, 2, 1000, &reps))
				return usage_error("compare", "--min-repetitions '%s': must be a whole number from 2 to 1000", optarg);
			opt.min_reps = (int)reps;
			break;
		case OPT_ALL:
			all = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_ALL_PASSED;
		case ':':
			return usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("compare", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage_error("compare", "%s", argc - optind < 2 ? "needs two result files: BASE NEW"
						     : "takes two result files, BASE and NEW; more were given");
	if (!result_file_read(argv[optind], &base))
		return EXIT_USAGE;
	if (!result_file_read(argv[optind + 1], &new)) {
		result_file_free(&base);
		return EXIT_USAGE;
	}
	status = EXIT_USAGE;
	if (compare_files(&base, &new, &opt, &table)) {
		bool json_ok = true;

		if (!json_path || strcmp(json_path, "-"))
			compare_print(stdout, &table, all);
		if (json_path)
			json_ok = write_json(json_path, &table);
		status = !json_ok ? EXIT_USAGE : table.regressed ? EXIT_CHECK_FAILED : EXIT_ALL_PASSED;
		compare_table_free(&table);
	}
	result_file_free(&base);
	result_file_free(&new);
	return status;
}
