/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a task and the harness share: the task's settings (written by the harness before the
 * fork) and its measurements (written by the task, read by the harness after it exits).
 * Lives in one MAP_SHARED mapping per run, so nothing is copied inside the window.
 */
#ifndef RTT_TASK_SHM_H
#define RTT_TASK_SHM_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define GAP_HIST_BUCKETS 32	/* log2 buckets of microseconds: [2^i, 2^(i+1)) us */
#define LONG_GAPS_MAX 4096	/* every gap >= long_gap_ns, in order; more are counted only */
#define LONGEST_GAPS 8		/* the longest gaps with their times */
/*
 * A spinner reads its CPU clock every CPU_SAMPLE_MIN_NS of wall time (more sparsely in windows
 * too long for CPU_SAMPLES_MAX readings), so its CPU time at any instant is known within one
 * sampling step whatever the kernel ran between its gaps.
 */
#define CPU_SAMPLES_MAX 16384
#define CPU_SAMPLE_MIN_NS 250000ull
#define TASKS_MAX 8
#define LATENCY_LINEAR_US 2000	/* 1 us buckets below this, log2 buckets above */
#define LATENCY_LOG_BUCKETS 24
#define CGROUP_NAME_MAX 48

enum task_role {
	ROLE_HOG,	/* SCHED_FIFO/RR spinner: its gaps are when it was throttled or preempted */
	ROLE_VICTIM,	/* spinner on the hog's CPU (CFS or lower FIFO): its gaps are its starvation */
	ROLE_NOISE,	/* SCHED_OTHER spinner alone: the machine's own noise floor */
	ROLE_PROBE,	/* periodic wake-ups: wake-up latency */
	ROLE_PERIODIC,	/* calibrated work every period: jobs, deadline misses, response time */
	ROLE_ADMIN,	/* kills a runaway task at a given moment: time to regain control */
	ROLE_BURST_HOG,	/* mostly light, 100% busy for a burst every so often */
	ROLE_KERNEL_WORK,	/* waits for per-CPU kernel work on the measured CPU */
	ROLE_CALIBRATE,	/* measures loops per microsecond of the periodic task's work loop */
	ROLE_CYCLICTEST,	/* runs rt-tests' cyclictest for the window: the reference probe */
	ROLE_LOAD,	/* runs a background load (hackbench, stress-ng) for the window */
	ROLE_INVALID_WRITES,	/* tries knob values the kernel must refuse: its validation */
	ROLE_TIMERLAT,	/* runs rtla timerlat hist for the window: the kernel's own latency tracer */
	ROLE_COUNT,
};

enum load_tool {
	LOAD_NONE,
	LOAD_HACKBENCH,	/* rt-tests' hackbench, run again and again until the window ends */
	LOAD_STRESS_NG,	/* stress-ng --cpu, one worker per loaded CPU */
	LOAD_TOOLS,
};

enum task_state {
	TASK_CREATED,
	TASK_READY,	/* set up, waiting for the start barrier */
	TASK_DONE,
	TASK_FAILED,	/* setup failed: see error */
};

struct gap_event {
	uint64_t start_ns;	/* from the window start */
	uint64_t len_ns;
	uint64_t cpu_ns;	/* the task's CPU time when the gap ended (long gaps only) */
};

/*
 * A spinner's CPU clock read while it ran, in microseconds (half the size of nanoseconds in a
 * mapping every RT task locks into memory; a microsecond is far below the sampling step).
 */
struct cpu_sample {
	uint32_t t_us;		/* from the window start */
	uint32_t cpu_us;	/* the task's CPU time since the window start */
};

struct cpu_samples {
	uint64_t every_ns;	/* the sampling step in wall time; 0: not sampled */
	uint32_t count;
	struct cpu_sample at[CPU_SAMPLES_MAX];
};

struct gap_stats {
	uint64_t count;		/* gaps >= threshold */
	uint64_t total_ns;
	uint64_t max_ns;
	uint64_t hist[GAP_HIST_BUCKETS];
	uint64_t long_total;	/* gaps >= long_gap_ns, including those not stored */
	uint32_t long_stored;
	struct gap_event longest[LONGEST_GAPS];	/* longest first */
	struct gap_event long_gaps[LONG_GAPS_MAX];
};

