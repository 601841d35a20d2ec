// SPDX-License-Identifier: GPL-2.0-only
/* The harness side of the load role: the program a window runs and where, checked installed beforehand. */
#include "load.h"
#include "json_util.h"
#include "sysinfo.h"
#include "util.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static const char *const tools[LOAD_TOOLS] = {
	[LOAD_NONE] = "none", [LOAD_HACKBENCH] = "hackbench", [LOAD_STRESS_NG] = "stress-ng",
};
static const char *const packages[LOAD_TOOLS] = {
	[LOAD_HACKBENCH] = "rt-tests", [LOAD_STRESS_NG] = "stress-ng",
};

int load_tool_find(const char *name)
{
	for (int t = 0; t < LOAD_TOOLS; t++)
		if (!strcmp(name, tools[t]))
			return t;
	return -1;
}

const char *load_tool_name(int tool)
{
	return tool >= 0 && tool < LOAD_TOOLS ? tools[tool] : "?";
}

const char *load_tool_names(void)
{
	return "hackbench, stress-ng, none";
}

int load_tool_for(const struct run_options *opt, const struct scenario *s, enum cpu_placement *where)
{
	*where = opt->load_tool >= 0 ? CPU_OTHER : s->load_cpu;
	return opt->load_tool >= 0 ? opt->load_tool : s->load_tool;
}

int load_check_tools(const struct run_options *opt)
{
	for (int i = 0; i < opt->scenario_count; i++) {
		enum cpu_placement where;
		int tool = load_tool_for(opt, opt->scenario[i], &where);
		const char *origin = opt->load_tool >= 0 ? "--load" : opt->scenario[i]->source;

		if (tool == LOAD_NONE)
			continue;
		if (!program_on_path(tools[tool])) {
			rtt_cmd_err("run", "%s %s: the program %s is not installed (not found on PATH; Debian package %s)",
				origin, tools[tool], tools[tool], packages[tool]);
			return EXIT_USAGE;
		}
		if (where == CPU_OTHER && cpus_online_count() < 2) {
			rtt_cmd_err("run", "%s %s: no online CPU but the measured one to put the load on",
				origin, tools[tool]);
			return EXIT_USAGE;
		}
	}
	return 0;
}

void load_metrics_json(json_object *obj, const struct task_record *rec)
{
	const struct external_stats *x = &rec->u.external;

	json_add_str(obj, "tool", load_tool_name(rec->config.load_tool));
	json_add_str(obj, "command", x->command);
	json_add_str(obj, "cpus", x->cpus);
	json_add_int64(obj, "runs", (int64_t)x->runs);
	json_add_int64(obj, "runs_completed", (int64_t)x->runs_done);
	if (rec->config.load_tool == LOAD_HACKBENCH)
		json_add_double(obj, "hackbench_time_s", x->reported);
	else
		json_add_double(obj, "bogo_ops", x->reported);
	json_add_double(obj, "cpu_s", rec->rusage_cpu_ns / 1e9);
}

void load_note_run(json_object *root, const struct run_options *opt)
{
	json_object *run;

	if (opt->load_tool >= 0 && json_object_object_get_ex(root, "run", &run))
		json_add_str(run, "load", tools[opt->load_tool]);
}
