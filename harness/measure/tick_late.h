/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How late the machine delivered timer interrupts to a CPU, witnessed by the tick: on a CPU that
 * never went idle the tick's hrtimer fires every tick, whatever the scheduler does (it runs in
 * hard interrupt context, above every task), so a longer gap between two of its firings is an
 * interrupt the machine held back. Pure: fed the CPU's switches and firings in time order.
 */
#ifndef RTT_TICK_LATE_H
#define RTT_TICK_LATE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Busy gaps held back at least this long are listed one by one: the periods they fall in are
 * the disturbed ones (promise.h). Shorter is the interrupt's own jitter.
 */
#define TICK_LATE_LISTED_NS 500000ull
#define TICK_LATE_LIST_MAX 256

struct tick_late_gap {
	uint64_t at_ns;		/* the firing that ended it */
	uint64_t late_ns;	/* the gap less a tick */
};

struct tick_late {
	uint64_t tick_ns, from_ns, to_ns;	/* the tick's period; the window */
	/* State between firings. */
	bool idle;		/* the CPU runs its idle task (the tick may be stopped) */
	bool unknown;		/* no switch seen yet: what runs is not known */
	bool interrupted;	/* since the last firing the CPU was idle, or its state unknown */
	uint64_t last_ns;	/* the last firing; 0 before the first */
	bool followed_on;	/* the followed task is the one running */
	/* What it found, for gaps ending in [from_ns, to_ns]. */
	int firings;		/* firings in the window */
	int busy_gaps;		/* gaps between two firings with the CPU busy throughout */
	uint64_t late_max_ns;	/* the longest busy gap less a tick: 0 when none is longer */
	uint64_t late_at_ns;	/* the firing that ended it */
	/* Every busy gap late by TICK_LATE_LISTED_NS or more, in time order (the first ones). */
	int listed;
	bool list_full;		/* more were late than listed */
	struct tick_late_gap list[TICK_LATE_LIST_MAX];
	/*
	 * Firings while the followed task ran, over the whole trace (it may start before the
	 * window): what the kernel's RT watchdog counts for RLIMIT_RTTIME, one a tick handler run.
	 */
	int followed_firings;
};

void tick_late_init(struct tick_late *t, uint64_t tick_ns, uint64_t from_ns, uint64_t to_ns);
/* A switch on the CPU, to its idle task or to a task. */
void tick_late_switch(struct tick_late *t, bool to_idle);
/* A switch on the CPU: whether the task switched in is the followed one. */
void tick_late_follow(struct tick_late *t, bool followed_on);
/*
 * A firing of the CPU's tick. A gap is judged only where the CPU ran tasks from one firing to
 * the next: an idle CPU may stop its tick (NOHZ), a busy one does not (a nohz_full CPU may:
 * the caller does not feed those). The previous firing may itself have been late, so the gap
 * less a tick never overstates how late this one was.
 */
void tick_late_firing(struct tick_late *t, uint64_t at_ns);

#endif
