// SPDX-License-Identifier: GPL-2.0-only
/* The RT period timer's lateness from its traced firings: isolated late firings are the machine's. */
#include "timer_late.h"

#include <stdbool.h>
#include <string.h>

/* The grid point at or before t on the grid through `phase` (phase <= t). */
static uint64_t grid_at_or_before(uint64_t t, uint64_t phase, uint64_t period)
{
	return phase + (t - phase) / period * period;
}

void timer_late_measure(const uint64_t *fire_ns, int n, uint64_t period_ns, uint64_t on_grid_ns, uint64_t from_ns,
			uint64_t to_ns, struct timer_late *out)
{
	uint64_t phase;

	memset(out, 0, sizeof(*out));
	if (n <= 0 || !period_ns)
		return;
	/*
	 * The grid through the least late firing: each firing taken back to the first's period by
	 * whole periods, the earliest of those is the grid's phase (rounding to the nearest whole
	 * period, so a firing late by less than half a period stays in its own).
	 */
	phase = fire_ns[0];
	for (int k = 1; k < n; k++) {
		uint64_t back = (fire_ns[k] - fire_ns[0] + period_ns / 2) / period_ns * period_ns;
		uint64_t at = fire_ns[k] - back;

		if (at < phase)
			phase = at;
	}
	for (int k = 0; k < n; k++) {
		uint64_t late = fire_ns[k] - grid_at_or_before(fire_ns[k], phase, period_ns);
		bool neighbour_on = false, neighbour_late = false;

		if (fire_ns[k] < from_ns || fire_ns[k] > to_ns)
			continue;
		out->firings++;
		if (late <= on_grid_ns)
			continue;
		for (int j = k - 1; j <= k + 1; j += 2) {
			uint64_t l;

			if (j < 0 || j >= n)
				continue;
			l = fire_ns[j] - grid_at_or_before(fire_ns[j], phase, period_ns);
			/* A spike's tail (at most half as late) is no drift: that moves its neighbours in even steps. */
			if (l <= on_grid_ns)
				neighbour_on = true;
			else if (l > late / 2)
				neighbour_late = true;
		}
		if (neighbour_on && !neighbour_late) {
			out->late_firings++;
			if (late > out->late_max_ns) {
				out->late_max_ns = late;
				out->late_at_ns = fire_ns[k];
			}
		} else if (late > out->unexcused_max_ns) {
			out->unexcused_max_ns = late;
		}
	}
}
