// SPDX-License-Identifier: GPL-2.0-only
/* A hog's time on the CPU by the trace less its CPU clock: steal no switch shows. */
#include "trace_uncharged.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>

#define MS 1000000ull

/*
 * A hog over a 1 s window from start_ns: switched out at [900, 950) ms (a throttle, its
 * clock stopped), and from `stolen_ms` on for 4 ms on the CPU but stolen (its clock stopped,
 * no switch). Sampled every 250 us as the loop samples.
 */
static void hog_record(struct task_record *rec, uint64_t start_ns, double stolen_ms)
{
	const uint64_t stolen_from = (uint64_t)(stolen_ms * MS), stolen_to = stolen_from + 4 * MS;
	uint64_t cpu = 0, last = 0;

	rec->config.role = ROLE_HOG;
	rec->first_ns = start_ns;
	rec->last_ns = start_ns + 1000 * MS;
	rec->samples.every_ns = 250000;
	for (uint64_t t = 0; t < 1000 * MS; t += 250000) {
		uint64_t step = t - last;

		if (last >= 900 * MS && last < 950 * MS)
			step = 0;
		if (stolen_ms >= 0 && last >= stolen_from && last < stolen_to)
			step = 0;
		cpu += step;
		last = t;
		if ((t > 900 * MS && t < 950 * MS) || (stolen_ms >= 0 && t > stolen_from && t < stolen_to))
			continue;
		rec->samples.at[rec->samples.count++] = (struct cpu_sample){ (uint32_t)(t / 1000), (uint32_t)(cpu / 1000) };
	}
	rec->cpu_ns = cpu + (1000 * MS - last);
	rec->gaps.long_gaps[rec->gaps.long_stored++] = (struct gap_event){ 900 * MS, 50 * MS, 900 * MS - (stolen_ms >= 0 && stolen_ms < 900 ? 4 * MS : 0) };
	rec->gaps.long_total = rec->gaps.long_stored;
}

TEST(trace_uncharged_is_the_steal_no_switch_shows)
{
	struct task_record *rec = calloc(1, sizeof(*rec));
	const uint64_t start = 5000 * MS;
	struct trace_gap throttle = { .start_ns = start + 900 * MS, .end_ns = start + 950 * MS };
	struct trace_input in = { .start_ns = start, .end_ns = start + 1000 * MS };
	double v;

	CHECK(rec != NULL, "out of memory");
	if (!rec)
		return;
	/* Switched out for the throttle only: on the CPU the rest, and charged all of it. */
	hog_record(rec, start, -1);
	v = trace_uncharged_us(&in, &throttle, 1, rec);
	CHECK(fabs(v) < 500, "no steal: %.1f us", v);
	v = trace_uncharged_max_us(&in, &throttle, 1, rec, 100 * MS);
	CHECK(v >= 0 && v < 500, "no steal in any 100 ms: %.1f us", v);
	/* 4 ms stolen at 400 ms, no switch: the trace has it on the CPU, its clock does not. */
	free(rec);
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return;
	hog_record(rec, start, 400);
	v = trace_uncharged_us(&in, &throttle, 1, rec);
	CHECK(fabs(v - 4000) < 500, "4 ms stolen: %.1f us", v);
	/* All of it in one 100 ms span; 1 ms of it in any 1 ms. */
	v = trace_uncharged_max_us(&in, &throttle, 1, rec, 100 * MS);
	CHECK(fabs(v - 4000) < 500, "4 ms stolen within 100 ms: %.1f us", v);
	v = trace_uncharged_max_us(&in, &throttle, 1, rec, MS);
	CHECK(fabs(v - 1000) < 500, "1 ms of it within 1 ms: %.1f us", v);
	/* The same time switched out (a gap the trace saw) is no steal. */
	{
		struct trace_gap both[2] = { { .start_ns = start + 400 * MS, .end_ns = start + 404 * MS }, throttle };

		v = trace_uncharged_us(&in, both, 2, rec);
		CHECK(fabs(v) < 500, "switched out, not stolen: %.1f us", v);
		v = trace_uncharged_max_us(&in, both, 2, rec, 100 * MS);
		CHECK(v >= 0 && v < 500, "switched out, not stolen, in any 100 ms: %.1f us", v);
	}
	/* A record of another window, or none: unknown. */
	in.start_ns += MS;
	CHECK(trace_uncharged_us(&in, &throttle, 1, rec) == -1, "another window");
	CHECK(trace_uncharged_max_us(&in, &throttle, 1, rec, MS) == -1, "another window, in a span");
	free(rec);
}
