// SPDX-License-Identifier: GPL-2.0-only
/* A task's setup in order (limits, pinning, NUMA, mlockall, cgroup, class), the start barrier, its role. */
#include "task.h"
#include "role_table.h"
#include "roles.h"
#include "spin_measure.h"

#include <errno.h>
#include <stdbool.h>
#include <numa.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Why the pages could not be locked, and what lets them be: an unprivileged run meets the limit first. */
static void mlock_failed(struct task_record *rec, int err)
{
	struct rlimit lim;

	if (err == ENOMEM && !getrlimit(RLIMIT_MEMLOCK, &lim) && lim.rlim_cur != RLIM_INFINITY)
		task_fail(rec, "mlockall: RLIMIT_MEMLOCK (%llu kB) is below the task's memory: raise memlock "
			  "(limits.conf, ulimit -l) or grant CAP_IPC_LOCK", (unsigned long long)lim.rlim_cur / 1024);
	task_fail(rec, "mlockall: %s", strerror(err));
}

/* The kernel's struct sched_attr (glibc 2.36 has no wrapper). */
struct sched_attr_v1 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

static struct task_record *current;

/* SIGXCPU: the soft RLIMIT_RTTIME. Record when, keep spinning until the hard limit. */
static void on_sigxcpu(int sig)
{
	(void)sig;
	if (current && !current->u.rlimit.sigxcpu_cpu_ns)
		current->u.rlimit.sigxcpu_cpu_ns = thread_cpu_ns() - current->cpu_at_start_ns;
}

/* Limits that end the task even if the harness and its guardian are both gone. */
static void bound_lifetime(struct task_record *rec)
{
	const struct task_config *c = &rec->config;
	uint64_t window_s = (c->window_ns + c->lead_ns + c->early_ns) / 1000000000ull + 1;
	/* RT CPU time without blocking: the window plus a margin; SIGXCPU then SIGKILL. */
	struct rlimit rttime = {
		.rlim_cur = c->rttime_soft_us ? c->rttime_soft_us : (window_s + 2) * 1000000ull,
		.rlim_max = c->rttime_hard_us ? c->rttime_hard_us : (window_s + 3) * 1000000ull,
	};

	if (c->sched_policy != SCHED_OTHER && setrlimit(RLIMIT_RTTIME, &rttime))
		task_fail(rec, "setrlimit(RLIMIT_RTTIME): %s", strerror(errno));
	if (c->rttime_soft_us) {
		struct sigaction sa = { .sa_handler = on_sigxcpu };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGXCPU, &sa, NULL);
	}
	alarm((unsigned)c->lifetime_cap_s);
}

static void join_cgroup(struct task_record *rec)
{
	char path[160], pid[16];
	int fd;

	if (!rec->config.cgroup[0])
		return;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu/%s/tasks", rec->config.cgroup);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		task_fail(rec, "joining cgroup %s: %s", path, strerror(errno));
	close(fd);
}

static void set_deadline(struct task_record *rec)
{
	const struct task_config *c = &rec->config;
	struct sched_attr_v1 attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = c->dl_runtime_ns,
		.sched_deadline = c->dl_period_ns,
		.sched_period = c->dl_period_ns,
	};

	if (syscall(SYS_sched_setattr, 0, &attr, 0))
		task_fail(rec, "sched_setattr(SCHED_DEADLINE %llu/%llu ns): %s%s",
		     (unsigned long long)c->dl_runtime_ns, (unsigned long long)c->dl_period_ns, strerror(errno),
		     errno == EBUSY ? " (deadline bandwidth full)" : "");
}

