// SPDX-License-Identifier: GPL-2.0-only
/* Programs started with a death signal and an alarm, awaited on a pidfd; the task reaps their orphans too. */
#include "external.h"
#include "private_dir.h"
#include "spin_measure.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool external_arg(struct external_cmd *cmd, const char *fmt, ...)
{
	size_t room = sizeof(cmd->store) - cmd->used;
	va_list ap;
	int n;

	if (cmd->argc == EXTERNAL_ARGS_MAX)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(cmd->store + cmd->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return false;
	cmd->argv[cmd->argc++] = cmd->store + cmd->used;
	cmd->argv[cmd->argc] = NULL;
	cmd->used += (size_t)n + 1;
	return true;
}

void external_cmdline(const struct external_cmd *cmd, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < cmd->argc && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", cmd->argv[i]);
}

int external_own_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;
	int count = 0;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && used < len; c++)
		if (CPU_ISSET(c, &set)) {
			used += (size_t)snprintf(buf + used, len - used, "%s%d", count ? "," : "", c);
			count++;
		}
	return count;
}

void external_begin(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* A file of the run's private folder is always new: a name already there is never followed. */
static void redirect(int fd, const char *path)
{
	int to = path ? open(path, PRIVATE_DIR_NEW_FILE, 0600) : open("/dev/null", fd ? O_WRONLY : O_RDONLY);

	if (to < 0) {
		fprintf(stderr, "cannot open %s: %s\n", path ? path : "/dev/null", strerror(errno));
		_exit(127);
	}
	if (to != fd) {
		dup2(to, fd);
		close(to);
	}
}

pid_t external_start(const struct external_cmd *cmd, const char *out_path, const char *err_path,
		     unsigned lifetime_s)
{
	pid_t parent = getpid(), pid;

	if (!cmd->argc)
		return errno = EINVAL, -1;
	pid = fork();
	if (pid != 0)
		return pid;
	/* Dies with the task; a task already gone means the window is over. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	alarm(lifetime_s);	/* kept across exec; programs with their own timer replace it */
	redirect(0, NULL);
	redirect(1, out_path);
	redirect(2, err_path);
	execvp(cmd->argv[0], cmd->argv);
	fprintf(stderr, "cannot run %s: %s\n", cmd->argv[0], strerror(errno));
	_exit(127);
}

bool external_wait(pid_t pid, uint64_t deadline_ns, int *status)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	for (;;) {
		uint64_t now = mono_ns();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (waitpid(pid, status, WNOHANG) == pid) {
			if (fd >= 0)
				close(fd);
			return true;
		}
		if (now >= deadline_ns)
			break;
		/* Without a pidfd, look again every 10 ms. */
		poll(fd >= 0 ? &pfd : NULL, fd >= 0, fd >= 0 ? (int)((deadline_ns - now) / 1000000ull) + 1 : 10);
	}
	if (fd >= 0)
		close(fd);
	return false;
}

static int thread_count(pid_t pid)
{
	char path[64], line[128];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

uint64_t external_await_threads(pid_t pid, int threads, uint64_t deadline_ns)
{
	const struct timespec step = { 0, 200000 };

	for (;;) {
		int n = thread_count(pid);
		uint64_t now = mono_ns();

		if (n >= threads)
			return now;
		if (n < 0 || now >= deadline_ns)
			return 0;
		nanosleep(&step, NULL);
	}
}

pid_t external_sole_thread(pid_t pid)
{
	char path[64];
	struct dirent *d;
	pid_t sole = 0;
	int others = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) != pid) {
			sole = atoi(d->d_name);
			others++;
		}
	closedir(dir);
	return others == 1 ? sole : 0;
}

int external_stop(pid_t pid, pid_t tid, int sig, uint64_t *sent_ns)
{
	return external_stop_within(pid, tid, sig, sent_ns, EXTERNAL_STOP_GRACE_NS);
}

int external_stop_within(pid_t pid, pid_t tid, int sig, uint64_t *sent_ns, uint64_t grace_ns)
{
	int status = 0;

	if (!tid || syscall(SYS_tgkill, pid, tid, sig) != 0)
		kill(pid, sig);
	if (sent_ns)
		*sent_ns = mono_ns();
	if (!external_wait(pid, mono_ns() + grace_ns, &status)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	return status;
}

void external_sweep(void)
{
	char path[64], list[2048];

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	/* Orphans of what is killed come to us (child subreaper): repeat until none is left. */
	for (int round = 0; round < 100; round++) {
		const struct timespec pause = { .tv_nsec = 2000000 };

		if (read_text_file(path, list, sizeof(list)))
			for (char *p = list, *end; *p; p = end) {
				long child = strtol(p, &end, 10);

				if (end == p)
					break;
				if (child > 0)
					kill((pid_t)child, SIGKILL);
			}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		nanosleep(&pause, NULL);
	}
}

void external_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}
