// SPDX-License-Identifier: GPL-2.0-only
/*
 * The administrator of the 2008 debate: at its decision moment it forks and execs `kill -9`
 * on the runaway task, then waits until that task is gone. Everything it does needs CFS time
 * on the hogged CPU, so the recovery time is what the throttling policy leaves the admin.
 */
#include "roles.h"
#include "spin_measure.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Waits until `pid` exits or `deadline`; pidfd works for processes that are not our children. */
static uint64_t wait_gone(pid_t pid, uint64_t deadline)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	uint64_t now;

	if (fd < 0)
		return errno == ESRCH ? mono_ns() : 0;
	for (now = mono_ns(); now < deadline; now = mono_ns()) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int left_ms = (int)((deadline - now) / 1000000ull) + 1;

		if (poll(&pfd, 1, left_ms) > 0) {
			now = mono_ns();
			close(fd);
			return now;
		}
	}
	close(fd);
	return 0;
}

void role_admin(struct window_shm *shm, struct task_record *rec)
{
	struct admin_stats *a = &rec->u.admin;
	const struct task_record *target = &shm->task[rec->config.target];
	uint64_t decided = shm->start_ns + rec->config.act_at_ns, gone;
	char pid_text[24];
	pid_t child;

	rec->first_ns = shm->start_ns;
	sleep_until_ns(decided);
	a->decided_ns = decided - shm->start_ns;
	a->acted = 1;
	snprintf(pid_text, sizeof(pid_text), "%d", (int)target->pid);
	child = fork();
	if (child == 0) {
		execl("/bin/kill", "kill", "-9", pid_text, (char *)NULL);
		_exit(127);
	}
	/* The harness ends the window's tasks at the window end: that is the watchdog. */
	gone = child > 0 ? wait_gone(target->pid, shm->end_ns + 500000000ull) : 0;
	if (child > 0)
		waitpid(child, &a->kill_status, 0);
	/* Gone only after the window ended: the hog stopped by itself, the admin never got in. */
	a->gone_ns = gone && gone < shm->end_ns ? gone - shm->start_ns : 0;
	rec->last_ns = mono_ns();
}
