/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Judges one result: evaluates the scenario's checks against the measured metrics, with the
 * expected value and tolerance computed from the expectation model's vocabulary.
 */
#ifndef RTT_JUDGE_H
#define RTT_JUDGE_H

#include <json-c/json.h>

#include "expect.h"
#include "scenario.h"

struct judge_context {
	const struct scenario *scenario;
	const struct kernel_model *model;
	const struct limiter *limiter;
	const struct policy *policy;
	const struct noise_floor *noise;
	double window_s;
	double steal_us;
	/*
	 * The most steal /proc/stat allows in the window: its reading plus one USER_HZ step (its
	 * counter's resolution); 0 unknown. Caps the trace's uncharged time, which also holds the
	 * scheduler's few microseconds of each switch not charged to either side.
	 */
	double steal_most_us;
	double tick_stretch;	/* >= 1: CPU time per tick counted, over the tick (run_case.c) */
	double others_us;	/* CPU time other tasks took on the measured CPU in the window, -1 unknown */
	double sweep_value;	/* the sweep parameter's value in this result */
	json_object *metrics[TASKS_MAX];	/* per scenario task */
	json_object *trace;	/* the result's trace block: `trace.METRIC` in expressions */
};

/* Returns how many checks were written; a check whose metric is absent has measured=false. */
int judge_result(const struct judge_context *jc, struct check *out, int max);
/* True when `name` is a model quantity (a task parameter may not take such a name). */
bool judge_is_quantity(const char *name);
/* At load time: every name in every expression is known. False with the reason in err. */
bool judge_validate(const struct scenario *s, char *err, size_t len);
/*
 * What a check of this metric exists to catch where its scenario declares no "detects" (the
 * regression judge_hollow holds its tolerance against), or NULL: none by default.
 */
const char *judge_default_detects_why(const char *metric);
/* A check's unit from its metric's name: us, ms, ratio or count (results/README.md). */
const char *judge_metric_unit(const char *metric);
/* A model quantity by name (rt_share, slot_us, ...), for tables and tests. */
bool judge_quantity(const struct judge_context *jc, const char *name, double *value);

/*
 * A result's verdict from its checks: fail when a judged check failed; else pass only when
 * every check that applies was judged (measured, with a tolerance that could fail it), and
 * unjudged when none applies or one was not judged, with why (each such check and its rule).
 * A cross-check on the trace in a result without one does not apply.
 */
enum verdict judge_verdict(const struct check *checks, int n, char *why, size_t len);

#endif
