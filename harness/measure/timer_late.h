/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How late the machine delivered the RT period timer: its firings as the trace recorded them,
 * against the grid its on-time firings lay. Pure: takes times, no kernel.
 */
#ifndef RTT_TIMER_LATE_H
#define RTT_TIMER_LATE_H

#include <stdint.h>

struct timer_late {
	int firings;		/* in [from, to] */
	int late_firings;	/* of those, later than on_grid_ns and excused (isolated) */
	uint64_t late_max_ns;	/* the latest excused one: 0 when none */
	uint64_t late_at_ns;	/* when it fired */
	uint64_t unexcused_max_ns;	/* late, but a neighbour was late by half as much or more: the timer's own */
};

/*
 * fire_ns: one timer's firings in time order, period_ns apart on a correct kernel. A timer
 * never fires early, so the firing least late against the others sets the grid; each firing
 * is late by how far it lies past its grid point. A late firing is the machine's (an
 * interrupt delivered late to a halted or descheduled vCPU) only where one neighbour in the
 * trace is on the grid (within on_grid_ns) and neither is late by half as much or more: a
 * kernel whose timer drifts, or forwards by the wrong period, makes its lateness grow in even
 * steps (k steps beside k - 1 and k + 1), and is not excused; a stall that held one firing back
 * may hold the next back a little (under QEMU: 16.2 ms, then 4.1 ms, then on time).
 * Firings outside [from_ns, to_ns] only lay the grid.
 */
void timer_late_measure(const uint64_t *fire_ns, int n, uint64_t period_ns, uint64_t on_grid_ns, uint64_t from_ns,
			uint64_t to_ns, struct timer_late *out);

#endif
