// SPDX-License-Identifier: GPL-2.0-only
/*
 * `rtthrottle soak`: runs the quick suite N times (each an `rtthrottle run` of its own, so one
 * suite's state never leaks into the next) and writes per check and per scenario how often it
 * was judged, failed (a false alarm on a kernel presumed healthy), was unjudged or not measured,
 * and how close it came to its bound. `--from FILES` only gathers results files already written.
 */
#include "commands.h"
#include "plot_script.h"
#include "soak.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN_ARGS_MAX 64

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rtthrottle soak [OPTIONS] [-- RUN OPTIONS]\n"
		"       rtthrottle soak --from [--out DIR] RESULTS...\n\n"
		"Runs the quick suite N times on this kernel (each suite one 'rtthrottle run', about\n"
		"100 s here) and writes, per check (case and task.metric) and per scenario: windows\n"
		"judged, false alarms (failed checks: on a healthy kernel each is the suite's own\n"
		"error), unjudged, not measured, and the margin distribution (median, 1st percentile,\n"
		"worst). A margin is how far the measured value stayed from its bound as a fraction of\n"
		"the tolerance: 1 at the expected value, 0 at the bound, below 0 failed. Every check that\n"
		"failed or came within 10%% of its bound is flagged. Progress (suite, ETA) on stderr.\n\n"
		"Options:\n"
		"  --runs N        suites to run (default 10)\n"
		"  --out DIR       where to write (default results/soak-<UTC time>): suite-NN.json\n"
		"                  (and .ktap, .log) per suite, soak.json, soak.txt and soak.png (when\n"
		"                  matplotlib is there)\n"
		"  --record        each suite also keeps its windows' raw measurements in\n"
		"                  DIR/suite-NN.rec/ (run --record): 'rtthrottle judge' and 'make power'\n"
		"                  judge them again\n"
		"  --from          run nothing: gather the RESULTS files given (table on stdout; the\n"
		"                  files above too with --out)\n"
		"  -h, --help      this text\n\n"
		"RUN OPTIONS after '--' go to every 'rtthrottle run' (default --suite quick), e.g.\n"
		"'-- --scenario fifo-hog-share'; --output is the soak's own.\n\n"
		"Exit status: 0 no check failed in any suite and every suite completed, 1 a check\n"
		"failed (a false alarm) or a suite failed to run or complete, 2 usage or bad input\n"
		"(or a suite refused its options), 128+N stopped by signal N (the suites done so far\n"
		"are still gathered).\n");
}

#define bad(...) usage_error("soak", __VA_ARGS__)

