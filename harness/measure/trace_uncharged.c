// SPDX-License-Identifier: GPL-2.0-only
/* A hog's time on the CPU by the trace less its CPU clock: the kernel's uncharged stalls. */
#include "trace_uncharged.h"
#include "cpu_timeline.h"
#include "json_util.h"

#include <math.h>
#include <stdlib.h>

/*
 * The task's CPU timeline (malloc'ed: large, and no static the tasks forked from here would
 * lock with their memory) and the span both views cover from the window start; 0 when they
 * do not fit together or there is no memory.
 */
static uint64_t common_span(const struct trace_input *in, const struct task_record *rec, struct cpu_timeline **tl)
{
	*tl = malloc(sizeof(**tl));
	if (!*tl || in->end_ns <= in->start_ns || rec->first_ns != in->start_ns || !cpu_timeline_build(rec, *tl))
		return 0;
	return in->end_ns - in->start_ns < (*tl)->end_ns ? in->end_ns - in->start_ns : (*tl)->end_ns;
}

/* A gap's start and end from the window start, one before it clipped to it. */
static void gap_bounds(const struct trace_input *in, const struct trace_gap *gap, uint64_t *from, uint64_t *to)
{
	*from = gap->start_ns > in->start_ns ? gap->start_ns - in->start_ns : 0;
	*to = gap->end_ns > in->start_ns ? gap->end_ns - in->start_ns : 0;
}

/* Switched-out time in [0, t) from the window start; gaps are in time order. */
static uint64_t off_until(const struct trace_input *in, const struct trace_gap *gaps, size_t count, uint64_t t)
{
	uint64_t off = 0;

	for (size_t i = 0; i < count; i++) {
		uint64_t from, to;

		gap_bounds(in, &gaps[i], &from, &to);

		if (from >= t)
			break;
		off += (to < t ? to : t) - from;
	}
	return off;
}

double trace_uncharged_us(const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			  const struct task_record *rec)
{
	struct cpu_timeline *tl;
	uint64_t span = common_span(in, rec, &tl), off = off_until(in, gaps, count, span);
	double uncharged = span && off <= span ? ((double)(span - off) - cpu_timeline_between(tl, 0, span)) / 1e3 : -1;

	free(tl);
	return uncharged;
}

static int earlier(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double trace_uncharged_max_us(const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			      const struct task_record *rec, uint64_t within_ns)
{
	struct cpu_timeline *tl;
	uint64_t span = common_span(in, rec, &tl), *t;
	double *u, best = 0;
	size_t n = 0, *window, head = 0, tail = 0, g = 0;
	uint64_t off = 0, off_at = 0;

	if (!span || !within_ns) {
		free(tl);
		return -1;
	}
	/*
	 * U(t) = wall - switched out - CPU bends only at the timeline's points and the gaps' edges:
	 * a span's rise U(s + w) - U(s) is largest where s or s + w is such a bend, so each bend b
	 * brings b - w and b + w too.
	 */
	size_t cap = 3 * ((size_t)tl->count + 2 * count + 1);

	t = malloc(cap * sizeof(*t));
	u = malloc(cap * sizeof(*u));
	window = malloc(cap * sizeof(*window));
	if (!t || !u || !window) {
		free(tl);
		free(t);
		free(u);
		free(window);
		return -1;
	}
	for (int i = 0; i < tl->count; i++)
		if (tl->t_ns[i] <= span)
			t[n++] = tl->t_ns[i];
	for (size_t i = 0; i < count; i++) {
		uint64_t from, to;

		gap_bounds(in, &gaps[i], &from, &to);

		if (from <= span)
			t[n++] = from;
		if (to <= span)
			t[n++] = to;
	}
	t[n++] = span;
	for (size_t i = 0, bends = n; i < bends; i++) {
		if (t[i] >= within_ns)
			t[n++] = t[i] - within_ns;
		if (t[i] + within_ns <= span)
			t[n++] = t[i] + within_ns;
	}
	qsort(t, n, sizeof(*t), earlier);
	for (size_t j = 0; j < n; j++) {
		/* The switched-out time up to t[j], the gaps walked once as t grows. */
		for (; g < count; g++) {
			uint64_t from, to;

			gap_bounds(in, &gaps[g], &from, &to);

			if (to > t[j]) {
				off_at = from < t[j] ? t[j] - from : 0;
				break;
			}
			off += to - from;
			off_at = 0;
		}
		u[j] = (double)t[j] - (double)(off + off_at) - cpu_timeline_between(tl, 0, t[j]);
		/* The lowest U within one span back: a deque of rising values. */
		while (tail > head && u[window[tail - 1]] >= u[j])
			tail--;
		window[tail++] = j;
		while (t[window[head]] + within_ns < t[j])
			head++;
		if (u[j] - u[window[head]] > best)
			best = u[j] - u[window[head]];
	}
	free(tl);
	free(t);
	free(u);
	free(window);
	return best / 1e3;
}

void trace_uncharged_to_json(json_object *obj, const struct trace_input *in, const struct trace_gap *gaps,
			     size_t count, const struct task_record *rec, uint64_t span_ns)
{
	double uncharged = trace_uncharged_us(in, gaps, count, rec), most;

	if (uncharged == -1)
		return;
	json_add_double(obj, "uncharged_us", round(uncharged * 10) / 10);
	most = trace_uncharged_max_us(in, gaps, count, rec, span_ns);
	if (most == -1)
		return;
	json_add_double(obj, "uncharged_max_us", round(most * 10) / 10);
	json_add_double(obj, "uncharged_span_us", span_ns / 1e3);
}
