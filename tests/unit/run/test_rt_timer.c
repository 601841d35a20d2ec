// SPDX-License-Identifier: GPL-2.0-only
/* The RT period timers' next expiry as /proc/timer_list shows it (6.18's layout). */
#include "rt_timer.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool parse_text(const char *text, struct rt_timer_state *t)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool ok;

	if (!f)
		return false;
	ok = rt_timer_parse(f, t);
	fclose(f);
	return ok;
}

TEST(rt_timer_latest_expiry_of_every_rt_period_timer)
{
	static const char two_armed[] =
		"Timer List Version: v0.10\n"
		"now at 36593575512842 nsecs\n\n"
		"cpu: 0\n clock 0:\n active timers:\n"
		" #0: <00000000d898890c>, hrtimer_wakeup, S:01\n"
		" # expires at 36593576000000-36593576050000 nsecs [in 487158 to 537158 nsecs]\n"
		" #4: <0000000058e0b946>, sched_rt_period_timer, S:01\n"
		" # expires at 36594306085651-36594306085651 nsecs [in 742907098 to 742907098 nsecs]\n"
		"cpu: 1\n clock 0:\n active timers:\n"
		" #0: <00000000aa>, sched_rt_period_timer, S:01\n"
		" # expires at 36593600000000-36593600000000 nsecs [in 24487158 to 24487158 nsecs]\n"
		" #1: <00000000ecbde17a>, dl_task_timer, S:01\n"
		" # expires at 36599000000000-36599000000000 nsecs [in 5424487158 to 5424487158 nsecs]\n";
	static const char none_armed[] =
		"Timer List Version: v0.10\nnow at 1 nsecs\n\ncpu: 0\n active timers:\n"
		" #0: <00000000d898890c>, tick_nohz_handler, S:01\n"
		" # expires at 2-2 nsecs [in 1 to 1 nsecs]\n";
	static const char firing[] =
		"cpu: 1\n #0: <0>, sched_rt_period_timer, S:01\n"
		" # expires at 5-5 nsecs [in -1200 to -1200 nsecs]\n";
	struct rt_timer_state t;

	CHECK(parse_text(two_armed, &t) && t.armed && t.last_in_ns == 742907098,
	      "two RT timers: armed %d, latest in %lld ns (the dl timer is no RT period timer)", t.armed,
	      (long long)t.last_in_ns);
	CHECK(t.now_ns == 36593575512842, "read at %lld ns", (long long)t.now_ns);
	CHECK(parse_text(none_armed, &t) && !t.armed, "no RT timer: armed %d", t.armed);
	CHECK(parse_text(firing, &t) && t.armed && t.last_in_ns == -1200 && !t.now_ns,
	      "a timer being fired: in %lld ns, read at %lld", (long long)t.last_in_ns, (long long)t.now_ns);
	CHECK(!parse_text("not a timer list\n", &t) && !parse_text("", &t), "text with no CPU reads as a list");
	/* Without kallsyms every function is an address: an RT timer cannot be told from others. */
	CHECK(!parse_text("cpu: 0\n active timers:\n #0: <00000000d898890c>, 0xffffffff8110a2b0, S:01\n"
			  " # expires at 2-2 nsecs [in 1 to 1 nsecs]\n", &t),
	      "a list of addresses reads as telling the RT timers apart");
}

/*
 * A window whose RT tasks left at 3.000000 s; its 1 s timer, started by its first wake-up,
 * fired at 3.000100 s and is armed for 4.000100 s: that firing came after they left.
 */
TEST(rt_timer_fired_since_the_tasks_left)
{
	struct rt_timer_state t = { .armed = true, .now_ns = 3050000000, .last_in_ns = 950100000 };

	CHECK(rt_timer_fired_since(&t, 1000000000, 3000000000ull), "fired at 3.0001 s, after 3.0 s");
	CHECK(!rt_timer_fired_since(&t, 1000000000, 3000200000ull), "fired at 3.0001 s, before 3.0002 s");
	t.now_ns = 0;
	CHECK(!rt_timer_fired_since(&t, 1000000000, 3000000000ull), "a list that does not say when it was read");
	t = (struct rt_timer_state){ .armed = false, .now_ns = 3050000000 };
	CHECK(!rt_timer_fired_since(&t, 1000000000, 0), "nothing armed");
}

