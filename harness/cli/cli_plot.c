// SPDX-License-Identifier: GPL-2.0-only
/*
 * `rtthrottle plot` and `rtthrottle report`: check the result files here (so bad input gets the
 * same messages as compare), run compare for the report's verdict table, then hand the drawing to
 * harness/output/rtthrottle_plot.py under /usr/bin/python3 (Debian's, with python3-matplotlib).
 */
#include "commands.h"
#include "compare.h"
#include "plot_script.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRENDS_MAX 16
#define FILES_MAX 4096

struct plot_args {
	const char *command, *out, *baseline;
	const char *trends[TRENDS_MAX];
	int trend_count;
	char **files;
	int file_count;
};

static void usage(FILE *out, bool report)
{
	if (report)
		fprintf(out,
			"Usage: rtthrottle report [OPTIONS] --out DIR RESULTS...\n\n"
			"Writes DIR/index.html, one self-contained page (plots embedded): the system block of\n"
			"each run, the verdict table, each knob grid's heatmap and a table of its cells, the\n"
			"debate table when the results have one, and the plots of 'rtthrottle plot'. Without\n"
			"--baseline the verdict table shows each result's own checks; with it, 'rtthrottle\n"
			"compare BASELINE RESULT' for every result file.\n\n");
	else
		fprintf(out,
			"Usage: rtthrottle plot [OPTIONS] --out DIR RESULTS...\n\n"
			"Draws PNG plots of result files into DIR: achieved hog and victim share against the\n"
			"configured runtime/period with each regime's ideal (shares.png); gap-length histograms\n"
			"per policy (gaps.png); probe latency CDF per policy, log scale (latency.png, when the\n"
			"files hold probe results); the policy trade-off, RT share against worst CFS starvation\n"
			"and admin recovery (tradeoff.png); trends of a metric across the files, x = kernel\n"
			"release and run time, with the band beyond which 'compare' calls a regression\n"
			"(trend-TASK-METRIC.png); and per scenario run on a knob grid (run --grid), a heatmap\n"
			"of ratio (or runtime) by period: each cell's verdict, the hog's RT share and the\n"
			"longest CFS wait against the promised one (heatmap-SCENARIO.png). Unjudged results\n"
			"(measured, no verdict) are drawn hollow (lines dashed); skipped and errored ones not.\n\n");
	fprintf(out,
		"Options:\n"
		"  --out DIR              where to write (created if missing)\n"
		"  --baseline FILE        the run the trends (and the report's verdicts) compare against;\n"
		"                         default for trends: the earliest of RESULTS\n"
		"  --trend TASK.METRIC    a metric to draw a trend of (repeatable; default\n"
		"                         victim.cpu_share_periods and victim.starvation_max_us)\n"
		"  -h, --help             this text\n\n"
		"Needs %s with matplotlib (apt-get install python3-matplotlib); RTTHROTTLE_PYTHON and\n"
		"RTTHROTTLE_PLOT_SCRIPT override the interpreter and harness/output/rtthrottle_plot.py.\n"
		"Exit status: 0 written, 2 bad input (naming the file and field) or no matplotlib.\n",
		PYTHON_DEFAULT);
}

static bool trend_known(const char *trend)
{
	const char *dot = strchr(trend, '.');
	const struct metric_rule *rules;
	int n;

	if (!dot || dot == trend || !dot[1])
		return false;
	rules = metric_rules(&n);
	for (int i = 0; i < n; i++)
		if (!strcmp(rules[i].metric, dot + 1) && rules[i].direction != DIR_INFO)
			return true;
	return false;
}

static int parse(int argc, char **argv, struct plot_args *a)
{
	enum { OPT_OUT = 1, OPT_BASELINE, OPT_TREND };
	static const struct option options[] = {
		{ "out", required_argument, NULL, OPT_OUT },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "trend", required_argument, NULL, OPT_TREND },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case OPT_OUT:
			a->out = optarg;
			break;
		case OPT_BASELINE:
			a->baseline = optarg;
			break;
		case OPT_TREND:
			if (!trend_known(optarg))
				return usage_error(a->command, "--trend '%s': not a compared metric; give TASK.METRIC, "
						       "e.g. victim.cpu_share_periods", optarg);
			if (a->trend_count == TRENDS_MAX)
				return usage_error(a->command, "--trend: at most 16");
			a->trends[a->trend_count++] = optarg;
			break;
		case 'h':
			usage(stdout, !strcmp(a->command, "report"));
			return -1;
		case ':':
			return usage_error(a->command, "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error(a->command, "unknown option '%s'", argv[optind - 1]);
		}
	}
	a->files = argv + optind;
	a->file_count = argc - optind;
	if (!a->out)
		return usage_error(a->command, "--out DIR is required");
	if (!a->file_count)
		return usage_error(a->command, "needs at least one results file");
	if (a->file_count > FILES_MAX)
		return usage_error(a->command, "at most 4096 results files");
	return 0;
}

/* Every file must load; the messages name the file and the field. */
static bool files_valid(const struct plot_args *a)
{
	struct result_file f;

	if (a->baseline) {
		if (!result_file_read(a->baseline, &f))
			return false;
		result_file_free(&f);
	}
	for (int i = 0; i < a->file_count; i++) {
		if (!result_file_read(a->files[i], &f))
			return false;
		result_file_free(&f);
	}
	return true;
}

