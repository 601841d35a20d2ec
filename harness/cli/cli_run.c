// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle run`: options, validation (nothing on the system changes before it passes), run. */
#include "commands.h"
#include "record.h"
#include "fair_server.h"
#include "knob_explain.h"
#include "load.h"
#include "run.h"
#include "results.h"
#include "sysinfo.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rtthrottle run [OPTIONS]\n\n"
		"Runs scenarios under throttling policies, judges each result against what the policy\n"
		"promises on this kernel, prints KTAP on stdout and progress on stderr, writes JSON.\n"
		"The knobs are saved first and restored after every window, on error, on SIGINT/\n"
		"SIGTERM/SIGHUP, and by a guardian process if the harness itself is killed.\n"
		"Without root it runs what it may (policies equal to the knobs in force; realtime tasks\n"
		"within CAP_SYS_NICE or RLIMIT_RTPRIO) and skips the rest, saying what is missing.\n\n"
		"  --suite NAME          quick (default, under 2 minutes), full (every scenario) or\n"
		"  --suite debate        the 2008 debate: key scenarios under its policies, with a table\n"
		"  --suite mutants       quick and the scenarios make mutants' kernels need besides\n"
		"                        (fair-server-defer at no limit: a fair server that stops deferring)\n"
		"  --scenario NAMES      comma-separated scenarios instead of a suite (see 'rtthrottle list')\n"
		"  --scenario-file PATH  add a scenario from a JSON file (repeatable); runs it unless\n"
		"                        --scenario or --suite choose otherwise\n"
		"  --policy NAMES        comma-separated policies instead of each scenario's defaults\n"
		"  --runtime-us N        an ad-hoc policy: RT runtime per period in us (-1: no limit)\n"
		"  --period-us N         its period in us (default 1000000)\n"
		"  --grid AXES           a knob grid: every row crossed with every period, each cell a\n"
		"                        policy named r<row>p<period> (r0.95p100ms); AXES is\n"
		"                        ratios=LIST (runtime/period, 0 to 1) or runtimes=LIST, and\n"
		"                        periods=LIST, blank-separated or in two --grid options; times\n"
		"                        take a unit (us, ms, s), e.g. --grid 'ratios=0.5,0.95\n"
		"                        periods=50ms,1s'. Runs fifo-hog-share unless --scenario or\n"
		"                        --suite say otherwise; cells the kernel refuses (runtime over\n"
		"                        period, below the deadline floor) are skipped with why; an\n"
		"                        axis fair_server=0,10ms,50ms repeats the grid for each fair-\n"
		"                        server runtime (against its 1 s period; 0: off)\n"
		"  --fair-server R/P[,R/P...]\n"
		"                        every policy without its own sets the deadline fair server\n"
		"                        (6.12+, debugfs sched/fair_server) of every online CPU to\n"
		"                        runtime R of period P, with units (50ms/1s), or 0 (off, the\n"
		"                        period kept); named -fsR; with a list (at most 6), once with\n"
		"                        each (0,10ms/1s,50ms/1s). Saved and restored like the\n"
		"                        sysctls; where debugfs cannot be read or written such\n"
		"                        policies are skipped with why (policies rt-no-fair-server\n"
		"                        and posix set it themselves)\n"
		"  --fair-server-cpus all|measured\n"
		"                        which CPUs' fair servers such policies set: every online CPU\n"
		"                        (default) or the measured ones only (--cpu); the others keep\n"
		"                        theirs and are neither read nor restored\n"
		"  --cpu LIST|last|per-node\n"
		"                        the measured CPUs: a list (1 or 1,3 or 2-3), the last online CPU\n"
		"                        (default) or each NUMA node's last online CPU; the first one\n"
		"                        carries the judged tasks, the others copies of them\n"
		"  --allow-cpu0          allow CPU 0 on a machine with 2 CPUs or fewer\n"
		"  --duration SECONDS    measuring window of each result (default 3; whole periods are best)\n"
		"  --repeat N            repetitions of each scenario x policy (default 1)\n"
		"  --noise-seconds S     noise-floor window before the policies (default: as long as\n"
		"                        the longest window planned, at least 1 s and at most 3 s)\n"
		"  --probe-seconds S     each regime-probe window, two (three on PREEMPT_RT) (default 2;\n"
		"                        0 skips the probe)\n"
		"  --load NAME           background load in every window, on the CPUs other than the\n"
		"                        measured one, at SCHED_OTHER: hackbench (rt-tests, run again\n"
		"                        and again), stress-ng (--cpu, one worker a CPU) or none (also\n"
		"                        turns off a scenario's own \"load\"); recorded as task \"load\"\n"
		"  --output FILE         results JSON (default results/<UTC time>-<host>.json)\n"
		"  --record DIR          also keep each window's raw measurements in DIR (a new or empty\n"
		"                        folder; about 0.1-1 MB a window): 'rtthrottle judge DIR'\n"
		"                        judges them again offline, with the checks of its own build\n"
		"  --trace, --no-trace   record sched_switch on the measured CPU as ground truth for\n"
		"                        each case's gaps (default on; mounts tracefs if needed)\n"
		"  --site-setting NAME=VALUE\n"
		"                        a kernel setting this site sets on purpose (repeatable): the\n"
		"                        kernel-defaults result expects VALUE instead of the kernel's\n"
		"                        documented default. NAME: sched_rt_runtime_us, sched_rt_period_us,\n"
		"                        cpu.rt_runtime_us, cpu.rt_period_us (root cgroup), fair_server_\n"
		"                        runtime_ns, fair_server_period_ns, RT_RUNTIME_SHARE (on/off),\n"
		"                        sched_rr_timeslice_ms, RLIMIT_RTTIME (us or unlimited)\n"
		"  --settle MODE         between windows, so none inherits RT time another ran up:\n"
		"                        timer (default: until the kernel's RT period timers fire, read\n"
		"                        from /proc/timer_list; a window ends just before a firing,\n"
		"                        at most a tenth early; a whole period where unreadable),\n"
		"                        period (a whole RT period) or none (windows may inherit it)\n"
		"  --quiet               no progress on stderr\n"
		EXPORT_OPTION_HELP
		"  --help                this text\n\n"
		"Besides the scenarios every run reports two results: regime-probe (the regime the kernel\n"
		"shows against the one its version and config predict; SKIP with --probe-seconds 0) and\n"
		"kernel-defaults (the settings in force against the kernel's documented defaults).\n\n"
		"Exit status: 0 all checks passed, 1 a check failed, 2 usage or bad input, 4 everything\n"
		"skipped (e.g. nothing may run without root), 125 nothing failed but something could not\n"
		"be judged (an error, a run cut short, or a skipped or unjudged result in a run with every\n"
		"privilege; "
		"`git bisect run` skips such a commit), 128+N stopped by signal N (knobs restored).\n");
}

