// SPDX-License-Identifier: GPL-2.0-only
/* Pure parts of the task bodies: job slices metered by CPU time, the probe's wake-up grid, percentiles. */
#include "latency.h"
#include "spin_measure.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

TEST(job_slice_loops_estimate)
{
	/* 40 loops/us: 1 ms to go is 40000 loops, the fraction of them in this slice. */
	CHECK(job_slice_loops(1000000, 0.04, 0.75) == 30000, "1 ms to go: %llu loops",
	      (unsigned long long)job_slice_loops(1000000, 0.04, 0.75));
	/* A slice is at most 1 ms: 9 ms to go is still 40000 loops. */
	CHECK(job_slice_loops(9000000, 0.04, 0.75) == 40000, "9 ms to go: %llu loops",
	      (unsigned long long)job_slice_loops(9000000, 0.04, 0.75));
	/* Near the end the rest goes in one slice: 1 us is 40 loops. */
	CHECK(job_slice_loops(1000, 0.04, 0.9) == 40, "1 us to go: %llu loops",
	      (unsigned long long)job_slice_loops(1000, 0.04, 0.9));
	/* Always at least one loop, also without a calibration. */
	CHECK(job_slice_loops(1, 0.04, 0.9) == 1, "1 ns to go");
	CHECK(job_slice_loops(5000, 0, 0.9) == 1, "no calibration");
	for (uint64_t rem = 1; rem < 20000000; rem = rem * 3 / 2 + 1)
		CHECK(job_slice_loops(rem, 0.04, 0.9) <= job_slice_loops(rem * 3 / 2 + 1, 0.04, 0.9),
		      "not monotonic at %llu ns", (unsigned long long)rem);
}

TEST(job_gaps_charged_as_cpu_time)
{
	/* 8 ms of CPU over 33 ms, 25 ms of it one gap: a stall charged whole (the 25 ms seen). */
	CHECK(gaps_charged_ns(33000000, 33000000, 25000000) == 25000000, "stall charged whole");
	/* 8 ms of CPU over 33 ms with a 25 ms gap it was not charged for: a preemption. */
	CHECK(gaps_charged_ns(8000000, 33000000, 25000000) == 0, "preemption charged nothing");
	/* Half of it charged (a stall inside a preemption); never more than the gaps themselves. */
	CHECK(gaps_charged_ns(20500000, 33000000, 25000000) == 12500000, "half charged");
	CHECK(gaps_charged_ns(40000000, 33000000, 25000000) == 25000000, "at most the gaps");
	/* Run time charged a little short of the wall time outside the gaps: none charged in them. */
	CHECK(gaps_charged_ns(7970000, 8000000, 20000) == 0, "below the run time");
	CHECK(gaps_charged_ns(0, 0, 0) == 0, "nothing");
}

/*
 * A job metered as spin_cpu() meters it, on a loop whose real speed is off the calibration by
 * `speed` (0.8: 20% slower), with `clock_ns` of CPU per reading of the CPU clock and a stall
 * of `stall_ns` charged as CPU time inside the first slice (hypervisor steal).
 */
static uint64_t simulated_job_ns(uint64_t cpu_ns, double calibrated_ns_per_loop, double speed, double clock_ns,
				 double stall_ns, int *readings)
{
	double used = 0, done = 0, rate = 1 / calibrated_ns_per_loop, fraction = 0.75;

	*readings = 0;
	while (used < cpu_ns) {
		uint64_t loops = job_slice_loops(cpu_ns - (uint64_t)used, rate, fraction);

		used += loops * calibrated_ns_per_loop / speed + clock_ns + stall_ns;
		stall_ns = 0;
		done += loops;
		rate = done / used;
		fraction = 0.9;
		(*readings)++;
	}
	return (uint64_t)used;
}

/* A stall inside an early slice: the job does not overshoot, it does less of its loop. */
TEST(job_stall_overshoots_only_near_the_end)
{
	int readings;
	uint64_t used = simulated_job_ns(9000000, 25.0, 1.0, 300.0, 400000.0, &readings);

	CHECK(used >= 9000000 && used - 9000000 <= 64 * 25.0 + 300.0, "a 400 us stall early in a 9 ms job: %llu ns",
	      (unsigned long long)used);
}

TEST(job_metered_by_cpu_time_whatever_the_loop_speed)
{
	/* The loop's speed drifts by about +-5% here from second to second; 20% either way is ample. */
	static const double speeds[] = { 0.8, 0.95, 1.0, 1.05, 1.25 };
	static const uint64_t jobs_ns[] = { 100000, 5000000, 9000000, 9900000 };

	for (size_t s = 0; s < sizeof(speeds) / sizeof(speeds[0]); s++)
		for (size_t j = 0; j < sizeof(jobs_ns) / sizeof(jobs_ns[0]); j++) {
			int readings;
			uint64_t used = simulated_job_ns(jobs_ns[j], 25.0, speeds[s], 300.0, 0, &readings);
			/* At most the last short slice (64 loops at the slowest speed) and its reading over. */
			double bound = 64 * 25.0 / 0.8 + 300.0;

			CHECK(used >= jobs_ns[j] && used - jobs_ns[j] <= bound,
			      "speed %.2f, job %llu ns: used %llu ns (over by more than %.0f ns)", speeds[s],
			      (unsigned long long)jobs_ns[j], (unsigned long long)used, bound);
			/* About one reading of the CPU clock a millisecond, a few more at the end; not one a step. */
			CHECK(readings <= (int)(jobs_ns[j] / 1000000) * 2 + 8, "speed %.2f, job %llu ns: %d readings",
			      speeds[s], (unsigned long long)jobs_ns[j], readings);
		}
}

