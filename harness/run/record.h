/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Recordings: what a window measured, kept raw so it can be judged again offline. One file a
 * window, DIR/NNNN-<case>.rec.gz (gzip): a line naming the format, a line of JSON with what
 * judging reads besides the tasks (the case, policy, kernel model, noise floor, /proc/stat's
 * figures, the trace block, files external tools wrote) and the tasks' shared records as the
 * tasks wrote them (CPU-clock samples, gaps, latencies). DIR/run.json is the run's document.
 * `rtthrottle judge DIR` judges them again with this build's checks (record_judge_dir).
 */
#ifndef RTT_RECORD_H
#define RTT_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "run_case.h"

#define RECORD_FORMAT 1
#define RECORD_SUFFIX ".rec.gz"

/* Makes DIR (and its parents) for a run's recordings; false after printing why. */
bool record_dir_prepare(const char *dir);
/*
 * Writes the window about to be judged (before judging: that removes what external tools
 * wrote). path: the file written, "" when none was (a warning says why: a failed recording
 * never fails the run).
 */
void record_window(const struct run_ctx *ctx, const struct window_taken *w, char *path, size_t path_len);
/* Removes a window's recording (a window measured again); "" does nothing. */
void record_discard(const char *path);
/* Writes the run's document, results and all, and the system's model beside its recordings: run.json. */
void record_run_document(const char *dir, json_object *root, const struct kernel_model *model);

/*
 * A change made to a recorded window before it is judged again (power.c): gets the window's
 * tasks (a copy: the file is never changed), its trace block and policy; false when it does
 * not apply to this window (why says so).
 */
struct window_shm;
struct record_window_view {
	struct window_shm *shm;
	json_object *trace;
	const struct policy *policy;
	const struct kernel_model *model;
	int cpu;		/* the measured CPU */
	json_object *changed;	/* an object the change writes what it changed into (its spans) */
};
typedef bool (*record_change_fn)(struct record_window_view *w, const void *arg, char *why, size_t why_len);

struct record_judgement {
	int windows, passed, failed, unjudged, errors;
	int changed, not_changed;	/* with a change: windows it applied to, and not */
};

/*
 * Judges every recording in DIR again, in order; the results, as `rtthrottle run` writes them,
 * go to out_path ("" none). change (may be NULL) alters each window first; its name and the
 * checks that exist to catch it go into the document's judged_again block. Exit status as
 * `rtthrottle run`'s: 2 for a folder that holds no recording or one this build cannot read
 * (naming it).
 */
int record_judge_dir(const char *dir, const char *out_path, bool quiet, record_change_fn change, const void *arg,
		     const char *change_name, const char *change_catches, struct record_judgement *summary);

#endif