enum {
	OPT_SUITE = 256, OPT_SCENARIO, OPT_POLICY, OPT_RUNTIME, OPT_PERIOD, OPT_CPU, OPT_ALLOW_CPU0,
	OPT_DURATION, OPT_REPEAT, OPT_NOISE, OPT_PROBE, OPT_OUTPUT, OPT_QUIET, OPT_HELP, OPT_SCENARIO_FILE,
	OPT_LOAD, OPT_TRACE, OPT_NO_TRACE, OPT_GRID, OPT_SITE_SETTING, OPT_SETTLE, OPT_FAIR_SERVER,
	OPT_FAIR_SERVER_CPUS, OPT_RECORD,
};

static const struct option long_options[] = {
	{ "suite", required_argument, NULL, OPT_SUITE },
	{ "scenario", required_argument, NULL, OPT_SCENARIO },
	{ "scenario-file", required_argument, NULL, OPT_SCENARIO_FILE },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "runtime-us", required_argument, NULL, OPT_RUNTIME },
	{ "period-us", required_argument, NULL, OPT_PERIOD },
	{ "grid", required_argument, NULL, OPT_GRID },
	{ "fair-server", required_argument, NULL, OPT_FAIR_SERVER },
	{ "fair-server-cpus", required_argument, NULL, OPT_FAIR_SERVER_CPUS },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "allow-cpu0", no_argument, NULL, OPT_ALLOW_CPU0 },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "noise-seconds", required_argument, NULL, OPT_NOISE },
	{ "probe-seconds", required_argument, NULL, OPT_PROBE },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "site-setting", required_argument, NULL, OPT_SITE_SETTING },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "no-trace", no_argument, NULL, OPT_NO_TRACE },
	{ "settle", required_argument, NULL, OPT_SETTLE },
	{ "help", no_argument, NULL, OPT_HELP },
	EXPORT_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

