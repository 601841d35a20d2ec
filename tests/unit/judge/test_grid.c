// SPDX-License-Identifier: GPL-2.0-only
/* Knob grids: --grid parsing (good and bad), the cells it expands to, unreachable cells, windows. */
#include "grid.h"
#include "dl_floor.h"
#include "unit.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static bool parse(struct grid *g, const char *text, char *why, size_t len)
{
	memset(g, 0, sizeof(*g));
	return grid_parse(g, text, why, len) && grid_complete(g, why, len);
}

TEST(grid_parse_ratios_and_periods)
{
	static const char *const names[] = { "r0.5p50ms", "r0.5p200ms", "r0.5p1s", "r0.5p2500ms",
					     "r0.95p50ms", "r0.95p200ms", "r0.95p1s", "r0.95p2500ms" };
	static const int64_t runtimes[] = { 25000, 100000, 500000, 1250000, 47500, 190000, 950000, 2375000 };
	struct policy cells[GRID_CELLS_MAX];
	struct grid g;
	char why[256] = "";
	int n;

	CHECK(parse(&g, "ratios=0.5,0.95 periods=50ms,200ms,1s,2.5s", why, sizeof(why)), "refused: %s", why);
	n = grid_policies(&g, cells);
	CHECK(n == 8 && grid_cell_count(&g) == 8, "%d cells", n);
	for (int i = 0; i < n && i < 8; i++) {
		CHECK(!strcmp(cells[i].name, names[i]), "cell %d named %s, want %s", i, cells[i].name, names[i]);
		CHECK(cells[i].runtime_us == runtimes[i], "%s: runtime %" PRId64, names[i], cells[i].runtime_us);
		CHECK(cells[i].grid.cell == i + 1 && cells[i].grid.cells == 8 && !cells[i].grid.by_runtime,
		      "%s: place %d of %d", names[i], cells[i].grid.cell, cells[i].grid.cells);
	}
	/* The same grid in two arguments, with microseconds spelt out. */
	memset(&g, 0, sizeof(g));
	CHECK(grid_parse(&g, "ratios=0.5,0.95", why, sizeof(why)) &&
		      grid_parse(&g, "periods=50000us,200ms,1000ms,2500000us", why, sizeof(why)) &&
		      grid_complete(&g, why, sizeof(why)),
	      "two arguments refused: %s", why);
	n = grid_policies(&g, cells);
	for (int i = 0; i < n && i < 8; i++)
		CHECK(!strcmp(cells[i].name, names[i]), "two arguments: cell %d named %s", i, cells[i].name);
}

TEST(grid_parse_runtimes)
{
	struct policy cells[GRID_CELLS_MAX];
	struct grid g;
	char why[256] = "";

	CHECK(parse(&g, "runtimes=25ms,1500us periods=100ms", why, sizeof(why)), "refused: %s", why);
	CHECK(grid_policies(&g, cells) == 2, "cells");
	CHECK(!strcmp(cells[0].name, "r25msp100ms") && cells[0].runtime_us == 25000 && cells[0].period_us == 100000,
	      "%s", cells[0].name);
	CHECK(!strcmp(cells[1].name, "r1500usp100ms") && cells[1].grid.by_runtime &&
		      fabs(cells[1].grid.ratio - 0.015) < 1e-12,
	      "%s ratio %g", cells[1].name, cells[1].grid.ratio);
}

TEST(grid_parse_fair_server_axis)
{
	static const char *const names[] = { "r0.95p1s-fs0", "r0.95p1s-fs10ms", "r0.95p1s-fs50ms", "r0.95p1s-fs100ms" };
	static const int64_t runtimes[] = { 0, 10000, 50000, 100000 };
	struct policy cells[GRID_CELLS_MAX];
	struct grid g;
	char why[256] = "";
	int n;

	CHECK(parse(&g, "ratios=0.95 periods=1s fair_server=0,10ms,50ms,100ms", why, sizeof(why)), "refused: %s", why);
	n = grid_policies(&g, cells);
	CHECK(n == 4 && grid_cell_count(&g) == 4, "%d cells", n);
	for (int i = 0; i < n && i < 4; i++) {
		CHECK(!strcmp(cells[i].name, names[i]), "cell %d named %s, want %s", i, cells[i].name, names[i]);
		CHECK(cells[i].fair_server.set && cells[i].fair_server.runtime_us == runtimes[i] &&
			      cells[i].fair_server.period_us == 1000000,
		      "%s: fair server %" PRId64 "/%" PRId64, names[i], cells[i].fair_server.runtime_us,
		      cells[i].fair_server.period_us);
		CHECK(cells[i].runtime_us == 950000 && cells[i].grid.cell == i + 1 && cells[i].grid.cells == 4,
		      "%s: runtime %" PRId64 ", place %d of %d", names[i], cells[i].runtime_us, cells[i].grid.cell,
		      cells[i].grid.cells);
	}
	/* Without the axis no cell touches the fair server. */
	CHECK(parse(&g, "ratios=0.5 periods=1s", why, sizeof(why)) && grid_policies(&g, cells) == 1 &&
		      !cells[0].fair_server.set,
	      "a grid without fair_server sets it");
	/* The axis multiplies the cells, and the limit counts them all. */
	CHECK(!parse(&g, "ratios=0.1,0.2,0.3,0.4,0.5 periods=1ms,2ms,3ms,4ms fair_server=0,10ms,50ms,100ms", why,
		     sizeof(why)) && strstr(why, "fair-server runtimes = 80 cells"),
	      "80 cells accepted: %s", why);
}

