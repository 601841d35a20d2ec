/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rtthrottle soak`'s aggregation: many results files of one suite on one kernel, gathered per
 * check (case and task.metric[.name]) and per scenario: windows judged, false alarms (failed
 * checks on a kernel presumed healthy), unjudged, not measured, and how close each judged value
 * came to its bound (the margin), so a check drifting toward its bound shows before it fails.
 */
#ifndef RTT_SOAK_H
#define RTT_SOAK_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

/* A check within this fraction of its tolerance from its bound is flagged. */
#define SOAK_NEAR_MARGIN 0.1

/* How the margins of one check (or one scenario's checks) spread. */
struct soak_margins {
	double *v;
	int n, cap;
	double median, p1, worst;	/* NAN when n == 0 */
	int worst_suite;		/* 1-based suite of the worst margin, 0 when none */
};

/* Counts shared by a check's row and a scenario's row. */
struct soak_counts {
	int windows;		/* results that held the check (the window ran) */
	int judged;		/* pass + fail */
	int failed;		/* fail: a false alarm on a healthy kernel */
	int unjudged;
	int not_measured;	/* not-measured, or skip (a kernel setting nobody may read) */
	int not_applicable;	/* its condition did not hold in that window */
	int exact;		/* judged with tolerance 0: no margin to give */
};

struct soak_check {
	char scenario[64];
	char case_name[192];	/* scenario.policy[.param=value], or the kernel result's name */
	char check[160];	/* task.metric[.name] */
	char kind[12], unit[12];
	struct soak_counts c;
	struct soak_margins m;
	double last_tolerance;
	int first_fail_suite;	/* 0: never failed */
};

struct soak_scenario {
	char name[64];
	int results, passed, failed, unjudged, errors, skipped;
	/* Whole periods its promise was judged over on the kernel's grid, and those left out (promise.censored). */
	int periods, censored_periods;
	struct soak_counts c;
	struct soak_margins m;
	char worst_check[360];	/* case and check of the worst margin */
};

struct soak {
	int suites;		/* files added */
	int incomplete;		/* files whose run.complete is false */
	char kernel[128], host[64], first_start[32], last_end[32];
	bool mixed_kernels;	/* files of more than one kernel release */
	struct soak_check *checks;
	int check_count, check_cap;
	struct soak_scenario *scenarios;
	int scenario_count, scenario_cap;
};

/* Adds one parsed results document as the next suite; false (message naming label) when it is
 * not a results file. The document is only read. */
bool soak_add(struct soak *s, json_object *root, const char *label);
/* Loads a results file and adds it; false after a message naming the file. */
bool soak_add_file(struct soak *s, const char *path);
/* Sorts the margins and computes median, p1 and worst; call once after the last soak_add. */
void soak_finish(struct soak *s);
void soak_free(struct soak *s);

/* The margin of one judged value: 1 at the expected value, 0 at the bound, negative beyond it. */
double soak_margin(const char *kind, double measured, double expected, double tolerance);
/* A check that failed or came within SOAK_NEAR_MARGIN of its bound. */
bool soak_check_flagged(const struct soak_check *c);

json_object *soak_to_json(const struct soak *s);
void soak_print(FILE *out, const struct soak *s);

#endif