#define GRID_SCENARIO "fifo-hog-share"

#define bad(...) usage_error("run", __VA_ARGS__)

/* --record DIR: new, or a folder without recordings (one run's windows, in order); made here. */
static int check_record_dir(const char *dir)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	bool used = false;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return bad("--record %s: not a folder", dir);
		if (!(d = opendir(dir)))
			return bad("--record %s: cannot read it: %s", dir, strerror(errno));
		while ((e = readdir(d)))
			used |= !strcmp(e->d_name, "run.json") || strstr(e->d_name, RECORD_SUFFIX);
		closedir(d);
		if (used)
			return bad("--record %s: already holds a run's recordings; give a new or empty folder", dir);
	}
	return record_dir_prepare(dir) ? 0 : EXIT_USAGE;
}

struct raw_args {
	const char *suite, *scenarios, *policies, *runtime, *period, *cpu, *output;
	const char *files[RUN_SCENARIOS_MAX];
	const struct scenario *added[RUN_SCENARIOS_MAX];
	int file_count;
	bool allow_cpu0;
	bool fair_server_measured;	/* --fair-server-cpus measured */
};

static int add_policies(struct run_options *opt, const char *names)
{
	char list[512], *save = NULL;

	snprintf(list, sizeof(list), "%s", names);
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (opt->policy_count == RUN_POLICIES_MAX)
			return bad("--policy: more than %d policies", RUN_POLICIES_MAX);
		if (!policy_find(name, &opt->policy[opt->policy_count]))
			return bad("--policy: unknown policy '%s'; 'rtthrottle list policies' shows them", name);
		opt->policy_count++;
	}
	return opt->policy_count ? 0 : bad("--policy: empty list '%s'", names);
}

static int add_scenarios(struct run_options *opt, const struct raw_args *raw)
{
	char list[512], *save = NULL;

	if (!raw->scenarios && !raw->suite && raw->file_count) {
		/* Files given alone: run just those. */
		for (int i = 0; i < raw->file_count; i++)
			opt->scenario[opt->scenario_count++] = raw->added[i];
		return 0;
	}
	/* A grid alone asks what the knobs promise: the hog and its CFS victim. */
	if (!raw->scenarios && !raw->suite && opt->grid.row_count) {
		const struct scenario *s = scenario_find(GRID_SCENARIO);

		if (!s)
			return bad("--grid: the scenario %s is not in the catalogue; give --scenario", GRID_SCENARIO);
		opt->scenario[opt->scenario_count++] = s;
		return 0;
	}
	if (raw->scenarios) {
		snprintf(list, sizeof(list), "%s", raw->scenarios);
		for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
			const struct scenario *s = scenario_find(name);

			if (!s)
				return bad("--scenario: unknown scenario '%s'; 'rtthrottle list' shows them", name);
			if (opt->scenario_count == RUN_SCENARIOS_MAX)
				return bad("--scenario: too many scenarios");
			opt->scenario[opt->scenario_count++] = s;
		}
		return opt->scenario_count ? 0 : bad("--scenario: empty list '%s'", raw->scenarios);
	}
	size_t count;
	const struct scenario *all = scenario_catalogue(&count);

	for (size_t i = 0; i < count && opt->scenario_count < RUN_SCENARIOS_MAX; i++)
		if (scenario_in_suite(&all[i], opt->suite))
			opt->scenario[opt->scenario_count++] = &all[i];
	return 0;
}