static void place_and_schedule(struct task_record *rec)
{
	const struct task_config *c = &rec->config;
	struct sched_param param = { .sched_priority = 0 };
	cpu_set_t set;

	/*
	 * Unpinned tasks get every CPU back (the harness keeps itself off the measured one).
	 * SCHED_DEADLINE refuses an affinity narrower than its root domain: it is never pinned.
	 */
	CPU_ZERO(&set);
	if (c->cpu >= 0 && c->sched_policy != SCHED_DEADLINE && c->avoid_cpu < 0)
		CPU_SET(c->cpu, &set);
	else
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (cpu != c->avoid_cpu)
				CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		task_fail(rec, "pinning to CPU %d: %s", c->cpu, strerror(errno));
	/* Memory on the CPU's own node, before mlockall faults the pages in. */
	if (c->mem_node >= 0 && c->cpu >= 0 && numa_available() >= 0) {
		numa_set_preferred(c->mem_node);
		if (numa_preferred() != c->mem_node)
			task_fail(rec, "preferring memory of NUMA node %d: the policy did not take", c->mem_node);
	}
	/*
	 * Pages in before the class changes: faulting them in takes tens of ms on a slow machine
	 * (an emulator), which a deadline task would charge to its runtime and then be throttled
	 * for into its first job.
	 */
	if (c->sched_policy != SCHED_OTHER && mlockall(MCL_CURRENT | MCL_FUTURE))
		mlock_failed(rec, errno);
	join_cgroup(rec);
	if (c->sched_policy == SCHED_OTHER) {
		if (setpriority(PRIO_PROCESS, 0, c->priority))
			task_fail(rec, "setpriority(nice %d): %s", c->priority, strerror(errno));
		return;
	}
	/* A deadline task takes its class at the start barrier (task_main). */
	if (c->sched_policy == SCHED_DEADLINE)
		return;
	param.sched_priority = c->priority;
	if (sched_setscheduler(0, c->sched_policy, &param))
		task_fail(rec, "sched_setscheduler(policy %d, priority %d): %s%s", c->sched_policy,
		     c->priority, strerror(errno),
		     errno == EPERM ? " (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)" : "");
}

static void run_role(struct window_shm *shm, struct task_record *rec)
{
	role_info(rec->config.role)->body(shm, rec);
}

void task_main(struct window_shm *shm, struct task_record *rec)
{
	const struct timespec poll = { .tv_nsec = 1000000 };

	/* Die with the harness even if the guardian is late; it may have died before the prctl. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != shm->harness)
		_exit(1);
	rec->pid = getpid();
	current = rec;
	bound_lifetime(rec);
	place_and_schedule(rec);
	if (role_info(rec->config.role)->prepare)
		role_info(rec->config.role)->prepare(rec);
	atomic_store(&rec->state, TASK_READY);
	/* Start barrier: sleeping polls, so a waiting RT task takes nothing from the CPU. */
	while (!atomic_load(&shm->go)) {
		if (getppid() != shm->harness)
			_exit(1);
		nanosleep(&poll, NULL);
	}
	/*
	 * Only now: the barrier's polls would be charged to a reservation's runtime (100 us a
	 * wake-up under an emulator), and a task that spent it before the window starts its first
	 * job throttled (75 ms seen).
	 */
	if (rec->config.sched_policy == SCHED_DEADLINE)
		set_deadline(rec);
	{
		/*
		 * Spinners run through a lead-in, or from early_ns before the window (role_spin
		 * measures from start_ns); the rest wait.
		 */
		bool spinner = rec->config.role == ROLE_HOG || rec->config.role == ROLE_VICTIM;
		uint64_t from = spinner ? shm->lead_ns : shm->start_ns;

		if (spinner && rec->config.early_ns && shm->start_ns - rec->config.early_ns < from)
			from = shm->start_ns - rec->config.early_ns;
		struct timespec start = {
			.tv_sec = (time_t)(from / 1000000000ull),
			.tv_nsec = (long)(from % 1000000000ull),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, NULL) == EINTR)
			;
	}
	rec->cpu_at_start_ns = thread_cpu_ns();
	run_role(shm, rec);
	leave_rt_class(rec);
	atomic_store(&rec->state, TASK_DONE);
	_exit(0);
}
