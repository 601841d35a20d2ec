// SPDX-License-Identifier: GPL-2.0-only
/* A spinner's record rewritten as if it had run in some spans and not in others (timeline_shift.h). */
#include "timeline_shift.h"
#include "cpu_timeline.h"
#include "spin_measure.h"

#include <stdlib.h>
#include <string.h>

struct spans {
	int n, cap;
	struct shift_span *s;
};

static bool spans_add(struct spans *l, uint64_t from, uint64_t to)
{
	if (to <= from)
		return true;
	/* Touching or overlapping the last one: one span (the lists are built in order). */
	if (l->n && from <= l->s[l->n - 1].to_ns) {
		if (to > l->s[l->n - 1].to_ns)
			l->s[l->n - 1].to_ns = to;
		return true;
	}
	if (l->n == l->cap) {
		struct shift_span *more = realloc(l->s, sizeof(*more) * (size_t)(l->cap = l->cap ? 2 * l->cap : 64));

		if (!more)
			return false;
		l->s = more;
	}
	l->s[l->n++] = (struct shift_span){ from, to };
	return true;
}

/* a ∪ b, both sorted. */
static bool spans_union(const struct shift_span *a, int na, const struct shift_span *b, int nb, struct spans *out)
{
	for (int i = 0, j = 0; i < na || j < nb;) {
		const struct shift_span *next = j >= nb || (i < na && a[i].from_ns <= b[j].from_ns) ? &a[i++] : &b[j++];

		if (!spans_add(out, next->from_ns, next->to_ns))
			return false;
	}
	return true;
}

/* a \ b (keep = false) or a ∩ b (keep = true), both sorted, b not overlapping itself. */
static bool spans_cut(const struct shift_span *a, int na, const struct shift_span *b, int nb, bool keep,
		      struct spans *out)
{
	for (int i = 0; i < na; i++) {
		uint64_t at = a[i].from_ns;

		for (int j = 0; j < nb && at < a[i].to_ns; j++) {
			uint64_t from = b[j].from_ns > at ? b[j].from_ns : at;
			uint64_t to = b[j].to_ns < a[i].to_ns ? b[j].to_ns : a[i].to_ns;

			if (to <= from)
				continue;
			if (!spans_add(out, keep ? from : at, keep ? to : from))
				return false;
			at = to;
		}
		if (!keep && !spans_add(out, at, a[i].to_ns))
			return false;
	}
	return true;
}

static bool inside(const struct spans *l, uint64_t t)
{
	for (int i = 0; i < l->n; i++)
		if (t >= l->s[i].from_ns && t < l->s[i].to_ns)
			return true;
	return false;
}

/* How the CPU clock moves: what the new run adds and the removed spans take, by t. */
struct shift_clock {
	const struct cpu_timeline *old;
	const struct spans *added, *removed;
};

static double old_cpu(const struct shift_clock *c, uint64_t t)
{
	return cpu_timeline_between(c->old, 0, t < c->old->end_ns ? t : c->old->end_ns);
}

static double new_cpu(const struct shift_clock *c, uint64_t t)
{
	double v = old_cpu(c, t);

	for (int i = 0; i < c->added->n && c->added->s[i].from_ns < t; i++)
		v += (double)((t < c->added->s[i].to_ns ? t : c->added->s[i].to_ns) - c->added->s[i].from_ns);
	/* A removed span takes what the old clock counted in it: flat there. */
	for (int i = 0; i < c->removed->n && c->removed->s[i].from_ns < t; i++)
		v -= old_cpu(c, t < c->removed->s[i].to_ns ? t : c->removed->s[i].to_ns) -
		     old_cpu(c, c->removed->s[i].from_ns);
	return v > 0 ? v : 0;
}

static int sample_order(const void *a, const void *b)
{
	const struct cpu_sample *x = a, *y = b;

	return (x->t_us > y->t_us) - (x->t_us < y->t_us);
}

static bool samples_rewrite(struct task_record *rec, const struct shift_clock *c)
{
	struct cpu_samples *s = &rec->samples;
	uint64_t every = s->every_ns ? s->every_ns : CPU_SAMPLE_MIN_NS;
	uint32_t n = 0;
	struct cpu_sample *out = malloc(sizeof(*out) * CPU_SAMPLES_MAX);

	if (!out)
		return false;
	for (uint32_t i = 0; i < s->count; i++) {
		uint64_t t = s->at[i].t_us * 1000ull;

		if (inside(c->removed, t))
			continue;
		out[n++] = (struct cpu_sample){ s->at[i].t_us, (uint32_t)(new_cpu(c, t) / 1000) };
	}
	for (int i = 0; i < c->added->n; i++)
		for (uint64_t t = c->added->s[i].from_ns; t < c->added->s[i].to_ns; t += every) {
			if (n == CPU_SAMPLES_MAX) {
				free(out);
				return false;
			}
			out[n++] = (struct cpu_sample){ (uint32_t)(t / 1000), (uint32_t)(new_cpu(c, t) / 1000) };
		}
	qsort(out, n, sizeof(*out), sample_order);
	memcpy(s->at, out, sizeof(*out) * n);
	s->count = n;
	free(out);
	return true;
}

