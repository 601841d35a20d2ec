/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Background load (hackbench, stress-ng) beside a scenario's tasks: `run --load NAME` or a
 * scenario's "load" field. It runs as one more task of the window (role "load", SCHED_OTHER),
 * started and stopped with it; workloads/load_run.c runs the tool.
 */
#ifndef RTT_LOAD_H
#define RTT_LOAD_H

#include <stdbool.h>

#include <json-c/json.h>

#include "run.h"

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
/*
 * The tool a window of s runs beside it (LOAD_NONE: none) and where: the command line's on the
 * non-measured CPUs, else the scenario's own.
 */
int load_tool_for(const struct run_options *opt, const struct scenario *s, enum cpu_placement *where);
/* The load's metrics: tool, command, CPUs, runs, what the tool reported. */
void load_metrics_json(json_object *obj, const struct task_record *rec);
/* Adds run.load (the --load tool) to the results document. */
void load_note_run(json_object *root, const struct run_options *opt);

#endif