static int add_adhoc(struct run_options *opt, const struct raw_args *raw)
{
	int64_t runtime, period = 1000000;
	const char *why;

	if (!raw->runtime) {
		if (raw->period)
			return bad("--period-us %s needs --runtime-us", raw->period);
		return 0;
	}
	if (!parse_i64(raw->runtime, -1, INT32_MAX, &runtime))
		return bad("--runtime-us: '%s' is not a number from -1 to 2147483647", raw->runtime);
	if (raw->period && !parse_i64(raw->period, 1, INT32_MAX, &period))
		return bad("--period-us: '%s' is not a number from 1 to 2147483647", raw->period);
	why = policy_pair_invalid(runtime, period);
	if (why)
		return bad("--runtime-us %s with the period: %s", raw->runtime, why);
	if (opt->policy_count == RUN_POLICIES_MAX)
		return bad("too many policies");
	policy_make_adhoc(runtime, period, &opt->policy[opt->policy_count++]);
	return 0;
}

static int choose_cpu(struct run_options *opt, const struct raw_args *raw)
{
	static struct topology topo;
	char why[256];

	topology_read(&topo);
	if (!placement_choose(raw->cpu, &topo, raw->allow_cpu0, opt->cpus, &opt->cpu_count, why, sizeof(why)))
		return bad("%s", why);
	opt->cpu = opt->cpus[0];
	/* Before any plan: the CPUs left alone keep their servers, which the plans must allow for. */
	if (raw->fair_server_measured && !fair_server_set_cpus(opt->cpus, opt->cpu_count))
		return bad("--fair-server-cpus measured: %d CPUs, at most %d", opt->cpu_count, FAIR_SERVER_CPUS_MAX);
	return 0;
}

static int choose_output(struct run_options *opt, const struct raw_args *raw)
{
	char why[PATH_MAX + 64];

	if (raw->output) {
		if (snprintf(opt->output, sizeof(opt->output), "%s", raw->output) >= (int)sizeof(opt->output))
			return bad("--output: path too long");
	} else {
		char host[64] = "unknown", stamp[32];
		int err = make_dirs("results", 0755);

		if (err)
			return bad("cannot create the folder 'results': %s", strerror(err));
		gethostname(host, sizeof(host));
		format_utc(realtime_ns(), stamp, sizeof(stamp), true);
		snprintf(opt->output, sizeof(opt->output), "results/%s-%s.json", stamp, host);
	}
	if (!results_path_writable(opt->output, why, sizeof(why)))
		return bad("--output %s: cannot write there: %s", opt->output, why);
	return export_options_check(&opt->exports, "run", opt->output, "--output") ? 0 : EXIT_USAGE;
}

/* --fair-server's comma-separated settings, each checked as the kernel would. */
static int parse_fair_servers(struct run_options *opt, const char *list)
{
	char copy[256], why[200], *save = NULL;

	if (snprintf(copy, sizeof(copy), "%s", list) >= (int)sizeof(copy))
		return bad("--fair-server '%s': too long", list);
	opt->fair_server_count = 0;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (opt->fair_server_count == RUN_FAIR_SERVERS_MAX)
			return bad("--fair-server '%s': at most %d settings", list, RUN_FAIR_SERVERS_MAX);
		if (!policy_fair_server_parse(item, &opt->fair_server[opt->fair_server_count], why, sizeof(why)))
			return bad("--fair-server '%s': %s", item, why);
		for (int i = 0; i < opt->fair_server_count; i++)
			if (!memcmp(&opt->fair_server[i], &opt->fair_server[opt->fair_server_count], sizeof(opt->fair_server[i])))
				return bad("--fair-server '%s': '%s' given twice", list, item);
		opt->fair_server_count++;
	}
	return opt->fair_server_count ? 0 : bad("--fair-server '%s': an empty list", list);
}

/* Each scenario's policies, times --fair-server's settings, fit a run (RUN_CASE_POLICIES_MAX). */
static int check_policy_count(const struct run_options *opt)
{
	struct run_options once = *opt;
	struct policy policies[RUN_CASE_POLICIES_MAX];

	once.fair_server_count = 0;
	for (int i = 0; i < opt->scenario_count; i++) {
		int n = run_policies(&once, opt->scenario[i], policies), total = 0;

		for (int k = 0; k < n; k++)
			total += policies[k].fair_server.set || !opt->fair_server_count ? 1 : opt->fair_server_count;
		if (total > RUN_CASE_POLICIES_MAX)
			return bad("--fair-server: %s would run %d policies, at most %d", opt->scenario[i]->name, total,
				   RUN_CASE_POLICIES_MAX);
	}
	return 0;
}

