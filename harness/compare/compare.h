/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rtthrottle compare`: matches two result files by case (scenario, policy, sweep value), task
 * and metric, and calls each metric improved, regressed or unchanged.
 *
 * With at least min_reps repetitions on both sides, a two-sided Mann-Whitney U test (stats.h)
 * decides together with a minimum effect: the change of the medians must reach the metric's
 * minimum effect (compare_rules.c) and p must be at most alpha. With fewer, the tolerance band
 * of the result's own check on that metric (or its sibling's) decides, the larger of the two
 * sides' bands and at least the minimum effect: a median change beyond it is a change. A metric
 * without such a check is then not judged: one value a side says nothing about its noise.
 * Target metrics are judged by their distance to the target each side's own check expects;
 * lower-is-better metrics by what lies beyond their at_most check's bound, where it moves with
 * the run (misses a deadline task's own overruns explain).
 */
#ifndef RTT_COMPARE_H
#define RTT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "result_file.h"
#include "stats.h"

/* 3 vs 3 untied values give at best p = 0.1 (two-sided, exact): alpha 0.1 lets them decide. */
#define COMPARE_ALPHA_DEFAULT 0.10
#define COMPARE_MIN_REPS_DEFAULT 3

/*
 * What a metric did from BASE to NEW (a check's or a result's verdict is verdict.h's). Its
 * name, change_name(), is the "verdict" of compare's table: unchanged, improved, regressed,
 * info, not-judged.
 */
enum change { CHANGE_UNCHANGED, CHANGE_IMPROVED, CHANGE_REGRESSED, CHANGE_INFO, CHANGE_UNJUDGED };

enum method {
	METHOD_NONE,		/* not judged */
	METHOD_RANK,		/* Mann-Whitney U plus the minimum effect */
	METHOD_CHECK_BAND,	/* tolerance of the check on this metric */
	METHOD_SIBLING_BAND,	/* tolerance of the check on its sibling (cpu_share <-> cpu_share_periods) */
};

struct compare_options {
	double alpha;
	int min_reps;
};

struct compare_row {
	const struct series *base, *new;
	enum change outcome;
	enum method method;
	double base_median, new_median;	/* of the values as measured */
	double change, change_rel;	/* new - base; relative to |base| (NAN when base is 0) */
	double target_base, target_new;	/* the checks' expected values (medians): DIR_TARGET, DIR_LOWER at_most */
	double min_effect;
	double band;			/* the band methods: the band; METHOD_RANK: the minimum effect */
	struct mann_whitney mw;		/* METHOD_RANK */
	/* Where a new median would be called regressed: below regress_below or above regress_above. */
	double regress_below, regress_above;	/* NAN: no such limit */
	char why[160];
};

struct compare_note {
	char text[300];
};

struct compare_table {
	const struct result_file *base, *new;
	struct compare_options opt;
	struct compare_row *rows;
	int count;
	int improved, regressed, unchanged, unjudged, info;
	int from_unjudged;	/* rows, informational ones aside, of a case unjudged in BASE or NEW */
	struct compare_note *notes;	/* cases and metrics only one side has */
	int note_count;
};

/*
 * false (after printing "FILE: FIELD: reason") when the files cannot be compared: different
 * scenarios, nothing measured, or no case in common. A result's own verdict does not matter:
 * an unjudged one (measured, but some check could not judge it) is compared, its rows marked.
 */
bool compare_files(const struct result_file *base, const struct result_file *new,
		   const struct compare_options *opt, struct compare_table *out);
void compare_table_free(struct compare_table *t);
const char *change_name(enum change c);
const char *method_name(const struct compare_row *row);
/* Where the row's case was unjudged: "BASE", "NEW", "both", or NULL. */
const char *unjudged_in(const struct compare_row *row);

/* The table for people: one line a metric; informational rows only with all. */
void compare_print(FILE *out, const struct compare_table *t, bool all);
json_object *compare_to_json(const struct compare_table *t);

#endif