/* Compares the baseline with every results file: the verdict tables as JSON, or false. */
static json_object **run_compares(const struct plot_args *a)
{
	struct compare_options opt = { COMPARE_ALPHA_DEFAULT, COMPARE_MIN_REPS_DEFAULT };
	struct result_file base = { 0 };
	json_object **tables = calloc((size_t)a->file_count, sizeof(*tables));
	bool ok = tables && result_file_read(a->baseline, &base);

	for (int i = 0; ok && i < a->file_count; i++) {
		struct result_file new;
		struct compare_table t;

		if (!result_file_read(a->files[i], &new)) {
			ok = false;
			break;
		}
		ok = compare_files(&base, &new, &opt, &t);
		if (ok) {
			printf("compare %s %s: %d regressed, %d improved, %d unchanged\n", a->baseline, a->files[i],
			       t.regressed, t.improved, t.unchanged);
			tables[i] = compare_to_json(&t);
			compare_table_free(&t);
		}
		result_file_free(&new);
	}
	result_file_free(&base);
	for (int i = 0; !ok && tables && i < a->file_count; i++)
		json_object_put(tables[i]);
	if (!ok) {
		free(tables);
		return NULL;
	}
	return tables;
}

/* DIR/compare-N.json for the script; the paths (to free) or NULL. */
static char **write_compares(const struct plot_args *a, json_object **tables)
{
	char **paths = calloc((size_t)a->file_count, sizeof(*paths));
	bool ok = paths != NULL;

	for (int i = 0; ok && i < a->file_count; i++) {
		const char *text = json_object_to_json_string_ext(tables[i], JSON_C_TO_STRING_PRETTY |
									      JSON_C_TO_STRING_NOSLASHESCAPE);
		int err = asprintf(&paths[i], "%s/compare-%d.json", a->out, i + 1) < 0 ? ENOMEM : 0;

		if (err)
			paths[i] = NULL;
		else
			err = write_file_atomic(paths[i], text, strlen(text));
		if (err)
			rtt_cmd_err("report", "cannot write %s/compare-%d.json: %s", a->out, i + 1,
				strerror(err));
		ok = !err;
	}
	for (int i = 0; !ok && paths && i < a->file_count; i++)
		free(paths[i]);
	if (!ok) {
		free(paths);
		return NULL;
	}
	return paths;
}

static int run_script(const struct plot_args *a, char **compares, int compare_count)
{
	const char *python = plot_python();
	char script[PATH_MAX], self[PATH_MAX];
	int n = 0, status;
	const char **argv = calloc((size_t)(a->file_count + 2 * (a->trend_count + compare_count) + 16), sizeof(*argv));
	pid_t pid;
	ssize_t len;

	if (!argv || !plot_script_find(script, sizeof(script))) {
		free(argv);
		return EXIT_USAGE;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';
	argv[n++] = python;
	argv[n++] = script;
	argv[n++] = a->command;
	argv[n++] = "--out";
	argv[n++] = a->out;
	if (len > 0) {
		argv[n++] = "--rtthrottle";
		argv[n++] = self;
	}
	if (a->baseline) {
		argv[n++] = "--baseline";
		argv[n++] = a->baseline;
	}
	for (int i = 0; i < a->trend_count; i++) {
		argv[n++] = "--trend";
		argv[n++] = a->trends[i];
	}
	for (int i = 0; i < compare_count; i++) {
		argv[n++] = "--compare";
		argv[n++] = compares[i];
	}
	argv[n++] = "--";
	for (int i = 0; i < a->file_count; i++)
		argv[n++] = a->files[i];
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(python, (char *const *)argv);
		rtt_cmd_err(a->command, "cannot run %s: %s (apt-get install python3 python3-matplotlib)", python,
			    strerror(errno));
		_exit(EXIT_USAGE);
	}
	free(argv);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		rtt_cmd_err(a->command, "cannot start %s: %s", python, strerror(errno));
		return EXIT_USAGE;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return EXIT_ALL_PASSED;
	rtt_cmd_err(a->command, "%s %s failed (see above)", python, script);
	return EXIT_USAGE;
}

static int plot_or_report(int argc, char **argv, const char *command)
{
	struct plot_args a = { .command = command };
	json_object **tables = NULL;
	char **compares = NULL;
	int status = parse(argc, argv, &a), err;

	if (status)
		return status < 0 ? EXIT_ALL_PASSED : status;
	if (!files_valid(&a))
		return EXIT_USAGE;
	/* Inputs that cannot be compared are refused before anything is written. */
	if (!strcmp(command, "report") && a.baseline && !(tables = run_compares(&a)))
		return EXIT_USAGE;
	err = make_dirs(a.out, 0755);
	if (err) {
		rtt_cmd_err(command, "--out %s: cannot create: %s", a.out, strerror(err));
		status = EXIT_USAGE;
	} else if (tables && !(compares = write_compares(&a, tables))) {
		status = EXIT_USAGE;
	} else {
		status = run_script(&a, compares, compares ? a.file_count : 0);
	}
	for (int i = 0; i < a.file_count; i++) {
		if (tables)
			json_object_put(tables[i]);
		if (compares)
			free(compares[i]);
	}
	free(tables);
	free(compares);
	return status;
}

int cmd_plot(int argc, char **argv)
{
	return plot_or_report(argc, argv, "plot");
}

int cmd_report(int argc, char **argv)
{
	return plot_or_report(argc, argv, "report");
}