/*
 * Where the fair server cannot be read yet (debugfs not mounted, or refused), its policies are
 * planned from the one the deadline floor assumes: a pair such as RT 0.4 with a fair server of
 * 0.6 is refused wherever it runs.
 */
static struct knobs assume_fair_server(const struct knobs *now, const struct dl_floor *floor)
{
	struct knobs k = *now;

	if (!k.has_fair_server) {
		k.has_fair_server = true;
		k.value[KNOB_FAIR_SERVER_RUNTIME] = floor->runtime_us * 1000;
		k.value[KNOB_FAIR_SERVER_PERIOD] = floor->period_us * 1000;
	}
	return k;
}

/*
 * Bad input changes nothing: a policy the kernel would refuse (below the deadline floor, say),
 * or one the knobs could not come back from, is refused here, before the first write.
 */
static int check_policies_plannable(const struct run_options *opt)
{
	const struct dl_floor *floor = dl_floor_of_system();
	struct policy policies[RUN_CASE_POLICIES_MAX];	/* run_policies writes grid cells too */
	struct knobs read_now, now;
	char why[400];

	if (!knobs_read(&read_now))
		return 0;	/* the run says so, with the file it could not read */
	for (int i = 0; i < opt->scenario_count; i++) {
		int count = run_policies(opt, opt->scenario[i], policies);

		for (int k = 0; k < count; k++) {
			struct knobs target;

			now = policies[k].fair_server.set ? assume_fair_server(&read_now, floor) : read_now;
			target = knobs_for_policy(&now, &policies[k]);
			struct knob_plan there, back;

			/* A grid cell the kernel refuses is a skipped cell with its reason, not bad input. */
			if (policies[k].grid.cells)
				continue;
			if (knob_plan_make(&now, &target, floor, &there) && knob_plan_make(&target, &now, floor, &back))
				continue;
			knob_plan_refusal(&now, &target, floor, why, sizeof(why));
			return bad("%s (scenario %s): %s", policies[k].name, opt->scenario[i]->name, why);
		}
	}
	return 0;
}

static void join_cmdline(struct run_options *opt, int argc, char **argv)
{
	size_t used = snprintf(opt->cmdline, sizeof(opt->cmdline), "rtthrottle");

	for (int i = 0; i < argc && used < sizeof(opt->cmdline); i++)
		used += snprintf(opt->cmdline + used, sizeof(opt->cmdline) - used, " %s", argv[i]);
}

