// SPDX-License-Identifier: GPL-2.0-only
/* The hot loop kept to a compare and a branch: gaps, CPU samples and longest gaps recorded out of line. */
#include "spin_measure.h"

#include <fcntl.h>
#include <sched.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t thread_cpu_ns(void)
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
static void keep_longest(struct gap_event *longest, uint64_t start, uint64_t len)
{
	int i = LONGEST_GAPS - 1;

	if (len <= longest[i].len_ns)
		return;
	while (i > 0 && longest[i - 1].len_ns < len) {
		longest[i] = longest[i - 1];
		i--;
	}
	longest[i] = (struct gap_event){ .start_ns = start, .len_ns = len };
}

/* Out of line and cold: the hot loop stays a compare and a branch. */
static __attribute__((noinline, cold)) void record_gap(struct task_record *rec, struct spin_state *st,
						      uint64_t prev, uint64_t now)
{
	struct gap_stats *g = &rec->gaps;
	uint64_t start = prev - st->start_ns, len = now - prev;

	if (len > st->max_gap_ns && (!st->max_gap_before_ns || prev < st->max_gap_before_ns))
		st->max_gap_ns = len;
	if (st->run_from_ns && prev >= st->run_from_ns)
		st->run_gaps_ns += len;
	g->count++;
	g->total_ns += len;
	if (len > g->max_ns)
		g->max_ns = len;
	g->hist[gap_bucket(len)]++;
	keep_longest(g->longest, start, len);
	if (len < rec->config.long_gap_ns)
		return;
	/*
	 * The CPU time at the end of each long gap lets the analysis take the kernel's accounting
	 * over whole throttle periods, whatever the window's phase.
	 */
	if (g->long_stored < LONG_GAPS_MAX)
		g->long_gaps[g->long_stored++] = (struct gap_event){ start, len, thread_cpu_ns() - st->cpu_start_ns };
	g->long_total++;
}

/*
 * Out of line and cold like record_gap: about once every CPU_SAMPLE_MIN_NS. The next reading
 * is a step after this one, so a gap does not bring a burst of them.
 */
static __attribute__((noinline, cold)) void take_sample(struct task_record *rec, struct spin_state *st, uint64_t now)
{
	struct cpu_samples *s = &rec->samples;

	if (s->count >= CPU_SAMPLES_MAX) {
		st->next_sample_ns = UINT64_MAX;
		return;
	}
	s->at[s->count++] = (struct cpu_sample){ (uint32_t)((now - st->start_ns) / 1000),
						 (uint32_t)((thread_cpu_ns() - st->cpu_start_ns) / 1000) };
	st->next_sample_ns = now + s->every_ns;
}

/* The sampling step: CPU_SAMPLE_MIN_NS, or sparser where the window would need more readings. */
static uint64_t sample_step_ns(uint64_t window_ns)
{
	/* Room for the readings after gaps that end a step late. */
	uint64_t step = window_ns / (CPU_SAMPLES_MAX - CPU_SAMPLES_MAX / 8) + 1;

	return step > CPU_SAMPLE_MIN_NS ? step : CPU_SAMPLE_MIN_NS;
}

