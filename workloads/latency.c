// SPDX-License-Identifier: GPL-2.0-only
/* A histogram exact to the microsecond below 2 ms and log2 above, beside the longest few and their times. */
#include "latency.h"

void latency_add_bucket(struct latency_stats *s, uint64_t us, uint64_t n)
{
	int b = 0;

	if (us < LATENCY_LINEAR_US) {
		s->linear[us] += n;
		return;
	}
	for (uint64_t v = us / LATENCY_LINEAR_US; v >= 2 && b < LATENCY_LOG_BUCKETS - 1; v >>= 1)
		b++;
	s->log[b] += n;
}

void latency_record(struct latency_stats *s, uint64_t at_ns, uint64_t latency_ns)
{
	int i = LONGEST_GAPS - 1;

	if (!s->count || latency_ns < s->min_ns)
		s->min_ns = latency_ns;
	if (latency_ns > s->max_ns)
		s->max_ns = latency_ns;
	s->count++;
	s->sum_ns += latency_ns;
	latency_add_bucket(s, latency_ns / 1000, 1);
	if (latency_ns <= s->worst[i].len_ns)
		return;
	while (i > 0 && s->worst[i - 1].len_ns < latency_ns) {
		s->worst[i] = s->worst[i - 1];
		i--;
	}
	s->worst[i] = (struct gap_event){ .start_ns = at_ns, .len_ns = latency_ns };
}

double latency_percentile_us(const struct latency_stats *s, double fraction)
{
	uint64_t want, seen = 0;

	if (!s->count)
		return 0;
	want = (uint64_t)(fraction * (double)s->count + 0.5);
	if (want < 1)
		want = 1;
	for (int us = 0; us < LATENCY_LINEAR_US; us++) {
		seen += s->linear[us];
		if (seen >= want)
			return us + 1 > s->max_ns / 1000.0 ? s->max_ns / 1000.0 : us + 1;
	}
	for (int b = 0; b < LATENCY_LOG_BUCKETS; b++) {
		seen += s->log[b];
		if (seen >= want) {
			double upper = (double)LATENCY_LINEAR_US * (double)(2ull << b);

			return upper > s->max_ns / 1000.0 ? s->max_ns / 1000.0 : upper;
		}
	}
	return s->max_ns / 1000.0;
}