TEST(grid_parse_refuses_bad_input)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "", "empty" },
		{ "ratios=0.5", "no columns" },
		{ "periods=1s", "no rows" },
		{ "ratio=0.5 periods=1s", "unknown axis 'ratio'" },
		{ "ratios 0.5 periods=1s", "is not AXIS=LIST" },
		{ "ratios=0.5,,0.9 periods=1s", "not a comma-separated list" },
		{ "ratios= periods=1s", "not a comma-separated list" },
		{ "ratios=0 periods=1s", "not in (0, 1]" },
		{ "ratios=1.01 periods=1s", "not in (0, 1]" },
		{ "ratios=-0.5 periods=1s", "not in (0, 1]" },
		{ "ratios=half periods=1s", "not a number" },
		{ "ratios=0.5,0.50 periods=1s", "given twice" },
		{ "ratios=0.5 periods=1s,1000ms", "given twice" },
		{ "ratios=0.5 periods=1000", "not a time with a unit" },
		{ "ratios=0.5 periods=1h", "not a time with a unit" },
		{ "ratios=0.5 periods=0.5us", "not a time with a unit" },
		{ "ratios=0.5 periods=500us", "outside" },
		{ "ratios=0.5 periods=101s", "outside" },
		{ "ratios=0.5 runtimes=10ms periods=1s", "not both" },
		{ "ratios=0.5 ratios=0.9 periods=1s", "given twice" },
		{ "ratios=0.5 periods=1s periods=2s", "given twice" },
		{ "ratios=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9 periods=1ms,2ms,3ms,4ms,5ms,6ms,7ms,8ms", "at most 64" },
		{ "ratios=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.91,0.92,0.93,0.94 periods=1s", "more than 12" },
		{ "ratios=0.5 periods=1s fair_server=-10ms", "fair_server: '-10ms': not a time with a unit" },
		{ "ratios=0.5 periods=1s fair_server=10", "not a time with a unit" },
		{ "ratios=0.5 periods=1s fair_server=ten", "not a time with a unit" },
		{ "ratios=0.5 periods=1s fair_server=2s", "outside 0..1s" },
		{ "ratios=0.5 periods=1s fair_server=0,0ms", "given twice" },
		{ "ratios=0.5 periods=1s fair_server=0 fair_server=10ms", "given twice" },
		{ "ratios=0.5 periods=1s fair_servers=0", "unknown axis 'fair_servers'" },
	};
	struct grid g;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char why[256] = "";

		CHECK(!parse(&g, bad[i].text, why, sizeof(why)), "'%s' accepted", bad[i].text);
		CHECK(strstr(why, bad[i].says) != NULL, "'%s': message '%s' does not say '%s'", bad[i].text, why,
		      bad[i].says);
	}
}

TEST(grid_unreachable_cells_with_their_fair_server)
{
	struct kernel_model fair = { .fair_server = true, .fs_runtime_us = 50000, .fs_period_us = 1000000 };
	struct policy cells[GRID_CELLS_MAX];
	struct grid g;
	char why[256] = "", buf[256];

	CHECK(parse(&g, "ratios=0.03 periods=1s fair_server=0,10ms,50ms", why, sizeof(why)), "refused: %s", why);
	CHECK(grid_policies(&g, cells) == 3, "cells");
	/* 3% RT is below the default 5% fair server, but not below the cell's own 0% or 1%. */
	CHECK(!grid_cell_unreachable(&cells[0], &fair, buf, sizeof(buf)), "%s refused: %s", cells[0].name, buf);
	CHECK(!grid_cell_unreachable(&cells[1], &fair, buf, sizeof(buf)), "%s refused: %s", cells[1].name, buf);
	CHECK(grid_cell_unreachable(&cells[2], &fair, buf, sizeof(buf)) && strstr(buf, "EBUSY"), "%s: %s",
	      cells[2].name, buf);
}

