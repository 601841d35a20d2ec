// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cyclictest role: rt-tests' cyclictest on the measured CPU for the window, beside (or
 * instead of) rtthrottle's own probe. This task only starts it at the window start, stops it
 * with SIGINT (its normal way out, which writes the JSON) at the window end and waits, off the
 * measured CPU; cyclictest places and schedules its measuring thread itself (-a, -p, --policy).
 * The harness reads the JSON (harness/measure/cyclictest.c).
 */
#include "external.h"
#include "private_dir.h"
#include "roles.h"
#include "spin_measure.h"
#include "task.h"

#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the role runs: its measuring thread on the measured CPU, its main thread here. */
static bool cyclictest_command(const struct task_config *c, const char *json_path, const char *main_cpus,
			struct external_cmd *cmd)
{
	static const char *const policies[] = { [SCHED_OTHER] = "other", [SCHED_FIFO] = "fifo", [SCHED_RR] = "rr" };
	const char *policy = task_config_is_rt(c) ? policies[c->sched_policy] : "other";
	bool ok;

	memset(cmd, 0, sizeof(*cmd));
	/* -D: it ends by itself a second after the window even if nobody stops it. */
	ok = external_arg(cmd, "cyclictest") && external_arg(cmd, "-q") && external_arg(cmd, "-m") &&
	     external_arg(cmd, "-t") && external_arg(cmd, "1") && external_arg(cmd, "-a") && external_arg(cmd, "%d", c->cpu) &&
	     external_arg(cmd, "--policy=%s", policy) && external_arg(cmd, "-p") &&
	     external_arg(cmd, "%d", strcmp(policy, "other") ? c->priority : 0) && external_arg(cmd, "-i") &&
	     external_arg(cmd, "%llu", (unsigned long long)(c->interval_ns / 1000)) && external_arg(cmd, "-h") &&
	     external_arg(cmd, "%llu", (unsigned long long)c->histogram_us) && external_arg(cmd, "--histfile=/dev/null") &&
	     external_arg(cmd, "-D") && external_arg(cmd, "%.0f", ceil(c->window_ns / 1e9) + 1) &&
	     external_arg(cmd, "--json=%s", json_path);
	if (ok && main_cpus && *main_cpus)
		ok = external_arg(cmd, "--mainaffinity=%s", main_cpus);
	return ok;
}

void role_cyclictest(struct window_shm *shm, struct task_record *rec)
{
	struct external_stats *x = &rec->u.external;
	struct external_cmd cmd;
	char err_path[sizeof(x->output)];
	pid_t pid, measuring_tid;

	rec->first_ns = shm->start_ns;
	if (!private_dir_file(x->output, sizeof(x->output), "cyclictest-%d.json", (int)getpid()) ||
	    !private_dir_file(err_path, sizeof(err_path), "cyclictest-%d.err", (int)getpid()))
		task_fail(rec, "no private folder for cyclictest's files");
	external_own_cpus(x->cpus, sizeof(x->cpus));
	if (!cyclictest_command(&rec->config, x->output, x->cpus, &cmd))
		task_fail(rec, "the cyclictest command line is too long");
	external_cmdline(&cmd, x->command, sizeof(x->command));
	external_begin();
	pid = external_start(&cmd, NULL, err_path, (unsigned)rec->config.lifetime_cap_s);
	if (pid < 0)
		task_fail(rec, "fork for cyclictest failed");
	x->runs = 1;
	/*
	 * It counts its cycles from its measuring thread's start: under load its exec, mlockall
	 * and thread creation can take many intervals, which the cross-check must know.
	 */
	x->measuring_ns = external_await_threads(pid, 2, shm->end_ns);
	measuring_tid = x->measuring_ns ? external_sole_thread(pid) : 0;
	/*
	 * The stop goes to its measuring thread: its sleep ends with EINTR and it exits without
	 * another cycle. Sent to the program, its main thread (on the other CPUs) must run
	 * first, and a stall there lets it count cycles past the window (70 in 70 ms).
	 */
	if (!external_wait(pid, shm->end_ns, &x->exit_status))
		x->exit_status = external_stop(pid, measuring_tid, SIGINT, measuring_tid ? &x->stopped_ns : NULL);
	external_sweep();
	rec->last_ns = mono_ns();
	external_first_line(err_path, x->error, sizeof(x->error));
	unlink(err_path);
	if (!WIFEXITED(x->exit_status) || WEXITSTATUS(x->exit_status) != 0) {
		unlink(x->output);
		if (WIFSIGNALED(x->exit_status))
			task_fail(rec, "cyclictest was killed by signal %d (it did not stop within 1 s of SIGINT)",
				  WTERMSIG(x->exit_status));
		task_fail(rec, "cyclictest exited with status %d: %s", WEXITSTATUS(x->exit_status),
			  x->error[0] ? x->error : "(nothing on stderr)");
	}
	x->runs_done = 1;
}