/*
 * A job's longest gap is what calls its miss throttled; one that began after the window's end
 * is not the window's (6.1 PREEMPT_RT: the last job held 48 ms past the end) and does not count.
 */
TEST(job_gap_after_the_window_end_is_not_its_longest)
{
	struct task_record *rec = calloc(1, sizeof(*rec));
	struct spin_state st;
	uint64_t now = mono_ns(), start = now - 100000000ull;

	if (!rec) {
		CHECK(0, "out of memory");
		return;
	}
	rec->config.gap_threshold_ns = 10000;
	rec->config.long_gap_ns = 20000000;
	rec->config.window_ns = 200000000;
	/* The window ended 40 ms in; the job stood still from 50 ms in until now. */
	spin_begin(rec, start, &st);
	st.max_gap_before_ns = start + 40000000ull;
	spin_until(rec, &st, start + 50000000ull, mono_ns() + 100000);
	CHECK(st.max_gap_ns < 40000000ull, "a gap after the end counted: %llu ns", (unsigned long long)st.max_gap_ns);
	CHECK(rec->gaps.max_ns >= 45000000ull, "the gap itself is still recorded: %llu ns",
	      (unsigned long long)rec->gaps.max_ns);
	/* Inside the window it counts. */
	spin_begin(rec, start, &st);
	st.max_gap_before_ns = start + 200000000ull;
	spin_until(rec, &st, start + 50000000ull, mono_ns() + 100000);
	CHECK(st.max_gap_ns >= 45000000ull, "a gap inside the window: %llu ns", (unsigned long long)st.max_gap_ns);
	free(rec);
}

/*
 * The CPU time read last before the window start, so what the kernel charges a task kept from
 * user space after it can be told apart: never above the clock past the start, never below a
 * reading before it.
 */
TEST(spin_wait_start_reads_the_cpu_time_at_the_start)
{
	const uint64_t before = thread_cpu_ns(), start = mono_ns() + 2000000;
	const uint64_t last = spin_wait_start(start);
	const uint64_t after = thread_cpu_ns(), now = mono_ns();

	CHECK(now >= start, "returned before the start");
	CHECK(last >= before && last <= after, "%llu not within [%llu, %llu]", (unsigned long long)last,
	      (unsigned long long)before, (unsigned long long)after);
	/* Called past the start: the clock as it is. */
	const uint64_t late_before = thread_cpu_ns(), late = spin_wait_start(now - 1000);

	CHECK(late >= late_before && late <= thread_cpu_ns(), "a late call reads the clock");
}

TEST(probe_first_wake_on_its_phase)
{
	const uint64_t ms = 1000000;

	/* Without a phase: one interval after the window start. */
	CHECK(probe_first_wake_ns(5 * ms + 123, ms, 0, 0) == 6 * ms + 123, "no phase");
	/* With one: the next instant whose clock value is the phase modulo the interval. */
	CHECK(probe_first_wake_ns(5 * ms + 123, ms, 1, 500000) == 5 * ms + 500000, "phase later in this interval");
	CHECK(probe_first_wake_ns(5 * ms + 700000, ms, 1, 500000) == 6 * ms + 500000, "phase already past");
	CHECK(probe_first_wake_ns(5 * ms + 500000, ms, 1, 500000) == 6 * ms + 500000, "exactly on the phase: next");
	CHECK(probe_first_wake_ns(5 * ms, ms, 1, 0) == 6 * ms, "phase 0 on a whole interval");
	for (uint64_t start = 1000; start < 3 * ms; start += 77777) {
		uint64_t wake = probe_first_wake_ns(start, ms, 1, 250000);

		CHECK(wake > start && wake - start <= ms && wake % ms == 250000, "start %llu: wake %llu",
		      (unsigned long long)start, (unsigned long long)wake);
	}
}

TEST(latency_percentile_is_the_bucket_upper_bound)
{
	static struct latency_stats s;

	memset(&s, 0, sizeof(s));
	CHECK(latency_percentile_us(&s, 0.5) == 0, "no samples");
	/* 99 samples of 20.1-20.9 us and one of 57.3 us. */
	for (int i = 0; i < 99; i++)
		latency_record(&s, (uint64_t)i * 1000000, 20100 + (uint64_t)(i % 9) * 100);
	latency_record(&s, 99000000, 57300);
	/* Every sample of the 20 us bucket is below 21 us: the percentile is a bound, never below a sample. */
	CHECK(latency_percentile_us(&s, 0.50) == 21, "p50 %g", latency_percentile_us(&s, 0.50));
	CHECK(latency_percentile_us(&s, 0.99) == 21, "p99 %g", latency_percentile_us(&s, 0.99));
	/* The top rank is the largest sample's bucket, capped at the largest sample itself. */
	CHECK(fabs(latency_percentile_us(&s, 0.999) - 57.3) < 1e-9, "p999 %g", latency_percentile_us(&s, 0.999));
	CHECK(s.linear[20] == 99 && s.linear[57] == 1, "buckets keyed by whole us (lower bound)");
}