TEST(grid_unreachable_cells)
{
	struct kernel_model fair = { .fair_server = true, .fs_runtime_us = 50000, .fs_period_us = 1000000 };
	struct kernel_model old = { .fair_server = false };
	struct policy cells[GRID_CELLS_MAX], named = { .name = "half", .runtime_us = 500000, .period_us = 1000000 };
	struct grid g;
	char why[256] = "", buf[256];

	CHECK(parse(&g, "runtimes=300ms,10ms,50ms periods=200ms,1s", why, sizeof(why)), "refused: %s", why);
	grid_policies(&g, cells);
	/* r300msp200ms: longer than its period (EINVAL) on any kernel. */
	CHECK(grid_cell_unreachable(&cells[0], &old, buf, sizeof(buf)) && strstr(buf, "exceeds period 200ms"),
	      "r300msp200ms: %s", buf);
	CHECK(!grid_cell_unreachable(&cells[1], &fair, buf, sizeof(buf)), "r300msp1s refused: %s", buf);
	/* r10msp1s: 1% is below the fair server's 5% (EBUSY), where there is one. */
	CHECK(grid_cell_unreachable(&cells[3], &fair, buf, sizeof(buf)) && strstr(buf, "deadline fair server") &&
		      strstr(buf, "EBUSY"),
	      "r10msp1s: %s", buf);
	CHECK(!grid_cell_unreachable(&cells[3], &old, buf, sizeof(buf)), "r10msp1s refused without a fair server");
	/* Exactly the fair server's 5% is accepted. */
	CHECK(!grid_cell_unreachable(&cells[5], &fair, buf, sizeof(buf)), "r50msp1s refused: %s", buf);
	CHECK(!grid_cell_unreachable(&named, &fair, buf, sizeof(buf)), "a named policy is not a cell");
}

TEST(grid_run_order_rising_periods)
{
	/* Two named policies around the cells, as --policy and --grid together give them. */
	static const char *const want[] = { "half", "r0.5p50ms", "r0.95p50ms", "r0.5p200ms", "r0.95p200ms",
					    "r0.5p2s", "r0.95p2s", "last" };
	struct policy p[8] = { { .name = "half", .runtime_us = 500000, .period_us = 1000000 } };
	int order[8], n, seen = 0;
	struct grid g;
	char why[256] = "";

	CHECK(parse(&g, "ratios=0.5,0.95 periods=2s,50ms,200ms", why, sizeof(why)), "refused: %s", why);
	n = 1 + grid_policies(&g, p + 1);
	p[n++] = (struct policy){ .name = "last", .runtime_us = 10000, .period_us = 20000 };
	CHECK(n == 8, "%d policies", n);
	grid_run_order(p, n, order);
	for (int i = 0; i < n; i++) {
		CHECK(order[i] >= 0 && order[i] < n && !strcmp(p[order[i]].name, want[i]), "run %d: %s, want %s", i,
		      order[i] >= 0 && order[i] < n ? p[order[i]].name : "?", want[i]);
		seen |= 1 << order[i];
	}
	CHECK(seen == 0xff, "not a permutation: %#x", seen);
	/* Nothing to reorder: the identity. */
	grid_run_order(p, 1, order);
	CHECK(order[0] == 0, "one policy: %d", order[0]);
}

TEST(grid_cell_window_whole_periods)
{
	/* At least a second (one fair-server period), rounded up to whole periods. */
	CHECK(fabs(grid_cell_window_s(0.1, 50000) - 1.0) < 1e-9, "%g", grid_cell_window_s(0.1, 50000));
	CHECK(fabs(grid_cell_window_s(3, 45000) - 3.015) < 1e-9, "%g", grid_cell_window_s(3, 45000));
	CHECK(fabs(grid_cell_window_s(3, 200000) - 3.0) < 1e-9, "%g", grid_cell_window_s(3, 200000));
	CHECK(fabs(grid_cell_window_s(4, 2000000) - 4.0) < 1e-9, "%g", grid_cell_window_s(4, 2000000));
	CHECK(fabs(grid_cell_window_s(1, 2000000) - 2.0) < 1e-9, "%g", grid_cell_window_s(1, 2000000));
}

TEST(grid_format_times)
{
	char buf[32];

	format_duration_us(2000000, buf, sizeof(buf));
	CHECK(!strcmp(buf, "2s"), "%s", buf);
	format_duration_us(2500000, buf, sizeof(buf));
	CHECK(!strcmp(buf, "2500ms"), "%s", buf);
	format_duration_us(1500, buf, sizeof(buf));
	CHECK(!strcmp(buf, "1500us"), "%s", buf);
}
