/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measuring loop shared by every spinning task: spin on CLOCK_MONOTONIC and record every
 * step longer than the threshold as a gap (the task was not running).
 */
#ifndef RTT_SPIN_MEASURE_H
#define RTT_SPIN_MEASURE_H

#include "task_shm.h"

struct spin_state {
	uint64_t start_ns;	/* window start: gap times are relative to it */
	uint64_t cpu_start_ns;	/* thread CPU time at spin_begin */
	uint64_t max_gap_ns;	/* longest gap since the caller last cleared it */
	uint64_t max_gap_before_ns;	/* only gaps beginning before it count in max_gap_ns (0: all) */
	uint64_t next_sample_ns;	/* when spin_until next reads the CPU clock */
	/*
	 * spin_cpu's gaps after its first CPU clock reading, summed, and what of them the kernel
	 * charged to the thread as CPU time (a stall unreported as steal, an interrupt): its CPU
	 * time less the wall time outside them.
	 */
	uint64_t run_from_ns;	/* 0: outside spin_cpu */
	uint64_t run_gaps_ns;
	uint64_t run_gaps_charged_ns;
};

uint64_t mono_ns(void);
uint64_t thread_cpu_ns(void);

/*
 * Waits for `start_ns`; returns the thread's CPU time at its last reading before it (at the
 * call when called at or after the start). What the kernel charges the thread after that
 * reading and before its loop first runs in the window (cpu_before_first_ns) would otherwise
 * go unseen: a task preempted at the start and kept from user space is still charged the
 * interrupts taken in its context (an RT app's wake-ups).
 */
uint64_t spin_wait_start(uint64_t start_ns);
/*
 * Starts the figures at start_ns, the CPU time counted from now; cpu_before_ns: the reading
 * spin_wait_start returned (0: none).
 */
void spin_begin_at(struct task_record *rec, uint64_t start_ns, uint64_t cpu_before_ns, struct spin_state *st);
void spin_begin(struct task_record *rec, uint64_t start_ns, struct spin_state *st);
/* Spins until `until_ns`; `from_ns` is when the task should have been running (a gap from there). */
uint64_t spin_until(struct task_record *rec, struct spin_state *st, uint64_t from_ns, uint64_t until_ns);
/* Spins `loops` steps (calibrated work), or until `until_ns` comes first; returns the time it ended. */
uint64_t spin_loops(struct task_record *rec, struct spin_state *st, uint64_t from_ns, uint64_t loops,
		    uint64_t until_ns);
/*
 * Spins until the thread has used `cpu_ns` of CPU time (a job of fixed CPU demand, whatever
 * the loop's speed at the moment); `*cpu_used_ns` is what it used, st->run_gaps_charged_ns
 * what of it stalls charged as CPU time. Returns the time it ended.
 */
uint64_t spin_cpu(struct task_record *rec, struct spin_state *st, uint64_t from_ns, uint64_t cpu_ns,
		  uint64_t *cpu_used_ns);
/*
 * What of `gaps_ns` of gaps in `wall_ns` the kernel charged as CPU time, of `cpu_ns` charged in
 * all: outside the gaps the thread ran and was charged that, the rest was charged in them.
 */
uint64_t gaps_charged_ns(uint64_t cpu_ns, uint64_t wall_ns, uint64_t gaps_ns);
/*
 * Loops of the next slice of a job with `remaining_ns` of CPU to go at `loops_per_ns`: that
 * `fraction` of the estimate but at most 1 ms, or the whole rest (at least one loop) once it
 * is a short slice.
 */
uint64_t job_slice_loops(uint64_t remaining_ns, double loops_per_ns, double fraction);
/* Final CPU time and the end of the measured span. */
void spin_end(struct task_record *rec, struct spin_state *st, uint64_t now_ns);

/* The whole window as one spin: hog, victim, noise. */
void spin_measure(struct task_record *rec, uint64_t start_ns, uint64_t end_ns, uint64_t cpu_before_ns);
/*
 * An RT task leaves its class once its window is over (once: later calls do nothing), so it
 * runs up no RT time past the end for the settle to wait out.
 */
void leave_rt_class(struct task_record *rec);

/* Log2 bucket of a gap in microseconds (bucket 0 holds gaps below 2 us). */
int gap_bucket(uint64_t len_ns);

#endif
