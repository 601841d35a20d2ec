// SPDX-License-Identifier: GPL-2.0-only
/* The RT period timers' next expiry, read from /proc/timer_list. */
#include "rt_timer.h"

#include <inttypes.h>
#include <string.h>

/*
 * An entry is two lines:
 *  #4: <0000000058e0b946>, sched_rt_period_timer, S:01
 *  # expires at 36594306085651-36594306085651 nsecs [in 742907098 to 742907098 nsecs]
 * The root group's timer and each RT group's are all named so; the latest expiry covers them.
 * A kernel without kallsyms prints each function as its address (0xffffffff...): its RT
 * timers cannot be told from the others, so nothing can be told.
 */
bool rt_timer_parse(FILE *f, struct rt_timer_state *out)
{
	char line[512];
	bool saw_cpu = false, next_is_ours = false, unnamed = false;

	memset(out, 0, sizeof(*out));
	while (fgets(line, sizeof(line), f)) {
		int64_t soft, hard;
		const char *in;

		if (!strncmp(line, "cpu: ", 5))
			saw_cpu = true;
		if (sscanf(line, "now at %" SCNd64 " nsecs", &soft) == 1)
			out->now_ns = soft;
		if (strstr(line, ">, 0x"))
			unnamed = true;
		if (strstr(line, ", sched_rt_period_timer,")) {
			next_is_ours = true;
			continue;
		}
		if (!next_is_ours)
			continue;
		next_is_ours = false;
		in = strstr(line, "[in ");
		if (!in || sscanf(in, "[in %" SCNd64 " to %" SCNd64 " nsecs]", &soft, &hard) != 2)
			continue;
		if (!out->armed || hard > out->last_in_ns)
			out->last_in_ns = hard;
		out->armed = true;
	}
	return saw_cpu && !unnamed;
}

bool rt_timer_fired_since(const struct rt_timer_state *t, int64_t period_ns, uint64_t since_ns)
{
	return t->armed && t->now_ns > 0 && t->now_ns + t->last_in_ns - period_ns >= (int64_t)since_ns;
}

uint64_t rt_timer_last_firing_by(const struct rt_timer_state *t, int64_t period_ns, uint64_t by_ns)
{
	int64_t next = t->now_ns + t->last_in_ns;

	if (!t->armed || t->now_ns <= 0 || period_ns <= 0 || next > (int64_t)by_ns)
		return 0;
	return (uint64_t)(next + ((int64_t)by_ns - next) / period_ns * period_ns);
}

bool rt_timer_off_grid(const struct rt_timer_state *t, int64_t period_ns, uint64_t firing_ns, int64_t *off_ns)
{
	if (!t->armed || t->now_ns <= 0 || period_ns <= 0 || t->now_ns >= (int64_t)firing_ns + period_ns)
		return false;
	*off_ns = (t->now_ns + t->last_in_ns - (int64_t)firing_ns) % period_ns;
	if (*off_ns > period_ns / 2)
		*off_ns -= period_ns;
	else if (*off_ns < -period_ns / 2)
		*off_ns += period_ns;
	return true;
}

int64_t rt_timer_grid_last_by(int64_t at_ns, int64_t period_ns, int64_t by_ns)
{
	int64_t k = (by_ns - at_ns) / period_ns;

	/* C division truncates towards zero: one period less below the grid's point. */
	if (by_ns < at_ns && (at_ns - by_ns) % period_ns)
		k--;
	return at_ns + k * period_ns;
}

bool rt_timer_read(struct rt_timer_state *out)
{
	FILE *f = fopen("/proc/timer_list", "re");
	bool ok;

	if (!f)
		return false;
	ok = rt_timer_parse(f, out);
	fclose(f);
	return ok;
}