/*
 * A window from 10.0 s to 13.0 s under a 1 s period; the timer, armed from the window before,
 * fires next at 10.93 s: its last firing by the end is at 12.93 s. Not armed, not said when
 * read, or not firing before the end: none.
 */
TEST(rt_timer_last_firing_by_a_window_end)
{
	struct rt_timer_state t = { .armed = true, .now_ns = 10000000000, .last_in_ns = 930000000 };

	CHECK(rt_timer_last_firing_by(&t, 1000000000, 13000000000ull) == 12930000000ull, "last firing %llu",
	      (unsigned long long)rt_timer_last_firing_by(&t, 1000000000, 13000000000ull));
	CHECK(rt_timer_last_firing_by(&t, 1000000000, 12930000000ull) == 12930000000ull, "a firing at the end itself");
	CHECK(rt_timer_last_firing_by(&t, 1000000000, 10900000000ull) == 0, "none before the end");
	CHECK(rt_timer_last_firing_by(&t, 0, 13000000000ull) == 0, "no period");
	t.now_ns = 0;
	CHECK(rt_timer_last_firing_by(&t, 1000000000, 13000000000ull) == 0, "not said when read");
	t = (struct rt_timer_state){ .armed = false, .now_ns = 10000000000 };
	CHECK(rt_timer_last_firing_by(&t, 1000000000, 13000000000ull) == 0, "not armed");
}

/*
 * A window cut before a firing foretold at 12.93 s (1 s period), the list read after it: the
 * timer next at 13.93 s is on that grid; at 13.9425 s, 12.5 ms off it (the kernel's own grid,
 * seen on an emulator); at 13.4 s, half a period off either way. Read a period or more after
 * the firing, or not armed: unknown.
 */
TEST(rt_timer_off_the_foretold_grid)
{
	struct rt_timer_state t = { .armed = true, .now_ns = 13020000000, .last_in_ns = 910000000 };
	int64_t off = 1;

	CHECK(rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off) && off == 0, "on the grid: %lld", (long long)off);
	t.last_in_ns = 922500000;
	CHECK(rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off) && off == 12500000, "late: %lld",
	      (long long)off);
	t.last_in_ns = 897500000;
	CHECK(rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off) && off == -12500000, "early: %lld",
	      (long long)off);
	t.last_in_ns = 1000000000 + 922500000;	/* a period further on: the same grid */
	CHECK(rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off) && off == 12500000, "%lld", (long long)off);
	t.last_in_ns = 380000000;
	CHECK(rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off) && llabs(off) <= 500000000, "half: %lld",
	      (long long)off);
	t.now_ns = 13930000000;
	CHECK(!rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off), "read a period after the firing");
	t = (struct rt_timer_state){ .armed = false, .now_ns = 13020000000 };
	CHECK(!rt_timer_off_grid(&t, 1000000000, 12930000000ull, &off), "not armed");
}

/* The last point at or before a time of the grid through 886 ms, 1 s apart, either side of it. */
TEST(rt_timer_grid_last_by_either_side)
{
	CHECK(rt_timer_grid_last_by(886, 1000, 1873) == 886, "%lld", (long long)rt_timer_grid_last_by(886, 1000, 1873));
	CHECK(rt_timer_grid_last_by(1886, 1000, 1873) == 886, "%lld", (long long)rt_timer_grid_last_by(1886, 1000, 1873));
	CHECK(rt_timer_grid_last_by(3886, 1000, 3873) == 2886, "%lld", (long long)rt_timer_grid_last_by(3886, 1000, 3873));
	CHECK(rt_timer_grid_last_by(1886, 1000, 886) == 886, "on the grid itself");
	CHECK(rt_timer_grid_last_by(1886, 1000, 0) == -114, "%lld", (long long)rt_timer_grid_last_by(1886, 1000, 0));
	CHECK(rt_timer_grid_last_by(-114, 1000, 5000) == 4886, "%lld", (long long)rt_timer_grid_last_by(-114, 1000, 5000));
}

TEST(rt_timer_live_file_reads)
{
	struct rt_timer_state t;

	/* Root can read it on every kernel this suite supports; unreadable only under a lockdown. */
	if (!rt_timer_read(&t)) {
		CHECK(access("/proc/timer_list", R_OK) != 0, "/proc/timer_list is readable but did not parse");
		return;
	}
	CHECK(!t.armed || (t.last_in_ns > -1000000000ll && t.last_in_ns < 10000000000ll),
	      "an RT period timer in %lld ns", (long long)t.last_in_ns);
}
