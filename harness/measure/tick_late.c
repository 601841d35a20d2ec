// SPDX-License-Identifier: GPL-2.0-only
/* The tick's gaps on a busy CPU: timer interrupts the machine delivered late. */
#include "tick_late.h"

#include <string.h>

void tick_late_init(struct tick_late *t, uint64_t tick_ns, uint64_t from_ns, uint64_t to_ns)
{
	memset(t, 0, sizeof(*t));
	t->tick_ns = tick_ns;
	t->from_ns = from_ns;
	t->to_ns = to_ns;
	t->unknown = true;
	t->interrupted = true;
}

void tick_late_switch(struct tick_late *t, bool to_idle)
{
	t->unknown = false;
	t->idle = to_idle;
	if (to_idle)
		t->interrupted = true;
}

void tick_late_follow(struct tick_late *t, bool followed_on)
{
	t->followed_on = followed_on;
}

void tick_late_firing(struct tick_late *t, uint64_t at_ns)
{
	bool in_window = at_ns >= t->from_ns && at_ns <= t->to_ns;

	if (t->followed_on)
		t->followed_firings++;

	if (in_window)
		t->firings++;
	if (in_window && t->last_ns && !t->interrupted && at_ns > t->last_ns) {
		uint64_t gap = at_ns - t->last_ns;

		t->busy_gaps++;
		if (gap > t->tick_ns && gap - t->tick_ns > t->late_max_ns) {
			t->late_max_ns = gap - t->tick_ns;
			t->late_at_ns = at_ns;
		}
		if (gap >= t->tick_ns + TICK_LATE_LISTED_NS) {
			if (t->listed < TICK_LATE_LIST_MAX)
				t->list[t->listed++] = (struct tick_late_gap){ at_ns, gap - t->tick_ns };
			else
				t->list_full = true;
		}
	}
	t->last_ns = at_ns;
	t->interrupted = t->idle || t->unknown;
}
