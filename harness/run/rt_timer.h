/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When the kernel's RT period timers fire next, from /proc/timer_list: RT time run up in a
 * period is forgiven only when its timer fires, so a window waits for that, not a whole period.
 */
#ifndef RTT_RT_TIMER_H
#define RTT_RT_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rt_timer_state {
	bool armed;		/* some sched_rt_period_timer is queued */
	int64_t last_in_ns;	/* the latest of their expiries, from now (may be < 0: firing) */
	int64_t now_ns;		/* when the list was read (CLOCK_MONOTONIC), 0 if it does not say */
};

/*
 * Reads the timer list in f (the format of /proc/timer_list). False when it names no CPU's
 * timers at all (not that file, or cut short), or names functions only by address (a kernel
 * without kallsyms): nothing can be told then.
 */
bool rt_timer_parse(FILE *f, struct rt_timer_state *out);
/*
 * Whether the armed timers last fired at or after `since_ns` (CLOCK_MONOTONIC): a timer of
 * period `period_ns` that fires next at E fired last at E - period. False when the list did
 * not say when it was read, or nothing is armed.
 */
bool rt_timer_fired_since(const struct rt_timer_state *t, int64_t period_ns, uint64_t since_ns);
/*
 * The last firing at or before `by_ns` (CLOCK_MONOTONIC) of the armed timers, their next at
 * t->now_ns + t->last_in_ns and the ones after a period_ns apart; 0 when none comes by then
 * (or the list did not say when it was read, or nothing is armed).
 */
uint64_t rt_timer_last_firing_by(const struct rt_timer_state *t, int64_t period_ns, uint64_t by_ns);
/*
 * How far the timers' grid, read at t (its next firing), lies off the grid of a firing
 * foretold at `firing_ns`, ±half of period_ns; false when unknown: nothing armed, or read a
 * period or more after that firing (the timer may have stopped since at a firing that found no
 * RT time run up, and been armed again on another grid).
 */
bool rt_timer_off_grid(const struct rt_timer_state *t, int64_t period_ns, uint64_t firing_ns, int64_t *off_ns);
/* The last firing at or before by_ns on the grid through at_ns with period_ns. */
int64_t rt_timer_grid_last_by(int64_t at_ns, int64_t period_ns, int64_t by_ns);
/* rt_timer_parse of /proc/timer_list; false when it cannot be read. */
bool rt_timer_read(struct rt_timer_state *out);

#endif