int cmd_run(int argc, char **argv)
{
	struct run_options opt = { .duration_s = 3, .noise_s = 0, .probe_s = 2, .repeat = 1, .suite = "quick",
				  .load_tool = -1, .trace = true, .settle = SETTLE_TIMER };
	struct raw_args raw = { 0 };
	int64_t repeat;
	int c, err;
	char why[256];

	join_cmdline(&opt, argc, argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_SUITE: raw.suite = optarg; break;
		case OPT_SCENARIO: raw.scenarios = optarg; break;
		case OPT_SCENARIO_FILE:
			if (raw.file_count == RUN_SCENARIOS_MAX)
				return bad("--scenario-file: too many files");
			raw.files[raw.file_count++] = optarg;
			break;
		case OPT_POLICY: raw.policies = optarg; break;
		case OPT_RUNTIME: raw.runtime = optarg; break;
		case OPT_PERIOD: raw.period = optarg; break;
		case OPT_GRID:
			if (!grid_parse(&opt.grid, optarg, why, sizeof(why)))
				return bad("--grid %s: %s", optarg, why);
			break;
		case OPT_FAIR_SERVER:
			if ((err = parse_fair_servers(&opt, optarg)))
				return err;
			break;
		case OPT_FAIR_SERVER_CPUS:
			if (!fair_server_cpus_choice(optarg, &raw.fair_server_measured))
				return bad("--fair-server-cpus: unknown choice '%s' (all or measured)", optarg);
			break;
		case OPT_CPU: raw.cpu = optarg; break;
		case OPT_ALLOW_CPU0: raw.allow_cpu0 = true; break;
		case OPT_OUTPUT: raw.output = optarg; break;
		case OPT_RECORD:
			if (snprintf(opt.record_dir, sizeof(opt.record_dir), "%s", optarg) >= (int)sizeof(opt.record_dir) - 32)
				return bad("--record: path too long");
			break;
		case OPT_QUIET: opt.quiet = true; break;
		case OPT_LOAD:
			if ((opt.load_tool = load_tool_find(optarg)) < 0)
				return bad("--load: unknown load '%s' (%s)", optarg, load_tool_names());
			break;
		case OPT_SITE_SETTING:
			if (!site_setting_parse(&opt.site, optarg, why, sizeof(why)))
				return bad("--site-setting '%s': %s", optarg, why);
			break;
		case OPT_TRACE: opt.trace = true; break;
		case OPT_NO_TRACE: opt.trace = false; break;
		case OPT_SETTLE:
			if (!strcmp(optarg, "timer"))
				opt.settle = SETTLE_TIMER;
			else if (!strcmp(optarg, "period"))
				opt.settle = SETTLE_PERIOD;
			else if (!strcmp(optarg, "none"))
				opt.settle = SETTLE_NONE;
			else
				return bad("--settle: unknown mode '%s' (timer, period or none)", optarg);
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0.1, 3600, &opt.duration_s))
				return bad("--duration: '%s' is not a number of seconds from 0.1 to 3600", optarg);
			break;
		case OPT_NOISE:
			if (!parse_double(optarg, 0.1, 600, &opt.noise_s))
				return bad("--noise-seconds: '%s' is not a number of seconds from 0.1 to 600", optarg);
			break;
		case OPT_PROBE:
			if (!parse_double(optarg, 0, 600, &opt.probe_s) || (opt.probe_s > 0 && opt.probe_s < 1.1))
				return bad("--probe-seconds: '%s' must be 0 (skip) or 1.1 to 600 seconds (more than one period)", optarg);
			break;
		case OPT_REPEAT:
			if (!parse_i64(optarg, 1, 1000, &repeat))
				return bad("--repeat: '%s' is not a count from 1 to 1000", optarg);
			opt.repeat = (int)repeat;
			break;
		case OPT_HELP:
			usage(stdout);
			return EXIT_ALL_PASSED;
		default:
			if (export_option(&opt.exports, c, optarg))
				break;
			return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (!site_settings_consistent(&opt.site, why, sizeof(why)))
		return bad("--site-setting: %s", why);
	if ((opt.grid.row_count || opt.grid.period_count) && !grid_complete(&opt.grid, why, sizeof(why)))
		return bad("--grid: %s", why);
	if (!scenario_read_catalogue())
		return EXIT_USAGE;
	for (int i = 0; i < raw.file_count; i++)
		if (!(raw.added[i] = scenario_add_file(raw.files[i])))
			return EXIT_USAGE;
	if (raw.suite && raw.scenarios)
		return bad("--suite %s and --scenario %s both choose scenarios; give one", raw.suite, raw.scenarios);
	if (raw.suite) {
		if (!suite_known(raw.suite))
			return bad("--suite: unknown suite '%s'; known: " SUITES_KNOWN, raw.suite);
		opt.suite = raw.suite;
	}
	/* The debate's policies: strict POSIX, the default, the ten-second window, all of RT. */
	if (!strcmp(opt.suite, "debate") && !raw.scenarios && !raw.policies && (err = add_policies(&opt, "default,unlimited,ten-second-window,full")))
		return err;
	if ((err = add_scenarios(&opt, &raw)) || (raw.policies && (err = add_policies(&opt, raw.policies))) ||
	    (err = add_adhoc(&opt, &raw)) || (err = choose_cpu(&opt, &raw)) || (err = load_check_tools(&opt)) ||
	    (err = check_policy_count(&opt)) || (err = check_policies_plannable(&opt)) || (err = choose_output(&opt, &raw)))
		return err;
	if (opt.record_dir[0] && (err = check_record_dir(opt.record_dir)))
		return err;
	{
		int64_t period;

		opt.restored_period_us = read_i64_file("/proc/sys/kernel/sched_rt_period_us", &period) ? period : 1000000;
	}
	return run_execute(&opt);
}
