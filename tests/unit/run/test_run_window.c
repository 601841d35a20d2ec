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
	double w;

	/* fifo-hog-share's 3 s and two whole periods: 1 s periods fit as they are. */
	w = window_of(3, 2, 1000000, true);
	CHECK(fabs(w - 3) < 1e-9, "1 s periods: %g s", w);
	w = window_of(3, 2, 10000, true);
	CHECK(fabs(w - 3) < 1e-9, "10 ms periods: %g s", w);
	/* 2 s periods: two of them after the server's first second, in whole periods: 6 s. */
	w = window_of(3, 2, 2000000, true);
	CHECK(fabs(w - 6) < 1e-9, "2 s periods in a grid cell: %g s", w);
	/* A named policy keeps whole periods: ten-second-window's 20 s, not 21 s. */
	w = window_of(3, 2, 2000000, false);
	CHECK(fabs(w - 4) < 1e-9, "2 s periods as a named policy: %g s", w);
	w = window_of(3, 2, 10000000, false);
	CHECK(fabs(w - 20) < 1e-9, "10 s periods as a named policy: %g s", w);
	/* Without min_periods the scenario's window is all. */
	w = window_of(3, 0, 2000000, false);
	CHECK(fabs(w - 3) < 1e-9, "no min_periods: %g s", w);
}
