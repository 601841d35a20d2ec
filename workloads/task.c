#include "task.h"
#include "spin_measure.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void __attribute__((noreturn, format(printf, 2, 3))) fail(struct task_record *rec, const char *fmt, ...)
{
	va_list ap;

	rec->error = errno;
	va_start(ap, fmt);
	vsnprintf(rec->error_msg, sizeof(rec->error_msg), fmt, ap);
	va_end(ap);
	atomic_store(&rec->state, TASK_FAILED);
	_exit(1);
}

/* Limits that end the task even if the harness and its guardian are both gone. */
static void bound_lifetime(struct task_record *rec)
{
	const struct task_config *c = &rec->config;
	uint64_t window_s = c->window_ns / 1000000000ull + 1;
	/* RT CPU time without blocking: the window plus a margin; SIGXCPU then SIGKILL. */
	struct rlimit rttime = {
		.rlim_cur = (window_s + 2) * 1000000ull,
		.rlim_max = (window_s + 3) * 1000000ull,
	};

	if (c->sched_policy != SCHED_OTHER && setrlimit(RLIMIT_RTTIME, &rttime))
		fail(rec, "setrlimit(RLIMIT_RTTIME): %s", strerror(errno));
	alarm((unsigned)c->lifetime_cap_s);
}

static void place_and_schedule(struct task_record *rec)
{
	const struct task_config *c = &rec->config;
	struct sched_param param = { .sched_priority = 0 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail(rec, "pinning to CPU %d: %s", c->cpu, strerror(errno));
	if (c->sched_policy == SCHED_OTHER) {
		if (setpriority(PRIO_PROCESS, 0, c->priority))
			fail(rec, "setpriority(nice %d): %s", c->priority, strerror(errno));
		return;
	}
	param.sched_priority = c->priority;
	if (sched_setscheduler(0, c->sched_policy, &param))
		fail(rec, "sched_setscheduler(policy %d, priority %d): %s%s", c->sched_policy,
		     c->priority, strerror(errno),
		     errno == EPERM ? " (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)" : "");
}

void task_main(struct window_shm *shm, struct task_record *rec)
{
	const struct timespec poll = { .tv_nsec = 1000000 };

	/* Die with the harness even if the guardian is late. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	rec->pid = getpid();
	bound_lifetime(rec);
	place_and_schedule(rec);
	if (rec->config.sched_policy != SCHED_OTHER && mlockall(MCL_CURRENT | MCL_FUTURE))
		fail(rec, "mlockall: %s", strerror(errno));
	atomic_store(&rec->state, TASK_READY);
	/* Start barrier: sleeping polls, so a waiting RT task takes nothing from the CPU. */
	while (!atomic_load(&shm->go)) {
		if (getppid() == 1)
			_exit(1);
		nanosleep(&poll, NULL);
	}
	{
		struct timespec start = {
			.tv_sec = (time_t)(shm->start_ns / 1000000000ull),
			.tv_nsec = (long)(shm->start_ns % 1000000000ull),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, NULL) == EINTR)
			;
	}
	spin_measure(rec, shm->start_ns, shm->end_ns);
	atomic_store(&rec->state, TASK_DONE);
	_exit(0);
}
