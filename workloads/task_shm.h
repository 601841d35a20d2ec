/*
 * What a task and the harness share: the task's settings (written by the harness before the
 * fork) and its measurements (written by the task, read by the harness after it exits).
 * Lives in one MAP_SHARED mapping per run, so nothing is copied inside the window.
 */
#ifndef RTT_TASK_SHM_H
#define RTT_TASK_SHM_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define GAP_HIST_BUCKETS 32	/* log2 buckets of microseconds: [2^i, 2^(i+1)) us */
#define LONG_GAPS_MAX 4096	/* every gap >= long_gap_ns, in order; more are counted only */
#define LONGEST_GAPS 8		/* the longest gaps with their times */
#define TASKS_MAX 16

enum task_role {
	ROLE_HOG,	/* SCHED_FIFO spinner: its gaps are when it was throttled or preempted */
	ROLE_VICTIM,	/* SCHED_OTHER spinner on the hog's CPU: its gaps are its starvation */
	ROLE_NOISE,	/* SCHED_OTHER spinner alone: the machine's own noise floor */
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

struct task_config {
	enum task_role role;
	int cpu;
	int sched_policy;	/* SCHED_FIFO, SCHED_OTHER */
	int priority;		/* RT priority, or nice for SCHED_OTHER */
	uint64_t gap_threshold_ns;
	uint64_t long_gap_ns;
	uint64_t window_ns;	/* length of the measuring window */
	uint64_t lifetime_cap_s;	/* wall-clock cap independent of the harness (alarm) */
};

struct task_record {
	struct task_config config;
	_Atomic int state;
	pid_t pid;
	int error;		/* errno of a failed setup step */
	char error_msg[160];
	/* measurements over [first_ns, last_ns] */
	uint64_t first_ns, last_ns;
	uint64_t cpu_ns;	/* the kernel's accounting: CLOCK_THREAD_CPUTIME_ID */
	uint64_t iterations;
	struct gap_stats gaps;
};

struct window_shm {
	_Atomic int go;		/* start barrier: set once start_ns/end_ns are final */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC window, the same for every task */
	int task_count;
	struct task_record task[TASKS_MAX];
};

#endif
