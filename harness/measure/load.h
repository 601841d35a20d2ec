/*
 * Background load (hackbench, stress-ng) beside a scenario's tasks: `run --load NAME` or a
 * scenario's "load" field. It runs as one more task of the window (role "load", SCHED_OTHER),
 * started and stopped with it; workloads/load_run.c runs the tool.
 */
#ifndef RTT_LOAD_H
#define RTT_LOAD_H

#include <stdbool.h>

#include <json-c/json.h>

#include "run_case.h"

/* The tool named `name` (hackbench, stress-ng, none), or -1. */
int load_tool_find(const char *name);
const char *load_tool_name(int tool);
/* The tool's names, for messages: "hackbench, stress-ng, none". */
const char *load_tool_names(void);
/*
 * Before anything changes: every load the run would start has its program installed and a
 * CPU to run on. Returns 0, or EXIT_USAGE after saying which tool is missing and its package.
 */
int load_check_tools(const struct run_options *opt);
/* Appends the load task of this window, if any; returns the new task count. */
int load_add_task(const struct run_ctx *ctx, const struct scenario *s, double window_s, struct task_config *out,
		  int count);
/* The load's metrics: tool, command, CPUs, runs, what the tool reported. */
void load_metrics_json(json_object *obj, const struct task_record *rec);
/* Adds run.load (the --load tool) to the results document. */
void load_note_run(json_object *root, const struct run_options *opt);

#endif
