/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tables a person reads at the end of a run, also stored in the results: the summary, the
 * duty-cycle edges (where deadline misses begin, per policy) and the 2008 debate table.
 */
#ifndef RTT_TABLES_H
#define RTT_TABLES_H

#include <json-c/json.h>

#include "kernel_model.h"

/* Adds "edges" and "debate" to the results document when the results hold what they need. */
void tables_add(json_object *root, json_object *results, const struct kernel_model *model);
/* Prints the summary, edges and debate tables as KTAP diagnostics. */
void tables_print(json_object *root);
/* A number at a dotted path below a result's task named `task`; false when absent. */
bool result_task_metric(json_object *result, const char *task, const char *path, double *value);

#endif
