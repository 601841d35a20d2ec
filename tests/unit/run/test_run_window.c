// SPDX-License-Identifier: GPL-2.0-only
/* How long a case's window is: the scenario's, whole periods, and a grid cell's whole periods. */
#include "run_case.h"
#include "unit.h"

#include <math.h>

static double window_of(double scenario_s, int min_periods, int64_t period_us, bool grid_cell)
{
	struct run_options opt = { .duration_s = 5 };
	struct scenario s = { .window_s = scenario_s, .min_periods = min_periods };
	struct policy p = { .runtime_us = period_us / 2, .period_us = period_us };

	if (grid_cell)
		p.grid.cells = 42, p.grid.cell = 1;
	return run_window_s(&opt, &s, &p);
}

TEST(run_window_of_a_grid_cell_holds_whole_periods_after_the_fair_servers_second)
{
	static const struct {
		const char *what;
		int min_periods;
		int64_t period_us;
		bool grid_cell;
		double want_s;
	} cases[] = {
		/* fifo-hog-share's 3 s and two whole periods: 1 s and shorter periods fit as they are. */
		{ "1 s periods", 2, 1000000, true, 3 },
		{ "10 ms periods", 2, 10000, true, 3 },
		/* 2 s periods: two of them after the server's first second, in whole periods. */
		{ "2 s periods in a grid cell", 2, 2000000, true, 6 },
		/* A named policy keeps whole periods: ten-second-window's 20 s, not 21 s. */
		{ "2 s periods as a named policy", 2, 2000000, false, 4 },
		{ "10 s periods as a named policy", 2, 10000000, false, 20 },
		/* Without min_periods the scenario's window is all. */
		{ "no min_periods", 0, 2000000, false, 3 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double w = window_of(3, cases[i].min_periods, cases[i].period_us, cases[i].grid_cell);

		CHECK(fabs(w - cases[i].want_s) < 1e-9, "%s: %g s, want %g s", cases[i].what, w, cases[i].want_s);
	}
}
