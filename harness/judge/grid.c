// SPDX-License-Identifier: GPL-2.0-only
/* Knob grids: --grid's axes parsed and checked, the cells expanded into policies named after their values. */
#include "grid.h"
#include "json_util.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool __attribute__((format(printf, 3, 4))) refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/* The row part of a cell's name: the ratio as written (%g), or the runtime with its unit. */
static void row_label(const struct grid *g, int row, char *buf, size_t len)
{
	if (g->by_runtime)
		format_duration_us(g->runtimes_us[row], buf, len);
	else
		snprintf(buf, len, "%g", g->ratios[row]);
}

bool grid_add_ratio(struct grid *g, double ratio, char *why, size_t len)
{
	char name[32], other[32];

	if (g->by_runtime)
		return refuse(why, len, "give ratios or runtimes, not both");
	if (!isfinite(ratio) || ratio <= 0 || ratio > 1)
		return refuse(why, len, "ratio %g is not in (0, 1] (runtime/period; 1 is a runtime equal to the period)",
			      ratio);
	if (g->row_count == GRID_AXIS_MAX)
		return refuse(why, len, "more than %d ratios", GRID_AXIS_MAX);
	snprintf(name, sizeof(name), "%g", ratio);
	for (int i = 0; i < g->row_count; i++) {
		row_label(g, i, other, sizeof(other));
		if (!strcmp(name, other))
			return refuse(why, len, "ratio %s given twice", name);
	}
	g->ratios[g->row_count++] = ratio;
	return true;
}

/* Appends a time to one axis: at most GRID_AXIS_MAX, each once. `what` names a value in messages. */
static bool append_time(int64_t *list, int *count, int64_t us, const char *what, char *why, size_t len)
{
	if (*count == GRID_AXIS_MAX)
		return refuse(why, len, "more than %d %ss", GRID_AXIS_MAX, what);
	for (int i = 0; i < *count; i++)
		if (list[i] == us)
			return refuse(why, len, "%s %" PRId64 " us given twice", what, us);
	list[(*count)++] = us;
	return true;
}

bool grid_add_runtime(struct grid *g, int64_t runtime_us, char *why, size_t len)
{
	if (g->row_count && !g->by_runtime)
		return refuse(why, len, "give ratios or runtimes, not both");
	if (runtime_us < 1 || runtime_us > INT32_MAX)
		return refuse(why, len, "runtime %" PRId64 " us is outside 1..2147483647 us", runtime_us);
	if (!append_time(g->runtimes_us, &g->row_count, runtime_us, "runtime", why, len))
		return false;
	g->by_runtime = true;
	return true;
}

bool grid_add_period(struct grid *g, int64_t period_us, char *why, size_t len)
{
	if (period_us < GRID_PERIOD_MIN_US || period_us > GRID_PERIOD_MAX_US)
		return refuse(why, len, "period %" PRId64 " us is outside %d us..%d s", period_us, GRID_PERIOD_MIN_US,
			      GRID_PERIOD_MAX_US / 1000000);
	return append_time(g->periods_us, &g->period_count, period_us, "period", why, len);
}

bool grid_add_fair_server(struct grid *g, int64_t runtime_us, char *why, size_t len)
{
	if (runtime_us < 0 || runtime_us > FAIR_SERVER_DEFAULT_PERIOD_US)
		return refuse(why, len, "fair-server runtime %" PRId64 " us is outside 0..1s (its period is 1 s)",
			      runtime_us);
	return append_time(g->fair_server_us, &g->fair_server_count, runtime_us, "fair-server runtime", why, len);
}

/* One value of a time axis; a fair-server runtime may be a bare 0 (off). */
static bool parse_time_item(const char *axis, const char *item, struct grid *g, char *reason, size_t len)
{
	int64_t us = 0;

	if (strcmp(axis, "fair_server") || strcmp(item, "0")) {
		if (!parse_duration_us(item, &us))
			return refuse(reason, len, "not a time with a unit: a whole number of microseconds written as "
						   "1500us, 50ms or 1.5s%s",
				      strcmp(axis, "fair_server") ? "" : " (or 0: off)");
	}
	if (!strcmp(axis, "runtimes"))
		return grid_add_runtime(g, us, reason, len);
	if (!strcmp(axis, "periods"))
		return grid_add_period(g, us, reason, len);
	return grid_add_fair_server(g, us, reason, len);
}

