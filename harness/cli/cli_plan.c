// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle plan R P`: the order of knob writes to a policy and back, with why each is valid. Writes nothing. */
#include "commands.h"
#include "json_util.h"
#include "dl_floor.h"
#include "fair_server.h"
#include "knob_explain.h"
#include "knob_plan.h"
#include "util.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum {
	OPT_FROM = 256,
	OPT_CGROUP,
	OPT_NO_CGROUP,
	OPT_FAIR_SERVER,
	OPT_SET_FAIR_SERVER,
	OPT_FAIR_SERVER_CPUS,
	OPT_JSON,
	OPT_HELP,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rtthrottle plan [OPTIONS] RUNTIME_US PERIOD_US\n\n"
		"Prints the order of writes that takes the throttling knobs (sched_rt_runtime_us,\n"
		"sched_rt_period_us and, with RT group scheduling, the root cgroup's cpu.rt_runtime_us and\n"
		"cpu.rt_period_us) from their current values to RUNTIME_US/PERIOD_US, and the order that\n"
		"puts them back: one line per write with the file, old -> new value and why the kernel\n"
		"accepts it at that moment. The kernel checks runtime <= period, the root cgroup's ratio\n"
		"<= the global one, and refuses (EBUSY) a global ratio below the deadline bandwidth it has\n"
		"admitted (6.12+: the fair server's 5%%); some policies need a detour through runtime -1.\n"
		"Writes nothing; needs no privileges. RUNTIME_US -1 means no limit.\n\n"
		"Options:\n"
		"  --from R/P              plan from sysctl and root cgroup at R/P instead of the current knobs\n"
		"  --cgroup, --no-cgroup   plan with or without the root cgroup's pair (default: whether\n"
		"                          /sys/fs/cgroup/cpu has it; --cgroup without it assumes the\n"
		"                          sysctl values)\n"
		"  --fair-server R/P       plan for a fair server of R/P us per CPU instead of this\n"
		"                          kernel's (0/1000000: none, as before 6.12)\n"
		"  --set-fair-server R/P   the policy also sets the fair server of every online CPU, as\n"
		"                          'run --fair-server' does (50ms/1s, or 0: off): its writes\n"
		"                          (debugfs sched/fair_server/cpu*/runtime, period, in ns) join\n"
		"                          the plan; it starts from the fair server debugfs shows, else\n"
		"                          from the one --fair-server or the kernel's default gives\n"
		"  --fair-server-cpus all|measured\n"
		"                          with --set-fair-server: every online CPU's (default) or the\n"
		"                          measured one's only (the last online CPU, run's default\n"
		"                          --cpu); the others keep theirs, which plans must then allow\n"
		"  --json                  the plans as JSON\n"
		"  -h, --help              this text\n\n"
		"Exit status: 0 a plan there and back exists, 1 the knobs cannot be read, 2 bad input or a\n"
		"policy the kernel would refuse (the reason is printed).\n");
}

#define bad(...) usage_error("plan", __VA_ARGS__)

/* "R/P" with R from min_runtime; false on anything else. */
static bool parse_pair(const char *text, int64_t min_runtime, int64_t *runtime, int64_t *period)
{
	char head[32];
	const char *slash = strchr(text, '/');

	if (!slash || (size_t)(slash - text) >= sizeof(head))
		return false;
	memcpy(head, text, (size_t)(slash - text));
	head[slash - text] = '\0';
	return parse_i64(head, min_runtime, INT32_MAX, runtime) && parse_i64(slash + 1, 1, INT32_MAX, period);
}

struct plan_args {
	const char *from, *fair_server;
	struct policy_fair_server set_fair_server;	/* --set-fair-server */
	int cgroup;	/* 1 --cgroup, 0 --no-cgroup, -1 detect */
	bool json;
};

/* The starting state: --from, or the knobs as they are, with the cgroup as asked. */
static int starting_knobs(const struct plan_args *args, struct knobs *from)
{
	int64_t runtime, period;

	if (args->from) {
		if (!parse_pair(args->from, -1, &runtime, &period))
			return bad("--from: '%s' is not RUNTIME/PERIOD in us (runtime -1 or more, period 1 or more)",
				   args->from);
		*from = knobs_target(&(struct knobs){ .has_cgroup = true }, runtime, period);
	} else if (!knobs_read(from)) {
		return EXIT_CHECK_FAILED;
	}
	if (args->from && args->cgroup < 0) {
		struct knobs now;

		from->has_cgroup = knobs_read(&now) && now.has_cgroup;
	} else if (args->cgroup >= 0) {
		if (args->cgroup && !from->has_cgroup) {
			from->value[KNOB_CGROUP_RUNTIME] = from->value[KNOB_SYSCTL_RUNTIME];
			from->value[KNOB_CGROUP_PERIOD] = from->value[KNOB_SYSCTL_PERIOD];
		}
		from->has_cgroup = args->cgroup;
	}
	return 0;
}

