// SPDX-License-Identifier: GPL-2.0-only
/* Gap ends and samples merged in time order, clamped so the task's CPU time never outruns the wall. */
#include "cpu_timeline.h"
#include <stddef.h>


static void add_point(struct cpu_timeline *tl, uint64_t t, uint64_t cpu)
{
	/* Clamp: the CPU clock is read a little after the gap ends, and never runs ahead of the wall. */
	if (tl->count) {
		uint64_t t0 = tl->t_ns[tl->count - 1], c0 = tl->cpu_ns[tl->count - 1];

		if (t < t0)
			t = t0;
		if (cpu < c0)
			cpu = c0;
		if (cpu - c0 > t - t0)
			cpu = c0 + (t - t0);
	}
	tl->t_ns[tl->count] = t;
	tl->cpu_ns[tl->count] = cpu;
	tl->count++;
}

bool cpu_timeline_build(const struct task_record *rec, struct cpu_timeline *tl)
{
	const struct gap_stats *g = &rec->gaps;
	uint64_t end = rec->last_ns > rec->first_ns ? rec->last_ns - rec->first_ns : 0;
	uint64_t cpu_end = rec->cpu_ns;

	tl->count = 0;
	tl->end_ns = 0;
	tl->first_gap_end_ns = g->long_stored && !g->long_gaps[0].start_ns ? g->long_gaps[0].len_ns : 0;
	tl->before_first_ns = tl->first_gap_end_ns ? rec->cpu_before_first_ns : 0;
	if (!end)
		return false;
	/* Past the last stored gap nothing is known when later ones were dropped. */
	if (g->long_total > g->long_stored && g->long_stored) {
		const struct gap_event *last = &g->long_gaps[g->long_stored - 1];

		end = last->start_ns + last->len_ns;
		cpu_end = last->cpu_ns;
	}
	add_point(tl, 0, 0);
	/* The gaps' ends and the samples, each in time order: merged. */
	for (uint32_t i = 0, k = 0;; i++) {
		const struct gap_event *e = i < g->long_stored ? &g->long_gaps[i] : NULL;
		uint64_t gap_end = e ? e->start_ns + e->len_ns : end;

		if (gap_end > end)
			gap_end = end, e = NULL;
		for (; k < rec->samples.count && rec->samples.at[k].t_us * 1000ull <= (e ? e->start_ns : end); k++)
			add_point(tl, rec->samples.at[k].t_us * 1000ull, rec->samples.at[k].cpu_us * 1000ull);
		if (!e)
			break;
		add_point(tl, e->start_ns, e->cpu_ns);
		add_point(tl, gap_end, e->cpu_ns);
	}
	add_point(tl, end, cpu_end);
	tl->step_ns = rec->samples.count ? rec->samples.every_ns : 0;
	tl->end_ns = end;
	return true;
}

/* The last point at or before t (lo) and the first after it (hi), t within the points. */
static void bracket(const struct cpu_timeline *tl, uint64_t t, int *lo_out, int *hi_out)
{
	int lo = 0, hi = tl->count - 1;

	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (tl->t_ns[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	*lo_out = lo;
	*hi_out = hi;
}

static double cpu_at(const struct cpu_timeline *tl, uint64_t t)
{
	int lo, hi;

	if (t <= tl->t_ns[0])
		return (double)tl->cpu_ns[0];
	if (t >= tl->t_ns[tl->count - 1])
		return (double)tl->cpu_ns[tl->count - 1];
	bracket(tl, t, &lo, &hi);
	if (tl->t_ns[hi] == tl->t_ns[lo])
		return (double)tl->cpu_ns[hi];
	return (double)tl->cpu_ns[lo] + (double)(tl->cpu_ns[hi] - tl->cpu_ns[lo]) *
						(double)(t - tl->t_ns[lo]) / (double)(tl->t_ns[hi] - tl->t_ns[lo]);
}

double cpu_timeline_unplaced_at(const struct cpu_timeline *tl, uint64_t t)
{
	int lo, hi;

	if (tl->count < 2 || t <= tl->t_ns[0] || t >= tl->t_ns[tl->count - 1])
		return 0;
	bracket(tl, t, &lo, &hi);
	return (double)(tl->cpu_ns[hi] - tl->cpu_ns[lo]) + (t < tl->first_gap_end_ns ? (double)tl->before_first_ns : 0);
}

double cpu_timeline_between(const struct cpu_timeline *tl, uint64_t from_ns, uint64_t to_ns)
{
	return to_ns > from_ns ? cpu_at(tl, to_ns) - cpu_at(tl, from_ns) : 0;
}