/* One "AXIS=LIST" word. */
static bool parse_axis(struct grid *g, const char *word, char *why, size_t len)
{
	const char *eq = strchr(word, '=');
	char axis[16], list[512], *save = NULL;
	bool rows;

	if (!eq || eq == word || (size_t)(eq - word) >= sizeof(axis))
		return refuse(why, len, "'%s' is not AXIS=LIST (ratios=0.5,0.95 or runtimes=25ms,50ms, and periods=50ms,1s)",
			      word);
	snprintf(axis, sizeof(axis), "%.*s", (int)(eq - word), word);
	if (strcmp(axis, "ratios") && strcmp(axis, "runtimes") && strcmp(axis, "periods") && strcmp(axis, "fair_server"))
		return refuse(why, len, "unknown axis '%s' (ratios, runtimes, periods or fair_server)", axis);
	rows = !strcmp(axis, "ratios") || !strcmp(axis, "runtimes");
	if (rows && g->row_count && strcmp(axis, g->by_runtime ? "runtimes" : "ratios"))
		return refuse(why, len, "give ratios or runtimes, not both");
	if (rows ? g->row_count > 0 : !strcmp(axis, "periods") ? g->period_count > 0 : g->fair_server_count > 0)
		return refuse(why, len, "%s given twice (the rows are ratios or runtimes, the columns periods)", axis);
	if (snprintf(list, sizeof(list), "%s", eq + 1) >= (int)sizeof(list))
		return refuse(why, len, "%s: list too long", axis);
	if (!list[0] || list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		return refuse(why, len, "%s: '%s' is not a comma-separated list of values", axis, eq + 1);
	for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char reason[160];
		double ratio;
		bool ok;

		if (!strcmp(axis, "ratios"))
			ok = parse_double(item, -1e9, 1e9, &ratio) ? grid_add_ratio(g, ratio, reason, sizeof(reason))
								   : refuse(reason, sizeof(reason), "not a number");
		else
			ok = parse_time_item(axis, item, g, reason, sizeof(reason));
		if (!ok)
			return refuse(why, len, "%s: '%s': %s", axis, item, reason);
	}
	return true;
}

bool grid_parse(struct grid *g, const char *text, char *why, size_t len)
{
	char copy[1024], *save = NULL;
	int words = 0;

	if (snprintf(copy, sizeof(copy), "%s", text) >= (int)sizeof(copy))
		return refuse(why, len, "too long");
	for (char *word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save), words++)
		if (!parse_axis(g, word, why, len))
			return false;
	return words ? true : refuse(why, len, "empty; give ratios=LIST (or runtimes=LIST) and periods=LIST");
}

int grid_cell_count(const struct grid *g)
{
	return g->row_count * g->period_count * (g->fair_server_count ? g->fair_server_count : 1);
}

bool grid_complete(const struct grid *g, char *why, size_t len)
{
	if (!g->row_count)
		return refuse(why, len, "no rows: give ratios (runtime/period) or runtimes");
	if (!g->period_count)
		return refuse(why, len, "no columns: give periods");
	if (grid_cell_count(g) > GRID_CELLS_MAX)
		return refuse(why, len, "%d x %d%s = %d cells, at most %d", g->row_count, g->period_count,
			      g->fair_server_count ? " x fair-server runtimes" : "", grid_cell_count(g), GRID_CELLS_MAX);
	return true;
}

/* Cell n (0-based): row r, period column c, fair-server runtime f (-1: no such axis). */
static void grid_cell(const struct grid *g, int r, int c, int f, int n, struct policy *p)
{
	int64_t period = g->periods_us[c];
	char row[20], column[20];

	memset(p, 0, sizeof(*p));
	row_label(g, r, row, sizeof(row));
	format_duration_us(period, column, sizeof(column));
	snprintf(p->name, sizeof(p->name), "r%sp%s", row, column);
	p->period_us = period;
	p->runtime_us = g->by_runtime ? g->runtimes_us[r] : llround(g->ratios[r] * (double)period);
	p->origin = "a cell of a knob grid";
	p->grid = (struct policy_grid_place){
		.cell = n + 1,
		.cells = grid_cell_count(g),
		.ratio = g->by_runtime ? (double)g->runtimes_us[r] / (double)period : g->ratios[r],
		.by_runtime = g->by_runtime,
	};
	if (f >= 0)
		policy_with_fair_server(p, &(struct policy_fair_server){
						   .set = true,
						   .runtime_us = g->fair_server_us[f],
						   .period_us = FAIR_SERVER_DEFAULT_PERIOD_US,
					   });
}

int grid_policies(const struct grid *g, struct policy *out)
{
	int n = 0;

	for (int f = g->fair_server_count ? 0 : -1; f < g->fair_server_count; f++)
		for (int r = 0; r < g->row_count; r++)
			for (int c = 0; c < g->period_count; c++, n++)
				grid_cell(g, r, c, f, n, &out[n]);
	return n;
}

void grid_run_order(const struct policy *p, int n, int *order)
{
	int cells[GRID_CELLS_MAX], count = 0;

	for (int i = 0; i < n; i++) {
		order[i] = i;
		if (p[i].grid.cells && count < GRID_CELLS_MAX)
			cells[count++] = i;
	}
	/* Insertion sort: stable, so a column keeps its rows' order. */
	for (int i = 1; i < count; i++)
		for (int j = i; j > 0 && p[order[cells[j - 1]]].period_us > p[order[cells[j]]].period_us; j--) {
			int t = order[cells[j]];

			order[cells[j]] = order[cells[j - 1]];
			order[cells[j - 1]] = t;
		}
}

double grid_cell_window_s(double window_s, int64_t period_us)
{
	double periods = ceil(fmax(window_s, GRID_WINDOW_MIN_S) * 1e6 / (double)period_us - 1e-9);

	return periods * (double)period_us / 1e6;
}

json_object *grid_place_to_json(const struct policy *p)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "rows", p->grid.by_runtime ? "runtime" : "ratio");
	json_add_double(obj, "ratio", p->grid.ratio);
	json_add_int(obj, "cell", p->grid.cell);
	json_add_int(obj, "cells", p->grid.cells);
	return obj;
}