static void gap_remove(struct gap_stats *g, uint64_t len)
{
	int b = gap_bucket(len);

	g->count -= g->count > 0;
	g->total_ns -= len < g->total_ns ? len : g->total_ns;
	g->hist[b] -= g->hist[b] > 0;
}

static void longest_insert(struct gap_stats *g, const struct gap_event *e)
{
	int at = LONGEST_GAPS;

	while (at > 0 && g->longest[at - 1].len_ns < e->len_ns)
		at--;
	if (at == LONGEST_GAPS)
		return;
	memmove(&g->longest[at + 1], &g->longest[at], sizeof(*e) * (LONGEST_GAPS - 1 - at));
	g->longest[at] = *e;
}

static bool gaps_rewrite(struct task_record *rec, const struct spans *idle, const struct shift_clock *c)
{
	struct gap_stats *g = &rec->gaps;
	uint64_t short_max = g->max_ns;

	for (uint32_t i = 0; i < g->long_stored; i++) {
		gap_remove(g, g->long_gaps[i].len_ns);
		if (g->long_gaps[i].len_ns >= short_max)
			short_max = 0;	/* the longest was a long one: the short ones' is below the threshold */
	}
	if (short_max >= rec->config.long_gap_ns)
		short_max = 0;
	g->max_ns = short_max;
	g->long_stored = 0;
	g->long_total = 0;
	memset(g->longest, 0, sizeof(g->longest));
	for (int i = 0; i < idle->n; i++) {
		struct gap_event e = { idle->s[i].from_ns, idle->s[i].to_ns - idle->s[i].from_ns, 0 };

		if (e.len_ns < rec->config.long_gap_ns)
			continue;
		if (g->long_stored == LONG_GAPS_MAX)
			return false;
		e.cpu_ns = (uint64_t)new_cpu(c, idle->s[i].to_ns);
		g->long_gaps[g->long_stored++] = e;
		g->long_total++;
		g->count++;
		g->total_ns += e.len_ns;
		g->hist[gap_bucket(e.len_ns)]++;
		if (e.len_ns > g->max_ns)
			g->max_ns = e.len_ns;
		longest_insert(g, &e);
	}
	return true;
}

bool timeline_shift(struct task_record *rec, const struct shift_span *on, int on_count, const struct shift_span *off,
		    int off_count)
{
	struct cpu_timeline *tl = malloc(sizeof(*tl));
	struct spans gaps = { 0 }, busy_or_off = { 0 }, idle = { 0 }, added = { 0 }, removed = { 0 };
	struct shift_clock clock = { tl, &added, &removed };
	uint64_t end = rec->last_ns > rec->first_ns ? rec->last_ns - rec->first_ns : 0;
	double old_total, new_total;
	bool ok = false;

	if (!tl || !rec->samples.count || rec->gaps.long_total > rec->gaps.long_stored || !cpu_timeline_build(rec, tl))
		goto out;
	for (uint32_t i = 0; i < rec->gaps.long_stored; i++)
		if (!spans_add(&gaps, rec->gaps.long_gaps[i].start_ns,
			       rec->gaps.long_gaps[i].start_ns + rec->gaps.long_gaps[i].len_ns))
			goto out;
	/* Idle from now on: (old gaps ∪ off) \ on; newly running: on ∩ old gaps; newly idle: off \ old gaps. */
	if (!spans_union(gaps.s, gaps.n, off, off_count, &busy_or_off) ||
	    !spans_cut(busy_or_off.s, busy_or_off.n, on, on_count, false, &idle) ||
	    !spans_cut(on, on_count, gaps.s, gaps.n, true, &added) ||
	    !spans_cut(off, off_count, gaps.s, gaps.n, false, &removed))
		goto out;
	for (int i = 0; i < idle.n; i++)
		if (idle.s[i].to_ns > end)
			idle.s[i].to_ns = end > idle.s[i].from_ns ? end : idle.s[i].from_ns;
	old_total = old_cpu(&clock, end);
	new_total = new_cpu(&clock, end);
	if (!samples_rewrite(rec, &clock) || !gaps_rewrite(rec, &idle, &clock))
		goto out;
	rec->cpu_ns = (uint64_t)((double)rec->cpu_ns + new_total - old_total);
	rec->rusage_cpu_ns = (uint64_t)((double)rec->rusage_cpu_ns + new_total - old_total);
	if (rec->schedstat_end_ns)
		rec->schedstat_end_ns = (uint64_t)((double)rec->schedstat_end_ns + new_total - old_total);
	if (old_total > 0)
		rec->iterations = (uint64_t)((double)rec->iterations * new_total / old_total);
	ok = true;
out:
	free(gaps.s);
	free(busy_or_off.s);
	free(idle.s);
	free(added.s);
	free(removed.s);
	free(tl);
	return ok;
}