/* The kernel's scheduler accounting of this thread (ns on CPU), 0 if unreadable: window edges only. */
static uint64_t schedstat_ns(void)
{
	char buf[96];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

uint64_t spin_wait_start(uint64_t start_ns)
{
	uint64_t cpu = thread_cpu_ns();

	for (;;) {
		uint64_t cpu_now = thread_cpu_ns();

		if (mono_ns() >= start_ns)
			return cpu;
		cpu = cpu_now;
	}
}

void spin_begin_at(struct task_record *rec, uint64_t start_ns, uint64_t cpu_before_ns, struct spin_state *st)
{
	memset(&rec->gaps, 0, sizeof(rec->gaps));
	st->start_ns = start_ns;
	rec->schedstat_begin_ns = schedstat_ns();
	rec->schedstat_end_ns = 0;
	st->cpu_start_ns = thread_cpu_ns();
	rec->cpu_before_first_ns = cpu_before_ns && cpu_before_ns <= st->cpu_start_ns ? st->cpu_start_ns - cpu_before_ns : 0;
	st->max_gap_ns = 0;
	st->max_gap_before_ns = 0;
	st->run_from_ns = 0;
	st->run_gaps_ns = 0;
	st->run_gaps_charged_ns = 0;
	rec->samples.count = 0;
	rec->samples.every_ns = sample_step_ns(rec->config.window_ns);
	st->next_sample_ns = start_ns;
	rec->first_ns = start_ns;
	rec->iterations = 0;
}

void spin_begin(struct task_record *rec, uint64_t start_ns, struct spin_state *st)
{
	spin_begin_at(rec, start_ns, 0, st);
}

uint64_t spin_until(struct task_record *rec, struct spin_state *st, uint64_t from_ns, uint64_t until_ns)
{
	const uint64_t threshold = rec->config.gap_threshold_ns;
	uint64_t prev = from_ns, now, iterations = 0;

	do {
		now = mono_ns();
		if (now - prev >= threshold)
			record_gap(rec, st, prev, now);
		if (now >= st->next_sample_ns)
			take_sample(rec, st, now);
		prev = now;
		iterations++;
	} while (now < until_ns);
	rec->iterations += iterations;
	return now;
}

uint64_t spin_loops(struct task_record *rec, struct spin_state *st, uint64_t from_ns, uint64_t loops,
		    uint64_t until_ns)
{
	const uint64_t threshold = rec->config.gap_threshold_ns;
	uint64_t prev = from_ns, now = from_ns, i;

	for (i = 0; i < loops && now < until_ns; i++) {
		now = mono_ns();
		if (now - prev >= threshold)
			record_gap(rec, st, prev, now);
		prev = now;
	}
	rec->iterations += i;
	return now;
}

/*
 * Short slices are where the clock is read often enough for the job to end within ~1 us of
 * its CPU time: below this the rest is done in one go.
 */
#define JOB_SLICE_MIN_LOOPS 64
/*
 * A stall the kernel charges to the task (hypervisor steal, an interrupt) inside a slice
 * overshoots the job only when it is longer than what the slice leaves to do: slices of at
 * most 1 ms leave most of a long job to do, at ~10 readings of the CPU clock a job.
 */
#define JOB_SLICE_MAX_NS 1000000.0

uint64_t job_slice_loops(uint64_t remaining_ns, double loops_per_ns, double fraction)
{
	double rest = (double)remaining_ns * loops_per_ns;

	if (rest <= JOB_SLICE_MIN_LOOPS)
		return rest >= 1 ? (uint64_t)rest : 1;
	return (uint64_t)fmin(rest * fraction, JOB_SLICE_MAX_NS * loops_per_ns);
}

uint64_t gaps_charged_ns(uint64_t cpu_ns, uint64_t wall_ns, uint64_t gaps_ns)
{
	double charged = (double)cpu_ns - ((double)wall_ns - (double)gaps_ns);

	return (uint64_t)fmin(fmax(charged, 0), (double)gaps_ns);
}

uint64_t spin_cpu(struct task_record *rec, struct spin_state *st, uint64_t from_ns, uint64_t cpu_ns,
		  uint64_t *cpu_used_ns)
{
	const uint64_t cpu_start = thread_cpu_ns();
	uint64_t now = from_ns, used = 0, done = 0;
	/*
	 * The first slice is at most 3/4 of the calibration's estimate: the loop's speed drifts by
	 * a few percent on a shared machine, so it ends short of the job's CPU time. The next ones
	 * go by the speed this job has seen, at most 90% of what is left, so a job reads the CPU
	 * clock (a system call) about once a millisecond, never per step.
	 */
	double rate = cpu_ns ? (double)rec->config.work_loops / (double)cpu_ns : 0, fraction = 0.75;

	/* A gap from `from_ns` (a late wake-up) began before the CPU clock's first reading. */
	st->run_from_ns = mono_ns();
	st->run_gaps_ns = 0;
	while (used < cpu_ns) {
		uint64_t loops = job_slice_loops(cpu_ns - used, rate, fraction), before = rec->iterations;
		/*
		 * A slice cannot use more CPU time than the wall time it lasts: ending it when what is
		 * left has passed bounds the job even where the loop slows 10x within a slice (an
		 * emulator), which would otherwise overrun a job, and a deadline task its runtime.
		 */
		uint64_t wall_bound = mono_ns() + (cpu_ns - used);

		now = spin_loops(rec, st, now, loops, wall_bound);
		done += rec->iterations - before;
		used = thread_cpu_ns() - cpu_start;
		if (used)
			rate = (double)done / (double)used;
		fraction = 0.9;
	}
	st->run_gaps_charged_ns = gaps_charged_ns(used, now > st->run_from_ns ? now - st->run_from_ns : 0, st->run_gaps_ns);
	st->run_from_ns = 0;
	*cpu_used_ns = used;
	return now;
}

void spin_end(struct task_record *rec, struct spin_state *st, uint64_t now_ns)
{
	rec->cpu_ns = thread_cpu_ns() - st->cpu_start_ns;
	rec->schedstat_end_ns = rec->schedstat_begin_ns ? schedstat_ns() : 0;
	rec->last_ns = now_ns;
}

/*
 * Leaves the RT class as soon as the task's window is over, before exiting (unlocking its
 * memory takes longer): RT time it runs up past the end is what the settle must wait for.
 */
void leave_rt_class(struct task_record *rec)
{
	struct sched_param param = { .sched_priority = 0 };

	if (task_config_is_rt(&rec->config) && !rec->left_rt_ns && !sched_setscheduler(0, SCHED_OTHER, &param))
		rec->left_rt_ns = mono_ns();
}

void spin_measure(struct task_record *rec, uint64_t start_ns, uint64_t end_ns, uint64_t cpu_before_ns)
{
	struct spin_state st;

	spin_begin_at(rec, start_ns, cpu_before_ns, &st);
	/* From the nominal start: a task kept off the CPU from the start has a gap from there. */
	uint64_t end = spin_until(rec, &st, start_ns, end_ns);

	leave_rt_class(rec);	/* before reading the clocks: an aligned window's timer fires 100 us on */
	spin_end(rec, &st, end);
}
