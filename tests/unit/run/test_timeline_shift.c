// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recorded spinner's run moved (timeline_shift): the record rewritten must be the one the
 * spinner would have written of the changed schedule: the same long gaps, CPU time and clock.
 */
#include "cpu_timeline.h"
#include "timeline_shift.h"
#include "unit.h"
#include "unit_schedule.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MS UNIT_MS
#define PERIODS 3

/* Three 1 s periods: RT runs rt_ms of each, CFS the rest. */
static void throttled(struct schedule *s, uint64_t rt_ms)
{
	memset(s, 0, sizeof(*s));
	s->end_ns = PERIODS * 1000 * MS;
	for (uint64_t k = 0; k < PERIODS; k++) {
		runs(s, k * 1000 * MS, (k * 1000 + rt_ms) * MS, RT);
		runs(s, (k * 1000 + rt_ms) * MS, (k + 1) * 1000 * MS, CFS);
	}
}

/* Spans [k s + from_ms, k s + to_ms) of each period. */
static int each_period(struct shift_span *out, uint64_t from_ms, uint64_t to_ms)
{
	for (int k = 0; k < PERIODS; k++)
		out[k] = (struct shift_span){ (k * 1000 + from_ms) * MS, (k * 1000 + to_ms) * MS };
	return PERIODS;
}

/* got against want: gaps, totals and the CPU clock every 10 ms (to a sampling step). */
static void same_record(const struct task_record *got, const struct task_record *want, const char *what)
{
	struct cpu_timeline *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

	CHECK(got->cpu_ns == want->cpu_ns, "%s: cpu %llu, want %llu", what, (unsigned long long)got->cpu_ns,
	      (unsigned long long)want->cpu_ns);
	CHECK(got->gaps.long_stored == want->gaps.long_stored, "%s: %u long gaps, want %u", what,
	      got->gaps.long_stored, want->gaps.long_stored);
	for (uint32_t i = 0; i < got->gaps.long_stored && i < want->gaps.long_stored; i++) {
		const struct gap_event *g = &got->gaps.long_gaps[i], *w = &want->gaps.long_gaps[i];

		CHECK(g->start_ns == w->start_ns && g->len_ns == w->len_ns, "%s: gap %u at %llu for %llu, want %llu for %llu",
		      what, i, (unsigned long long)g->start_ns, (unsigned long long)g->len_ns,
		      (unsigned long long)w->start_ns, (unsigned long long)w->len_ns);
		CHECK(llabs((long long)g->cpu_ns - (long long)w->cpu_ns) <= 1000, "%s: gap %u ends at cpu %llu, want %llu",
		      what, i, (unsigned long long)g->cpu_ns, (unsigned long long)w->cpu_ns);
	}
	CHECK(got->gaps.max_ns == want->gaps.max_ns, "%s: longest gap %llu, want %llu", what,
	      (unsigned long long)got->gaps.max_ns, (unsigned long long)want->gaps.max_ns);
	CHECK(got->gaps.longest[0].len_ns == want->gaps.max_ns, "%s: longest[0] %llu", what,
	      (unsigned long long)got->gaps.longest[0].len_ns);
	CHECK(a && b && cpu_timeline_build(got, a) && cpu_timeline_build(want, b), "%s: timelines", what);
	for (uint64_t t = 0; a && b && t < PERIODS * 1000 * MS; t += 10 * MS) {
		double x = cpu_timeline_between(a, 0, t), y = cpu_timeline_between(b, 0, t);

		CHECK(fabs(x - y) <= CPU_SAMPLE_MIN_NS, "%s: cpu by %llu ms %.0f, want %.0f", what,
		      (unsigned long long)(t / MS), x, y);
	}
	free(a);
	free(b);
}

static struct schedule before, after;
static struct task_record rec, want;

/*
 * RT ran rt_ms of each period and now runs rt_after_ms: the spans between move from one task
 * to the other. Both records, rewritten, are the ones the changed schedule gives.
 */
static void rt_moved(uint64_t rt_ms, uint64_t rt_after_ms, const char *what)
{
	struct shift_span spans[PERIODS];
	bool rt_gains = rt_after_ms > rt_ms;
	int n = rt_gains ? each_period(spans, rt_ms, rt_after_ms) : each_period(spans, rt_after_ms, rt_ms);

	throttled(&before, rt_ms);
	throttled(&after, rt_after_ms);
	for (enum owner who = RT; who <= CFS; who++) {
		bool gains = (who == RT) == rt_gains;

		record_of(&before, who, &rec);
		record_of(&after, who, &want);
		CHECK(timeline_shift(&rec, gains ? spans : NULL, gains ? n : 0, gains ? NULL : spans, gains ? 0 : n),
		      "%s: %s's shift", what, who == RT ? "hog" : "victim");
		same_record(&rec, &want, what);
	}
}

TEST(timeline_shift_rt_throttled_early)
{
	rt_moved(950, 900, "RT 50 ms short");
}

TEST(timeline_shift_throttle_late)
{
	rt_moved(950, 958, "the throttle 2 ticks late");
}

TEST(timeline_shift_slot_removed)
{
	/* No throttle at all in the middle period: the hog's gap there disappears. */
	struct shift_span span = { 1950 * MS, 2000 * MS };

	throttled(&before, 950);
	memset(&after, 0, sizeof(after));
	after.end_ns = PERIODS * 1000 * MS;
	runs(&after, 0, 950 * MS, RT);
	runs(&after, 950 * MS, 1000 * MS, CFS);
	runs(&after, 1000 * MS, 2950 * MS, RT);
	runs(&after, 2950 * MS, 3000 * MS, CFS);
	record_of(&before, RT, &rec);
	record_of(&after, RT, &want);
	CHECK(timeline_shift(&rec, &span, 1, NULL, 0), "the hog's shift");
	same_record(&rec, &want, "hog, a missed throttle");
}

TEST(timeline_shift_needs_samples)
{
	struct shift_span span = { 0, MS };

	memset(&rec, 0, sizeof(rec));
	CHECK(!timeline_shift(&rec, &span, 1, NULL, 0), "a record without a CPU clock cannot be shifted");
}
