// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost of one measuring step of the hog loop (`make bench`): spin on
 * clock_gettime(CLOCK_MONOTONIC) as the hog does, pinned to the last online CPU as SCHED_OTHER,
 * and histogram the step lengths in ns. Prints {"steps", "median_ns", "p99_ns", "mean_ns", ...}.
 * A step is the finest gap the hog can see: the gap-detection resolution.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define STEPS 10000000ull
#define BUCKETS 100000	/* 1 ns buckets up to 100 us; longer steps counted in the last */

static uint64_t hist[BUCKETS];

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t percentile(double q)
{
	uint64_t want = (uint64_t)(q * (double)STEPS), seen = 0;

	for (uint64_t i = 0; i < BUCKETS; i++) {
		seen += hist[i];
		if (seen > want)
			return i;
	}
	return BUCKETS - 1;
}

int main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = argc > 1 ? atoi(argv[1]) : (int)(cpus - 1);
	cpu_set_t set;
	uint64_t prev, now, first, max = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("loop_cost: sched_setaffinity");
		return 1;
	}
	prev = first = mono_ns();
	for (uint64_t i = 0; i < STEPS; i++) {
		uint64_t len;

		now = mono_ns();
		len = now - prev;
		hist[len < BUCKETS ? len : BUCKETS - 1]++;
		if (len > max)
			max = len;
		prev = now;
	}
	printf("{\"cpu\": %d, \"steps\": %llu, \"median_ns\": %llu, \"p99_ns\": %llu, \"p999_ns\": %llu, "
	       "\"mean_ns\": %.2f, \"max_ns\": %llu}\n",
	       cpu, STEPS, (unsigned long long)percentile(0.5), (unsigned long long)percentile(0.99),
	       (unsigned long long)percentile(0.999), (double)(now - first) / (double)STEPS,
	       (unsigned long long)max);
	return 0;
}
