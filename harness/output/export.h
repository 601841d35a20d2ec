/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results in the formats other CI systems read: JUnit XML, KCIDB v5 test objects and the
 * rt-tests (cyclictest --json) layout for probes. One code path for `rtthrottle run --junit ...`
 * (the document in memory) and `rtthrottle export` (a results file read back).
 */
#ifndef RTT_EXPORT_H
#define RTT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "verdict.h"

#define KCIDB_ORIGIN_DEFAULT "rtthrottle"

struct export_options {
	const char *junit;		/* paths; NULL: not wanted */
	const char *kcidb;
	const char *rttests;
	const char *lava;
	const char *kcidb_origin;	/* NULL: KCIDB_ORIGIN_DEFAULT */
	const char *kcidb_build_id;	/* NULL: ORIGIN:<kernel release> */
};

/* The getopt_long entries and help lines `run` and `export` share. */
#define EXPORT_OPTION_HELP                                                                            \
	"  --junit FILE          JUnit XML: a testsuite per result, a testcase per check\n"         \
	"  --kcidb FILE          KCIDB v5 JSON: a test object per result, check and metric\n"       \
	"  --rt-tests-json FILE  each probe's wake-up latencies in cyclictest's --json layout\n"    \
	"  --lava FILE           the lava-test-case calls, a line each: NAME RESULT [VALUE UNITS]\n" \
	"  --kcidb-origin NAME   KCIDB origin, [a-z0-9_]+ (default " KCIDB_ORIGIN_DEFAULT ")\n"    \
	"  --kcidb-build-id ID   KCIDB build_id, ORIGIN:ANYTHING (default ORIGIN:<kernel release>)\n"
enum { EXPORT_OPT_JUNIT = 1000, EXPORT_OPT_KCIDB, EXPORT_OPT_RTTESTS, EXPORT_OPT_ORIGIN, EXPORT_OPT_BUILD_ID, EXPORT_OPT_LAVA };
#define EXPORT_LONG_OPTIONS                                                     \
	{ "junit", required_argument, NULL, EXPORT_OPT_JUNIT },                 \
	{ "kcidb", required_argument, NULL, EXPORT_OPT_KCIDB },                 \
	{ "rt-tests-json", required_argument, NULL, EXPORT_OPT_RTTESTS },       \
	{ "kcidb-origin", required_argument, NULL, EXPORT_OPT_ORIGIN },         \
	{ "kcidb-build-id", required_argument, NULL, EXPORT_OPT_BUILD_ID },     \
	{ "lava", required_argument, NULL, EXPORT_OPT_LAVA }

/* Takes one of the options above; false when c is not one of them. */
bool export_option(struct export_options *o, int c, const char *arg);
bool export_wanted(const struct export_options *o);
/*
 * Before anything runs: the origin and build id are valid, no two outputs (nor `also`, e.g. the
 * results file, named `also_name` in messages) share a path, each folder can be written. false
 * after a message "rtthrottle COMMAND: --OPTION PATH: reason".
 */
bool export_options_check(const struct export_options *o, const char *command, const char *also,
			  const char *also_name);
/* Writes every wanted output atomically; false after naming each path that failed. */
bool export_write_all(json_object *root, const struct export_options *o);

/* The formats, from a results document; NULL when out of memory. */
char *export_junit(json_object *root);
json_object *export_kcidb(json_object *root, const char *origin, const char *build_id);
json_object *export_rttests(json_object *root);
/* "NAME RESULT [MEASUREMENT UNITS]" lines: the KCIDB tests but DONE ones, for lava-test-case. */
char *export_lava(json_object *root);

/* ---- shared by the formats (export_common.c; the front, export.c, calls the formats) ---- */

json_object *export_get(json_object *obj, const char *key);
const char *export_string(json_object *obj, const char *key, const char *fallback);
/* obj's verdict; fallback when it has none or one of another name. */
enum verdict export_verdict(json_object *obj, enum verdict fallback);
/* Skipped, or run but with no check that applied (unjudged): neither a pass nor an error. */
bool export_verdict_skipped(enum verdict verdict);
/* A number field, or NAN (absent, null, not a number). */
double export_number(json_object *obj, const char *key);
/* obj's key as an int: fallback when absent, not a number, or outside int's range. */
int export_int(json_object *obj, const char *key, int fallback);
/* obj's key rounded down to an int64_t: fallback when absent, not a number, or out of range. */
int64_t export_int64_floor(json_object *obj, const char *key, int64_t fallback);
/*
 * The results in KTAP's order: `kernel_results` (regime-probe, kernel-defaults: the run's
 * results about the kernel itself), then `results` (the scenarios').
 */
size_t export_result_count(json_object *root);
json_object *export_result_at(json_object *root, size_t i);
/* A check's status: PASS, FAIL, or SKIP (not judged: skip, not-measured, unjudged; KTAP's # SKIP). */
const char *export_check_status(json_object *check);
/*
 * "scenario.policy[.param=value][.repN]", as KTAP names the result; repN when max_rep > 1. A
 * kernel result has its own `name` (regime-probe, kernel-defaults).
 */
void export_case_name(json_object *result, int max_rep, char *buf, size_t len);
/* Room for a check's name (task 16, metric 40, name 24, dots and a rank). */
#define EXPORT_NAME_MAX 176
/*
 * checks[i]'s name as KTAP prints it, in every format: "task.metric" and ".name" when the
 * scenario's check has one (what tells apart checks of one metric); ".N" (its rank) only for a
 * second check of the same name, which a scenario cannot have.
 */
void export_check_name(json_object *checks, size_t i, char *buf, size_t len);
/*
 * The result's dotted path, each part reduced to [a-zA-Z0-9_-] (other characters '_', so a
 * policy r0.95p100ms is r0_95p100ms): "rtthrottle.<scenario>.<policy>[.<param>-<value>][.repN]",
 * or "rtthrottle.<name>" for a kernel result. KCIDB paths and LAVA names start with it, JUnit
 * classnames are it (Jenkins splits a classname at its last dot).
 */
void export_result_path(json_object *result, int max_rep, char *buf, size_t len);
/* One path part reduced to [a-zA-Z0-9_-] ("_" when empty); appended to path after a dot. */
void export_path_component(char *dst, size_t len, const char *src);
void export_path_append(char *path, size_t len, const char *component);
/* The largest `repetition` of the results: > 1 when the run repeated. */
int export_max_repetition(json_object *results);
/* Unit of a metric from its name, as checks give it: us, ms, s, ns, ratio or count. */
const char *export_metric_unit(const char *metric);

#endif
