/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Knob grids: every RT runtime (or runtime/period ratio) crossed with every period, each cell a
 * policy named after its values (r0.95p100ms, r25msp50ms) so runs of the same grid compare cell
 * by cell; a fair_server axis (fair-server runtimes against the kernel's 1 s period) repeats
 * the grid for each (r0.95p100ms-fs10ms, -fs0: off). Declared with `rtthrottle run --grid` or a
 * scenario's "grid" object.
 */
#ifndef RTT_GRID_H
#define RTT_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "kernel_model.h"
#include "policy.h"

#define GRID_AXIS_MAX 12
#define GRID_CELLS_MAX 64
#define GRID_PERIOD_MIN_US 1000		/* below a tick the measurement cannot tell periods apart */
#define GRID_PERIOD_MAX_US 100000000	/* 100 s: two periods already make a 200 s window */
#define GRID_WINDOW_MIN_S 1.0		/* one fair-server period: a cell sees its slot too */

struct grid {
	bool by_runtime;	/* rows are runtimes_us; else ratios */
	double ratios[GRID_AXIS_MAX];
	int64_t runtimes_us[GRID_AXIS_MAX];
	int row_count;
	int64_t periods_us[GRID_AXIS_MAX];
	int period_count;
	int64_t fair_server_us[GRID_AXIS_MAX];	/* runtimes, 0: off; none given: left alone */
	int fair_server_count;
};

/*
 * One --grid argument: "ratios=LIST", "runtimes=LIST", "periods=LIST" or "fair_server=LIST", or
 * several of them separated by blanks. Ratios are decimals in (0, 1]; runtimes, periods and
 * fair-server runtimes take a unit (us, ms or s: 50ms, 1.5s; a fair-server runtime may be 0).
 * False with why on a bad value, an axis given twice or a value repeated.
 */
bool grid_parse(struct grid *g, const char *text, char *why, size_t len);
/* The same rules for values read elsewhere (a scenario file's grid); false with why. */
bool grid_add_ratio(struct grid *g, double ratio, char *why, size_t len);
bool grid_add_runtime(struct grid *g, int64_t runtime_us, char *why, size_t len);
bool grid_add_period(struct grid *g, int64_t period_us, char *why, size_t len);
bool grid_add_fair_server(struct grid *g, int64_t runtime_us, char *why, size_t len);
/* Both axes given and at most GRID_CELLS_MAX cells; false with why. */
bool grid_complete(const struct grid *g, char *why, size_t len);
int grid_cell_count(const struct grid *g);
/*
 * The cells as policies, row by row (rows: ratio or runtime; columns: period), the whole grid
 * once per fair-server runtime; returns the count.
 */
int grid_policies(const struct grid *g, struct policy *out);

/*
 * The order a run measures policies in, as a permutation of 0..n-1 written to order: the grid
 * cells among them by rising period (a column in row order), every other policy where it is.
 * The RT period timer keeps a longer period until it next fires, so a short-period cell right
 * after a long one waits for it (run_settle_before); rising periods never do.
 */
void grid_run_order(const struct policy *p, int n, int *order);

/* A grid cell's window: at least GRID_WINDOW_MIN_S, rounded up to whole periods. */
double grid_cell_window_s(double window_s, int64_t period_us);
/* results[].grid of a cell. */
json_object *grid_place_to_json(const struct policy *p);

#endif
