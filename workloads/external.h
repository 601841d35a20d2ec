/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Programs a task runs for its window (cyclictest, hackbench, stress-ng). They stay in the
 * window's process group, so the guardian's kill of that group reaches them if the harness
 * dies; each dies with the task that started it (PR_SET_PDEATHSIG) and is stopped at the
 * window end, and whatever they leave behind is killed before the task ends.
 */
#ifndef RTT_EXTERNAL_H
#define RTT_EXTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EXTERNAL_ARGS_MAX 24
/* A task keeps its program's output in the run's private folder (private_dir.h): <role>-<pid>.<kind>. */
#define EXTERNAL_STOP_GRACE_NS 1000000000ull	/* from the stop signal to SIGKILL */

struct external_cmd {
	char store[640];	/* the arguments, NUL-separated */
	size_t used;
	char *argv[EXTERNAL_ARGS_MAX + 1];
	int argc;
};

/* Appends one argument; false when the command is full. */
bool external_arg(struct external_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The command as one line, arguments joined by spaces. */
void external_cmdline(const struct external_cmd *cmd, char *buf, size_t len);
/* The CPUs the caller may run on as a list ("0,2"); returns how many. */
int external_own_cpus(char *buf, size_t len);
/* Makes the calling task the reaper of what its programs leave behind (see external_sweep). */
void external_begin(void);
/*
 * Starts the program with stdout to out_path and stderr to err_path (NULL: /dev/null), both
 * new files (an existing one makes the start fail, status 127). It dies
 * with the caller and, should it outlive it anyway, after lifetime_s (SIGALRM). -1 on failure.
 */
pid_t external_start(const struct external_cmd *cmd, const char *out_path, const char *err_path,
		     unsigned lifetime_s);
/* Waits until the program ends (true, *status its wait status) or the deadline passes (false). */
bool external_wait(pid_t pid, uint64_t deadline_ns, int *status);
/*
 * Waits until the program has `threads` threads (a measuring thread is up) and returns when it
 * saw them, or 0 when the deadline passed or the program ended first. Looks every 200 us.
 */
uint64_t external_await_threads(pid_t pid, int threads, uint64_t deadline_ns);
/* The program's one thread besides its main thread, 0 when it has none or several. */
pid_t external_sole_thread(pid_t pid);
/*
 * Sends sig to thread tid of the program (0: to the program), sets *sent_ns to when it was
 * sent (NULL: not wanted), waits up to EXTERNAL_STOP_GRACE_NS, then SIGKILL; returns the wait
 * status.
 */
int external_stop(pid_t pid, pid_t tid, int sig, uint64_t *sent_ns);
/* The same with its own grace: a program that must undo its settings before it exits (rtla's tracer). */
int external_stop_within(pid_t pid, pid_t tid, int sig, uint64_t *sent_ns, uint64_t grace_ns);
/* Kills and reaps every process still below the caller (needs /proc/PID/task/TID/children). */
void external_sweep(void);
/* The first line of a file (an error message a program left), or "". */
void external_first_line(const char *path, char *buf, size_t len);

#endif
