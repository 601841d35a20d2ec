/* SPDX-License-Identifier: GPL-2.0-only */
/* The results document (results/README.md describes every field). */
#ifndef RTT_RESULTS_H
#define RTT_RESULTS_H

#include <stdbool.h>

#include <json-c/json.h>

#define RESULTS_SCHEMA_VERSION 1

/* The skeleton: schema_version, tool, run {id, start, cmdline, complete=false}. */
json_object *results_new(const char *run_id, const char *cmdline);
void results_finish(json_object *root, bool complete, const char *stop_reason);
/* Atomic write; prints the error naming the path. */
bool results_write(json_object *root, const char *path);
/* Checks that a results file can be created at path (the folder exists and is writable). */
bool results_path_writable(const char *path, char *why, size_t why_len);

#endif