/* A latency distribution: exact below LATENCY_LINEAR_US, log2 above. */
struct latency_stats {
	uint64_t count;
	uint64_t min_ns, max_ns, sum_ns;
	uint64_t linear[LATENCY_LINEAR_US];
	uint64_t log[LATENCY_LOG_BUCKETS];	/* [LINEAR * 2^i, LINEAR * 2^(i+1)) us */
	struct gap_event worst[LONGEST_GAPS];	/* start_ns: when, len_ns: the latency */
};

struct periodic_stats {
	uint64_t jobs;
	uint64_t deadline_misses;
	uint64_t throttled_misses;	/* misses of jobs that held a gap >= throttle_gap_ns */
	uint64_t overrun_misses;	/* misses of deadline jobs charged more CPU than their runtime left */
	uint64_t inherited_misses;	/* misses of jobs not overrun that started late: the job before ran past their release */
	uint64_t preempted_jobs;	/* jobs with a gap >= gap_threshold inside */
	uint64_t preemptions;
	uint64_t max_response_ns;
	uint64_t work_cpu_ns;		/* CPU time spent in jobs */
	/* Of the CPU time jobs used past their ask, what stalls inside them charged as CPU time */
	uint64_t over_in_gaps_ns;
	uint64_t over_unexplained_max_ns;	/* a job's longest overshoot beyond what stalls charged */
	struct latency_stats response;
	uint32_t cpus_seen;		/* bit mask of CPUs jobs ran on (first 32) */
};

struct admin_stats {
	uint64_t decided_ns;	/* from the window start */
	uint64_t gone_ns;	/* when the target was seen dead, from the window start; 0: never */
	int kill_status;	/* wait status of the kill command */
	int acted;
};

/* One invalid write: the file, the value, and what the kernel did with it. */
struct invalid_write {
	char file[24];		/* sched_rt_runtime_us, cpu.rt_period_us, ... */
	char why[40];		/* what makes the value invalid */
	int64_t value;
	int64_t before, after;	/* the file's value around the write */
	int error;		/* errno of the write; 0: the kernel took it */
	int undone;		/* a taken write was put back: 1 done, -1 failed */
};

#define INVALID_WRITES_MAX 12
struct invalid_write_stats {
	int tried;
	struct invalid_write write[INVALID_WRITES_MAX];
};

struct calibration_stats {
	int samples;
	double loops_per_us[16];	/* per sample, of CPU time */
};

struct rlimit_stats {
	uint64_t sigxcpu_cpu_ns;	/* CPU time since the window start when SIGXCPU came; 0: never */
};

/* A program a task runs for the window (cyclictest, a load tool), and what it reported. */
struct external_stats {
	int exit_status;	/* wait status of its last run */
	uint64_t runs;		/* runs started (hackbench runs again and again) */
	uint64_t runs_done;	/* runs that ended by themselves with status 0 */
	double reported;	/* hackbench: sum of its "Time:" seconds; stress-ng: bogo ops */
	uint64_t measuring_ns;	/* cyclictest, timerlat: when it was first seen measuring, 0: never */
	uint64_t stopped_ns;	/* cyclictest, timerlat: when the stop was sent (or it ended by itself), 0: not so */
	int unavailable;	/* timerlat: not run, as `error` says (no rtla, no timerlat tracer) */
	char output[256];	/* the file it wrote its figures to (cyclictest's JSON, rtla's histogram), in the private folder */
	char error[160];	/* its first line on stderr, when it failed */
	char command[320];	/* as run */
	char cpus[64];		/* the CPUs it may run on, as a list ("0,2") */
};