struct soak_args {
	int runs;
	const char *out;
	bool from;
	char **files;		/* --from: RESULTS; else the run options after -- */
	int file_count;
	bool record;		/* each suite keeps its windows' raw measurements (run --record) */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static int parse(int argc, char **argv, struct soak_args *a)
{
	enum { OPT_RUNS = 1, OPT_OUT, OPT_FROM, OPT_RECORD };
	static const struct option options[] = {
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "from", no_argument, NULL, OPT_FROM },
		{ "record", no_argument, NULL, OPT_RECORD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t runs;
	int c, end = argc;

	/* What follows '--' is the run's; the soak's own options may stand among the RESULTS. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			end = i;
			break;
		}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(end, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case OPT_RUNS:
			if (!parse_i64(optarg, 1, 1000, &runs))
				return bad("--runs: '%s' is not a count from 1 to 1000", optarg);
			a->runs = (int)runs;
			break;
		case OPT_OUT: a->out = optarg; break;
		case OPT_FROM: a->from = true; break;
		case OPT_RECORD: a->record = true; break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (a->from) {
		a->files = argv + optind;
		a->file_count = end - optind;
		if (end < argc)
			return bad("--from runs nothing: no run options after '--'");
		return a->file_count ? 0 : bad("--from needs at least one results file");
	}
	if (optind < end)
		return bad("unexpected argument '%s' (results files need --from; run options go after '--')",
			   argv[optind]);
	a->files = argv + end + (end < argc);
	a->file_count = argc - end - (end < argc);
	if (a->file_count > RUN_ARGS_MAX)
		return bad("more than %d run options", RUN_ARGS_MAX);
	for (int i = 0; i < a->file_count; i++)
		if (!strncmp(a->files[i], "--output", 8) || !strncmp(a->files[i], "--record", 8))
			return bad("'%s': each suite's output is the soak's (--out DIR, --record)", a->files[i]);
	if (a->record && a->from)
		return bad("--from runs nothing: nothing to --record");
	return 0;
}

/* Forks argv[0] with stdout and stderr into files (NULL: inherited); its exit status, 128+N for a
 * signal, or -1. SIGINT/SIGTERM/SIGHUP meanwhile reach it too and end the soak after it. */
static int spawn_wait(char *const *argv, const char *out_path, const char *err_path)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		const char *paths[2] = { out_path, err_path };

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		for (int i = 0; i < 2; i++) {
			int fd = paths[i] ? open(paths[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;

			if (paths[i] && (fd < 0 || dup2(fd, i + 1) < 0))
				_exit(127);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	for (bool forwarded = false;;) {
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			return -1;
		/* A signal sent to the soak alone (not its process group) still stops the suite. */
		if (stop_signal && !forwarded) {
			kill(pid, stop_signal);
			forwarded = true;
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/* DIR/soak.json, soak.txt and soak.png; false when a file could not be written. */
static bool write_outputs(const struct soak *s, const char *dir)
{
	char path[PATH_MAX], script[PATH_MAX];
	json_object *doc = soak_to_json(s);
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	char *table = NULL;
	size_t table_len = 0;
	FILE *mem = open_memstream(&table, &table_len);
	int err;

	snprintf(path, sizeof(path), "%.4000s/soak.json", dir);
	err = write_file_atomic(path, text, strlen(text));
	json_object_put(doc);
	if (!err && mem) {
		soak_print(mem, s);
		fclose(mem);
		snprintf(path, sizeof(path), "%.4000s/soak.txt", dir);
		err = write_file_atomic(path, table, table_len);
	} else if (!mem) {
		err = errno;
	}
	free(table);
	if (err) {
		rtt_cmd_err("soak", "cannot write %s: %s", path, strerror(err));
		return false;
	}
	/* The plot is a bonus: without matplotlib the tables stand alone. */
	if (plot_script_find(script, sizeof(script))) {
		char json_path[PATH_MAX];
		const char *python = plot_python();
		char *argv[] = { (char *)python, script, "soak", "--out", (char *)dir, json_path, NULL };
		int status;

		snprintf(json_path, sizeof(json_path), "%.4000s/soak.json", dir);
		status = spawn_wait(argv, "/dev/null", NULL);
		if (status)
			rtt_cmd_err("soak", "no plot (%s %s soak exited %d); the tables are written", python,
				script, status);
	}
	return true;
}

static void format_minutes(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%.1f min", s / 60);
}

/* Runs the suites into dir, adding each file as it lands; the exit status of the soak. */
static int run_suites(const struct soak_args *a, const char *dir, struct soak *s)
{
	char self[PATH_MAX], out[PATH_MAX], ktap[PATH_MAX], log[PATH_MAX], rec[PATH_MAX];
	char *argv[RUN_ARGS_MAX + 8];
	bool has_choice = false, problem = false;
	uint64_t t0 = now_ns();
	int n = 0, status = 0;

	self_path(self, sizeof(self));
	for (int i = 0; i < a->file_count; i++)
		has_choice |= !strncmp(a->files[i], "--suite", 7) || !strncmp(a->files[i], "--scenario", 10) ||
			      !strncmp(a->files[i], "--grid", 6);
	argv[n++] = self;
	argv[n++] = "run";
	if (!has_choice) {
		argv[n++] = "--suite";
		argv[n++] = "quick";
	}
	for (int i = 0; i < a->file_count; i++)
		argv[n++] = a->files[i];
	argv[n++] = "--output";
	argv[n++] = out;
	if (a->record) {
		argv[n++] = "--record";
		argv[n++] = rec;
	}
	argv[n] = NULL;
	for (int k = 1; k <= a->runs; k++) {
		double elapsed = (double)(now_ns() - t0) / 1e9;
		char eta[48] = "unknown until the first suite ends";
		int before = 0;

		if (k > 1)
			format_minutes(elapsed / (k - 1) * (a->runs - k + 1), eta, sizeof(eta));
		fprintf(stderr, "soak: suite %d of %d (ETA %s)\n", k, a->runs, eta);
		snprintf(out, sizeof(out), "%.4000s/suite-%02d.json", dir, k);
		snprintf(ktap, sizeof(ktap), "%.4000s/suite-%02d.ktap", dir, k);
		snprintf(log, sizeof(log), "%.4000s/suite-%02d.log", dir, k);
		snprintf(rec, sizeof(rec), "%.4000s/suite-%02d.rec", dir, k);
		for (int i = 0; i < s->scenario_count; i++)
			before += s->scenarios[i].c.failed;
		status = spawn_wait(argv, ktap, log);
		if (status == EXIT_USAGE || status == EXIT_ALL_SKIPPED || status < 0 || status == 127) {
			fprintf(stderr, "soak: suite %d: 'rtthrottle run' exited %d (%s): stopping; see %s\n", k, status,
				status == EXIT_USAGE ? "refused its options, or another run holds the lock"
				: status == EXIT_ALL_SKIPPED ? "nothing could run: not root?" : "could not start", log);
			/* Bad options show in the first suite; later, a refusal (another run holds the
			 * lock) ends the soak with the suites gathered so far. */
			return status == EXIT_USAGE && k == 1 ? EXIT_USAGE : EXIT_CHECK_FAILED;
		}
		if (access(out, R_OK) || !soak_add_file(s, out)) {
			fprintf(stderr, "soak: suite %d wrote no readable results (exit %d); see %s\n", k, status, log);
			problem = true;
		} else {
			int after = 0;

			for (int i = 0; i < s->scenario_count; i++)
				after += s->scenarios[i].c.failed;
			fprintf(stderr, "soak: suite %d of %d done in %.0f s: exit %d, %d check%s failed (%d so far)\n", k,
				a->runs, (double)(now_ns() - t0) / 1e9 - elapsed, status, after - before,
				after - before == 1 ? "" : "s", after);
		}
		if (status != EXIT_ALL_PASSED && status != EXIT_CHECK_FAILED && status != EXIT_NOT_JUDGED)
			problem = true;
		if (stop_signal || status > 128) {
			fprintf(stderr, "soak: stopped by signal after %d of %d suites; gathering those\n", k, a->runs);
			return 128 + (stop_signal ? stop_signal : status - 128);
		}
	}
	return problem ? EXIT_CHECK_FAILED : EXIT_ALL_PASSED;
}

static int total_failed(const struct soak *s)
{
	int n = 0;

	for (int i = 0; i < s->scenario_count; i++)
		n += s->scenarios[i].c.failed;
	return n;
}

int cmd_soak(int argc, char **argv)
{
	struct soak_args a = { .runs = 10 };
	struct soak s = { 0 };
	char dir[PATH_MAX];
	int status = parse(argc, argv, &a), err;

	if (status)
		return status < 0 ? EXIT_ALL_PASSED : status;
	if (a.from) {
		for (int i = 0; i < a.file_count; i++)
			if (!soak_add_file(&s, a.files[i])) {
				soak_free(&s);
				return EXIT_USAGE;
			}
		status = EXIT_ALL_PASSED;
	} else {
		struct sigaction sa = { .sa_handler = on_stop };
		char stamp[32];

		if (a.out) {
			snprintf(dir, sizeof(dir), "%s", a.out);
		} else {
			format_utc(realtime_ns(), stamp, sizeof(stamp), true);
			snprintf(dir, sizeof(dir), "results/soak-%s", stamp);
		}
		if ((err = make_dirs(dir, 0755)))
			return bad("--out %s: cannot create: %s", dir, strerror(err));
		a.out = dir;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		status = run_suites(&a, dir, &s);
		/* Nothing gathered (the first suite refused or could not run): no empty table. */
		if (status == EXIT_USAGE || !s.suites) {
			soak_free(&s);
			return status;
		}
	}
	soak_finish(&s);
	soak_print(stdout, &s);
	if (a.out) {
		if ((err = make_dirs(a.out, 0755)))
			status = bad("--out %s: cannot create: %s", a.out, strerror(err));
		else if (!write_outputs(&s, a.out))
			status = EXIT_CHECK_FAILED;
		else
			fprintf(stderr, "soak: wrote %s/soak.json and soak.txt\n", a.out);
	}
	if (status == EXIT_ALL_PASSED && (total_failed(&s) || s.incomplete))
		status = EXIT_CHECK_FAILED;
	soak_free(&s);
	return status;
}
