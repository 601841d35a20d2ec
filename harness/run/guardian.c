// SPDX-License-Identifier: GPL-2.0-only
/* A forked child reading a pipe: end of file before "done" means the harness died; its tasks die first. */
#include "guardian.h"
#include "util.h"
#include "cgroups.h"
#include "private_dir.h"
#include "state.h"
#include "rt_queue.h"
#include "trace.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Messages on the pipe: 'G' + pgid (a window's tasks), 'D' (done: nothing to do). */
struct message {
	char kind;
	pid_t pgid;
};

static int pipe_fd = -1;
static pid_t guardian_pid;

static void guard(int fd) __attribute__((noreturn));
static void guard(int fd)
{
	struct message msg;
	pid_t pgid = 0, harness = getppid();
	bool done = false, restored;
	ssize_t got;

	setsid();	/* out of the terminal's process group: Ctrl-C must not reach us */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "rtthrottle-guard");
	while ((got = read(fd, &msg, sizeof(msg))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (msg.kind == 'G')
			pgid = msg.pgid;
		else if (msg.kind == 'D')
			done = true;
	}
	if (done)
		_exit(0);
	/* The harness died: tasks first (they may be starving the CPU), then the knobs. */
	if (pgid > 0)
		kill(-pgid, SIGKILL);
	state_remove_stale_temps();	/* the harness may have died saving the state */
	cgroups_remove_stale();		/* and with a scenario's RT groups in place */
	trace_remove_stale(harness);	/* and its tracefs instance (and mount) */
	rt_queue_remove_stale(harness);	/* and the debugfs it mounted */
	restored = state_restore();
	fprintf(stderr, restored ? "rtthrottle-guard: the harness died; tasks killed and knobs restored\n"
				 : "rtthrottle-guard: restoring the knobs failed; run 'rtthrottle restore'\n");
	private_dir_remove(2.0);	/* the knobs first: then its tasks' cyclictest and load output */
	_exit(restored ? 0 : 1);
}

bool guardian_start(bool realtime)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		rtt_err("pipe for the guardian: %s", strerror(errno));
		return false;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rtt_err("fork of the guardian: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		struct sched_param top = { .sched_priority = 99 };

		close(fds[1]);
		/* Above every hog, so it can act even where the harness shares the hogged CPU. */
		if (realtime && sched_setscheduler(0, SCHED_FIFO, &top))
			fprintf(stderr, "rtthrottle-guard: cannot run at SCHED_FIFO 99: %s\n", strerror(errno));
		guard(fds[0]);
	}
	close(fds[0]);
	pipe_fd = fds[1];
	guardian_pid = pid;
	return true;
}

static void send_message(char kind, pid_t pgid)
{
	struct message msg = { kind, pgid };

	if (pipe_fd >= 0 && write(pipe_fd, &msg, sizeof(msg)) != sizeof(msg))
		rtt_warn("guardian not reachable: %s", strerror(errno));
}

void guardian_watch_group(pid_t pgid)
{
	send_message('G', pgid);
}

void guardian_release(void)
{
	if (pipe_fd < 0)
		return;
	send_message('D', 0);
	close(pipe_fd);
	pipe_fd = -1;
	waitpid(guardian_pid, NULL, 0);
}