struct task_config {
	enum task_role role;
	char name[24];
	int cpu;		/* -1: not pinned */
	int sched_policy;	/* SCHED_FIFO, SCHED_RR, SCHED_OTHER, SCHED_DEADLINE */
	int priority;		/* RT priority, or nice for SCHED_OTHER */
	uint64_t dl_runtime_ns, dl_period_ns;
	char cgroup[CGROUP_NAME_MAX];	/* cgroup v1 cpu group to join first, or empty */
	int mem_node;		/* NUMA node its memory is preferred on (its CPU's), -1: no NUMA or unpinned */
	uint64_t gap_threshold_ns;
	uint64_t long_gap_ns;
	uint64_t window_ns;	/* length of the measuring window */
	uint64_t lead_ns;	/* spinners start this long before it (a lead-in's knob changes) */
	/*
	 * A spinner starts this long before the window (unmeasured until it starts), so it is
	 * already running when the other tasks start; at most the barrier's start delay (20 ms).
	 */
	uint64_t early_ns;
	uint64_t lifetime_cap_s;	/* wall-clock cap independent of the harness (alarm) */
	uint64_t rttime_soft_us, rttime_hard_us;	/* 0: window-based defaults */
	/* role parameters */
	uint64_t interval_ns;	/* probe, periodic, kernel-work: period; burst hog: the limit's interval */
	int phase_set;		/* probe: wake on the CLOCK_MONOTONIC grid at phase_ns (else start + k interval) */
	uint64_t phase_ns;
	uint64_t work_loops;	/* periodic: loops per job by the calibration (a first estimate) */
	uint64_t work_cpu_ns;	/* periodic: CPU time of each job, metered with the thread's CPU clock */
	uint64_t burst_ns, burst_every_ns;	/* burst hog */
	uint64_t act_at_ns;	/* admin, invalid-writes: the moment it acts, from the window start */
	int target;		/* admin: index of the task to kill */
	int may_be_killed;	/* killed on purpose (admin's target, RLIMIT_RTTIME): not an error */
	uint64_t throttle_gap_ns;	/* periodic: a gap this long inside a job is the limit cutting in */
	/*
	 * victim: a run at least this long before an RT run is a slot: half the slot the limit
	 * promises, at most a tick (a window's first slot may be cut short); 0: none promised
	 */
	uint64_t slot_min_ns;
	/*
	 * A victim's gap no longer than this is the machine's (the noise floor's longest gap and a
	 * tick), not a run of RT: it neither starts nor splits one. 0: every gap may be RT's.
	 */
	uint64_t interruption_max_ns;
	int calibration_samples;
	uint64_t calibration_loops;
	int avoid_cpu;		/* >= 0: the process runs on every CPU but this one (cyclictest's own, a load) */
	int load_tool;		/* load: enum load_tool */
	uint64_t histogram_us;	/* cyclictest: -h, the histogram's range; timerlat: its entries (1 us each) */
	uint64_t stop_us;	/* timerlat: -T, a thread latency that stops the trace (0: none) */
};

/* An RT task (SCHED_FIFO or SCHED_RR): what the RT period timer throttles and forgives. */
static inline bool task_config_is_rt(const struct task_config *c)
{
	return c->sched_policy == SCHED_FIFO || c->sched_policy == SCHED_RR;
}

struct task_record {
	struct task_config config;
	_Atomic int state;
	pid_t pid;
	int error;		/* errno of a failed setup step */
	char error_msg[160];
	/* measurements over [first_ns, last_ns] */
	uint64_t first_ns, last_ns;
	uint64_t cpu_ns;	/* the kernel's accounting: CLOCK_THREAD_CPUTIME_ID */
	uint64_t cpu_at_start_ns;	/* thread CPU time when the window started (setup excluded) */
	bool ran_before_start;		/* a spinner due early (early_ns) ran before the window started */
	/*
	 * CPU time the kernel charged a spinner from its last reading before the window start to
	 * its first in the window (cpu_ns counts from there): at most the wall time to the start
	 * run before it, the rest charged while it was kept from its loop (interrupts taken in its
	 * context). When within the window's first gap is unknown.
	 */
	uint64_t cpu_before_first_ns;
	uint64_t left_rt_ns;	/* when an RT task left its class after its window; 0: it did not */
	/* /proc/thread-self/schedstat's time on CPU at spin_begin/spin_end: a cross-check; 0: unread */
	uint64_t schedstat_begin_ns, schedstat_end_ns;
	uint64_t iterations;
	struct gap_stats gaps;
	struct cpu_samples samples;	/* spinners only */
	union {
		struct latency_stats latency;	/* probe, kernel-work */
		struct periodic_stats periodic;
		struct admin_stats admin;
		struct invalid_write_stats invalid;
		struct calibration_stats calibration;
		struct rlimit_stats rlimit;
		struct external_stats external;	/* cyclictest, load */
	} u;
	/* written by the harness when it reaps the task */
	int exit_status;	/* wait status */
	uint64_t rusage_cpu_ns;
	uint64_t demoted_ns;	/* > 0: moved to SCHED_OTHER this long after the window end (stuck RT) */
};

struct window_shm {
	pid_t harness;		/* the tasks' parent: a task whose parent changed must go */
	_Atomic int go;		/* start barrier: set once start_ns/end_ns are final */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC window, the same for every task */
	uint64_t lead_ns;	/* spinners start here, <= start_ns (a lead-in), unmeasured until start_ns */
	int task_count;
	struct task_record task[TASKS_MAX];
};

#endif
