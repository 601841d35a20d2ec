#include "spin_measure.h"

#include <string.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int gap_bucket(uint64_t len_ns)
{
	uint64_t us = len_ns / 1000;
	int bucket = 0;

	while (us >= 2 && bucket < GAP_HIST_BUCKETS - 1) {
		us >>= 1;
		bucket++;
	}
	return bucket;
}

/* Keeps the LONGEST_GAPS longest, longest first; runs only on a gap, never per iteration. */
static void keep_longest(struct gap_stats *g, uint64_t start, uint64_t len)
{
	int i = LONGEST_GAPS - 1;

	if (len <= g->longest[i].len_ns)
		return;
	while (i > 0 && g->longest[i - 1].len_ns < len) {
		g->longest[i] = g->longest[i - 1];
		i--;
	}
	g->longest[i] = (struct gap_event){ .start_ns = start, .len_ns = len };
}

/* Out of line and cold: the hot loop stays a compare and a branch. */
static __attribute__((noinline, cold)) void record_gap(struct gap_stats *g, const struct task_config *c,
						      uint64_t start, uint64_t len, uint64_t cpu_start)
{
	g->count++;
	g->total_ns += len;
	if (len > g->max_ns)
		g->max_ns = len;
	g->hist[gap_bucket(len)]++;
	keep_longest(g, start, len);
	if (len < c->long_gap_ns)
		return;
	/*
	 * The CPU time at the end of each long gap lets the analysis take the kernel's accounting
	 * over whole throttle periods, whatever the window's phase.
	 */
	if (g->long_stored < LONG_GAPS_MAX)
		g->long_gaps[g->long_stored++] = (struct gap_event){ start, len, thread_cpu_ns() - cpu_start };
	g->long_total++;
}

void spin_measure(struct task_record *rec, uint64_t start_ns, uint64_t end_ns)
{
	const struct task_config *c = &rec->config;
	const uint64_t threshold = c->gap_threshold_ns;
	struct gap_stats *g = &rec->gaps;
	uint64_t cpu_start, prev, now, iterations = 0;

	memset(g, 0, sizeof(*g));
	cpu_start = thread_cpu_ns();
	/* From the nominal start: a task kept off the CPU from the start has a gap from there. */
	prev = start_ns;
	rec->first_ns = start_ns;
	do {
		now = mono_ns();
		if (now - prev >= threshold)
			record_gap(g, c, prev - start_ns, now - prev, cpu_start);
		prev = now;
		iterations++;
	} while (now < end_ns);
	rec->cpu_ns = thread_cpu_ns() - cpu_start;
	rec->last_ns = now;
	rec->iterations = iterations;
}
