/* SPDX-License-Identifier: GPL-2.0-only */
/* Throttling policies: a runtime/period pair with a name and where the idea comes from. */
#ifndef RTT_POLICY_H
#define RTT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define POLICY_NAME_MAX 48

/* Where a cell of a knob grid (harness/judge/grid.h) sits; cells is 0 for every other policy. */
struct policy_grid_place {
	int cell, cells;	/* 1-based place among the grid's cells, and how many there are */
	double ratio;		/* runtime/period asked for (above 1 when a runtime exceeds its period) */
	bool by_runtime;	/* the grid's rows are runtimes, not ratios */
};

struct policy {
	char name[POLICY_NAME_MAX];
	int64_t runtime_us;	/* -1: no RT limit */
	int64_t period_us;
	const char *origin;	/* one line: who argued for it */
	struct policy_grid_place grid;
};

const struct policy *policy_builtins(size_t *count);
bool policy_find(const char *name, struct policy *out);
/*
 * Checks an ad-hoc pair as the kernel would; NULL when valid, else why (e.g. "runtime exceeds
 * period"). Period 1..INT_MAX us, runtime -1 or 0..period.
 */
const char *policy_pair_invalid(int64_t runtime_us, int64_t period_us);
/* "adhoc-<runtime>-<period>" */
void policy_make_adhoc(int64_t runtime_us, int64_t period_us, struct policy *out);
json_object *policy_to_json(const struct policy *p);

#endif