static json_object *steps_json(const struct knobs *start, const struct knob_plan *plan, const struct dl_floor *floor)
{
	json_object *steps = json_object_new_array();
	struct knobs state = *start;

	for (int i = 0; i < plan->count; i++) {
		const struct knob_write *w = &plan->step[i];
		json_object *step = json_object_new_object();
		char why[300];

		json_add_int(step, "step", i + 1);
		json_add_str(step, "file", knob_path(w->knob));
		json_add_str(step, "knob", knob_name(w->knob));
		json_add_int64(step, "old", state.value[w->knob]);
		json_add_int64(step, "new", w->value);
		state.value[w->knob] = w->value;
		knob_step_why(&state, w->knob, floor, why, sizeof(why));
		json_add_str(step, "why", why);
		json_object_array_add(steps, step);
	}
	return steps;
}

static void print_json(const struct knobs *from, const struct knobs *to, const struct knob_plan *there,
		       const struct knob_plan *back, const struct dl_floor *floor)
{
	json_object *root = json_object_new_object(), *fs = json_object_new_object();
	char text[200];

	dl_floor_describe(floor, text, sizeof(text));
	json_add_int64(fs, "runtime_us", floor->runtime_us);
	json_add_int64(fs, "period_us", floor->period_us);
	if (dl_floor_ext_ratio(floor)) {
		json_add_int64(fs, "ext_server_runtime_us", floor->ext_runtime_us);
		json_add_int64(fs, "ext_server_period_us", floor->ext_period_us);
	}
	json_add_double(fs, "ratio", dl_floor_ratio(floor) / (double)(1u << 20));
	json_add_str(fs, "description", text);
	json_object_object_add(root, "deadline_floor", fs);
	json_object_object_add(root, "from", knobs_to_json(from));
	json_object_object_add(root, "to", knobs_to_json(to));
	json_object_object_add(root, "apply", steps_json(from, there, floor));
	json_object_object_add(root, "restore", steps_json(to, back, floor));
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static void print_steps(const char *heading, const struct knobs *start, const struct knobs *end,
			const struct knob_plan *plan, const struct dl_floor *floor)
{
	struct knobs state = *start;
	char text[200];

	knobs_describe(end, text, sizeof(text));
	if (!plan->count) {
		printf("%s %s: nothing to write, the knobs hold it already\n", heading, text);
		return;
	}
	printf("%s %s: %d write%s\n", heading, text, plan->count, plan->count == 1 ? "" : "s");
	for (int i = 0; i < plan->count; i++) {
		const struct knob_write *w = &plan->step[i];
		char old[24], why[300];

		snprintf(old, sizeof(old), "%" PRId64, state.value[w->knob]);
		state.value[w->knob] = w->value;
		knob_step_why(&state, w->knob, floor, why, sizeof(why));
		printf("  %d. %-38s %8s -> %-8" PRId64 " %s\n", i + 1, knob_path(w->knob), old, w->value, why);
	}
}

/*
 * The fair server in the starting state only when the policy sets it (plans without it read as
 * before): debugfs's values, else the floor's (--fair-server or the kernel's default).
 */
static int starting_fair_server(const struct plan_args *args, const struct dl_floor *floor, struct knobs *from)
{
	if (!args->set_fair_server.set) {
		from->has_fair_server = false;
		return 0;
	}
	if (from->has_fair_server && !args->fair_server)
		return 0;
	if (!dl_floor_ratio(floor) && !args->fair_server)
		return bad("--set-fair-server: this kernel has no fair server to set (%s)", floor->source);
	from->has_fair_server = true;
	from->value[KNOB_FAIR_SERVER_RUNTIME] = floor->runtime_us * 1000;
	from->value[KNOB_FAIR_SERVER_PERIOD] = floor->period_us * 1000;
	return 0;
}

static int plan_and_print(const struct plan_args *args, int64_t runtime, int64_t period, const struct dl_floor *floor)
{
	struct policy policy = { .runtime_us = runtime, .period_us = period, .fair_server = args->set_fair_server };
	struct knobs from, to;
	struct knob_plan there, back;
	char why[400], text[200];
	int err = starting_knobs(args, &from);

	if (!err)
		err = starting_fair_server(args, floor, &from);
	if (err)
		return err;
	if (args->from && dl_floor_policy_refused(floor, from.value[KNOB_SYSCTL_RUNTIME],
						  from.value[KNOB_SYSCTL_PERIOD], why, sizeof(why)))
		return bad("--from %s: %s", args->from, why);
	to = knobs_for_policy(&from, &policy);
	if (!knob_plan_make(&from, &to, floor, &there)) {
		knob_plan_refusal(&from, &to, floor, why, sizeof(why));
		return bad("%s", why);
	}
	if (!knob_plan_make(&to, &from, floor, &back)) {
		knob_plan_refusal(&to, &from, floor, why, sizeof(why));
		return bad("no way back: %s", why);
	}
	if (args->json) {
		print_json(&from, &to, &there, &back, floor);
	} else {
		dl_floor_describe(floor, text, sizeof(text));
		printf("deadline floor: %s\n", text);
		knobs_describe(&from, text, sizeof(text));
		printf("from %s\n", text);
		print_steps("to", &from, &to, &there, floor);
		print_steps("back to", &to, &from, &back, floor);
	}
	if (fflush(stdout) || ferror(stdout)) {
		perror("rtthrottle plan: stdout");
		return EXIT_CHECK_FAILED;
	}
	return EXIT_ALL_PASSED;
}

int cmd_plan(int argc, char **argv)
{
	static const struct option options[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "cgroup", no_argument, NULL, OPT_CGROUP },
		{ "no-cgroup", no_argument, NULL, OPT_NO_CGROUP },
		{ "fair-server", required_argument, NULL, OPT_FAIR_SERVER },
		{ "set-fair-server", required_argument, NULL, OPT_SET_FAIR_SERVER },
		{ "fair-server-cpus", required_argument, NULL, OPT_FAIR_SERVER_CPUS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct plan_args args = { .cgroup = -1 };
	struct dl_floor floor;
	const char *operand[2];
	int64_t runtime, period;
	int c, operands = 0;
	char why[200];

	optind = 1;
	opterr = 0;
	/* "+" stops at each operand, so options may follow it and RUNTIME_US may be -1. */
	while (optind < argc) {
		bool rest_are_operands = optind > 1 && !strcmp(argv[optind - 1], "--");

		c = rest_are_operands ? -1 : getopt_long(argc, argv, "+h", options, NULL);
		if (c == -1 || (c == '?' && !strcmp(argv[optind - 1], "-1"))) {
			if (c == -1 && optind >= argc)
				break;
			if (operands == 2)
				return bad("unexpected argument '%s'", argv[c == -1 ? optind : optind - 1]);
			operand[operands++] = argv[c == -1 ? optind++ : optind - 1];
			continue;
		}
		switch (c) {
		case OPT_FROM: args.from = optarg; break;
		case OPT_CGROUP: args.cgroup = 1; break;
		case OPT_NO_CGROUP: args.cgroup = 0; break;
		case OPT_FAIR_SERVER: args.fair_server = optarg; break;
		case OPT_SET_FAIR_SERVER:
			if (!policy_fair_server_parse(optarg, &args.set_fair_server, why, sizeof(why)))
				return bad("--set-fair-server '%s': %s", optarg, why);
			break;
		case OPT_FAIR_SERVER_CPUS: {
			bool measured;

			if (!fair_server_cpus_choice(optarg, &measured))
				return bad("--fair-server-cpus: unknown choice '%s' (all or measured)", optarg);
			if (measured) {
				int last = cpu_last_online();

				fair_server_set_cpus(&last, 1);
			}
			break;
		}
		case OPT_JSON: args.json = true; break;
		case 'h':
		case OPT_HELP:
			usage(stdout);
			return EXIT_ALL_PASSED;
		default:
			/* getopt's own message would carry argv[0], which is "plan" here. */
			if (optopt > 0 && optopt < OPT_FROM)
				return bad("unknown option '-%c'", optopt);
			return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (operands < 2)
		return bad("needs RUNTIME_US and PERIOD_US, e.g. 'rtthrottle plan 45000 50000'");
	if (!parse_i64(operand[0], -1, INT32_MAX, &runtime))
		return bad("RUNTIME_US: '%s' is not a number from -1 to 2147483647", operand[0]);
	if (!parse_i64(operand[1], 1, INT32_MAX, &period))
		return bad("PERIOD_US: '%s' is not a number from 1 to 2147483647", operand[1]);
	floor = *dl_floor_of_system();
	if (args.fair_server) {
		if (!parse_pair(args.fair_server, 0, &floor.runtime_us, &floor.period_us) ||
		    floor.runtime_us > floor.period_us)
			return bad("--fair-server: '%s' is not RUNTIME/PERIOD in us with 0 <= runtime <= period",
				   args.fair_server);
		floor.source = "as --fair-server gives it";
	}
	return plan_and_print(&args, runtime, period, &floor);
}
