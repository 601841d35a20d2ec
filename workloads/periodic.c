// SPDX-License-Identifier: GPL-2.0-only
/*
 * The periodic task (the "90% RT application"): every period it runs the gap-measuring loop
 * for W us of its own CPU time, metered with the thread's CPU clock (the calibration sizes the
 * slices between readings). A gap inside a job is a preemption; a job that ends after its
 * period is a deadline miss.
 */
#include "latency.h"
#include "roles.h"
#include "spin_measure.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

/*
 * A job ends on its CPU clock within a loop step of its ask, unless a stall the kernel charged
 * to it as CPU time (hypervisor steal this VM does not report, an interrupt) fell in its last
 * slice: the CPU time its gaps were charged bounds what such stalls added.
 */
static void job_overshoot(struct periodic_stats *p, uint64_t used_ns, uint64_t asked_ns, uint64_t charged_ns)
{
	uint64_t over = used_ns > asked_ns ? used_ns - asked_ns : 0;
	uint64_t in_gap = over < charged_ns ? over : charged_ns;

	p->over_in_gaps_ns += in_gap;
	if (over - in_gap > p->over_unexplained_max_ns)
		p->over_unexplained_max_ns = over - in_gap;
}

void role_periodic(struct window_shm *shm, struct task_record *rec)
{
	struct periodic_stats *p = &rec->u.periodic;
	const uint64_t period = rec->config.interval_ns;
	uint64_t release = shm->start_ns, end = shm->start_ns;
	/* A deadline task's CPU time charged beyond its runtime, which the next periods pay back. */
	int64_t dl_debt_ns = 0;
	uint64_t cpu_after_last_job;
	struct spin_state st;

	spin_begin(rec, shm->start_ns, &st);
	/*
	 * A job's wait that began after the window's end is not the window's: its other tasks have
	 * stopped and the harness collects (seen on 6.1 PREEMPT_RT: the last job held 48 ms past
	 * the end, far from any throttle). It may still make the job miss, not a throttled miss.
	 */
	st.max_gap_before_ns = shm->end_ns;
	cpu_after_last_job = thread_cpu_ns();
	while (release + period <= shm->end_ns) {
		uint64_t gaps_before, cpu_used, response;
		bool overrun = false, started_late = end > release;
		int cpu;

		sleep_until_ns(release);
		gaps_before = rec->gaps.count;
		st.max_gap_ns = 0;
		/* From the release: a late wake-up (the limit cutting in between jobs) is a gap of this job. */
		end = spin_cpu(rec, &st, release, rec->config.work_cpu_ns, &cpu_used);
		p->work_cpu_ns += cpu_used;
		job_overshoot(p, cpu_used, rec->config.work_cpu_ns, st.run_gaps_charged_ns);
		cpu = sched_getcpu();
		if (cpu >= 0 && cpu < 32)
			p->cpus_seen |= 1u << cpu;
		response = end - release;
		if (rec->config.dl_runtime_ns) {
			/* Charged since the last job ended: the job and the wake-up before it. */
			uint64_t cpu_now = thread_cpu_ns();
			int64_t charged = (int64_t)(cpu_now - cpu_after_last_job);
			int64_t available = (int64_t)rec->config.dl_runtime_ns + dl_debt_ns;

			cpu_after_last_job = cpu_now;
			overrun = charged > available;
			dl_debt_ns = overrun ? available - charged : 0;
		}
		latency_record(&p->response, release - shm->start_ns, response);
		p->jobs++;
		if (response > period) {
			p->deadline_misses++;
			/* Told apart: the limit cutting in, or a job that ran long on a noisy machine. */
			if (st.max_gap_ns >= rec->config.throttle_gap_ns)
				p->throttled_misses++;
			/*
			 * A deadline job charged more than its reservation had left (a stall the machine
			 * charged to it or to a job before: an emulator has no steal accounting) is
			 * throttled by its own reservation.
			 */
			if (overrun)
				p->overrun_misses++;
			/* The job before ran past this release: its lateness, handed on along the grid. */
			else if (started_late)
				p->inherited_misses++;
		}
		if (rec->gaps.count > gaps_before) {
			p->preempted_jobs++;
			p->preemptions += rec->gaps.count - gaps_before;
		}
		if (response > p->max_response_ns)
			p->max_response_ns = response;
		/*
		 * Releases stay on the period grid, as a control loop's do: a late job makes the
		 * next ones start late until the task catches up, so demand above the limit stays
		 * above it and the throttle shows.
		 */
		release += period;
	}
	spin_end(rec, &st, end > shm->end_ns ? end : shm->end_ns);
}

uint64_t calibration_loops(double sample_us, double loop_ns)
{
	/* Unknown step cost: assume the ~25 ns of a clock_gettime step on hardware. */
	double steps = sample_us * 1000.0 / (loop_ns > 0 ? loop_ns : 25.0);

	return steps < 1000 ? 1000 : (uint64_t)steps;
}

/*
 * Loops per microsecond of CPU time of the same loop, a few job-sized samples beside a CFS task;
 * the spread is reported.
 */
void role_calibrate(struct window_shm *shm, struct task_record *rec)
{
	struct calibration_stats *c = &rec->u.calibration;
	struct spin_state st;
	uint64_t now = shm->start_ns;
	int samples = rec->config.calibration_samples;

	if (samples > 16)
		samples = 16;
	spin_begin(rec, shm->start_ns, &st);
	for (int i = 0; i < samples; i++) {
		uint64_t cpu_before = thread_cpu_ns(), cpu_used;

		now = spin_loops(rec, &st, mono_ns(), rec->config.calibration_loops, UINT64_MAX);
		cpu_used = thread_cpu_ns() - cpu_before;
		c->loops_per_us[i] = cpu_used ? (double)rec->config.calibration_loops / (cpu_used / 1000.0) : 0;
		c->samples = i + 1;
		/*
		 * A short sleep between samples, as between jobs: the CFS task beside it runs then
		 * and takes the caches, as it will in the real windows.
		 */
		sleep_until_ns(mono_ns() + 1000000ull);
	}
	spin_end(rec, &st, now);
}
