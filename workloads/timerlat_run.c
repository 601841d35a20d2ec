// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timerlat role: `rtla timerlat hist` on the measured CPU for the window, beside the probe
 * and cyclictest. The kernel's timerlat tracer wakes a kernel thread of its own there every
 * interval and measures its timer's IRQ and thread latency; rtla keeps the histograms. This
 * task starts rtla in its set-up, before the start barrier: the tracer creates its thread as
 * a SCHED_OTHER kernel thread that must first run on the measured CPU, which beside a spinning
 * FIFO hog on PREEMPT_RT it never does (rtla's write then blocks the whole window, and the
 * tracer fails to start at the stop). It stops rtla with SIGINT (its normal way out, which
 * prints the histograms) at the window end and waits, off the measured CPU. Where rtla or the
 * tracer is missing it records why and runs nothing. The harness reads the output
 * (harness/measure/timerlat.c).
 */
#include "external.h"
#include "private_dir.h"
#include "roles.h"
#include "spin_measure.h"
#include "task.h"
#include "util.h"

#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* rtla disables its tracer and removes its trace instance after SIGINT: give it time to. */
#define TIMERLAT_STOP_GRACE_NS 5000000000ull
/* How long the set-up waits for rtla to start tracing (an emulated guest: a fraction of it). */
#define TIMERLAT_SETUP_NS 2000000000ull

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The first line of a small file, without its newline; false when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Whether the word is one of the space-separated words of list. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * The tracefs folder whose kernel has the timerlat tracer into dir; false with why (no rtla,
 * no tracefs, no tracer: Debian's non-rt kernels build without CONFIG_TIMERLAT_TRACER).
 */
static bool timerlat_available(char *dir, size_t dir_len, char *why, size_t why_len)
{
	char path[96], tracers[512];

	if (!program_on_path("rtla")) {
		snprintf(why, why_len, "needs rtla (Debian package rtla): not found on PATH");
		return false;
	}
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/available_tracers", tracefs_dirs[i]);
		if (!read_line(path, tracers, sizeof(tracers)))
			continue;
		if (has_word(tracers, "timerlat")) {
			snprintf(dir, dir_len, "%s", tracefs_dirs[i]);
			return true;
		}
		snprintf(why, why_len, "the kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER), available_tracers: %.70s",
			 tracers);
		return false;
	}
	snprintf(why, why_len, "no tracefs: no available_tracers in /sys/kernel/tracing or /sys/kernel/debug/tracing");
	return false;
}

/* What the role runs: the tracer's thread on the measured CPU at the task's class, rtla here. */
static bool timerlat_command(const struct task_config *c, struct external_cmd *cmd)
{
	char sched[16];

	if (task_config_is_rt(c))
		snprintf(sched, sizeof(sched), "%c:%d", c->sched_policy == SCHED_RR ? 'r' : 'f', c->priority);
	else
		snprintf(sched, sizeof(sched), "o:%d", c->priority);
	memset(cmd, 0, sizeof(*cmd));
	/* -d: it ends by itself seconds after the window (it starts before it) even if nobody stops it. */
	return external_arg(cmd, "rtla") && external_arg(cmd, "timerlat") && external_arg(cmd, "hist") &&
	       external_arg(cmd, "-c") && external_arg(cmd, "%d", c->cpu) && external_arg(cmd, "-p") &&
	       external_arg(cmd, "%llu", (unsigned long long)(c->interval_ns / 1000)) && external_arg(cmd, "-P") &&
	       external_arg(cmd, "%s", sched) && external_arg(cmd, "-E") &&
	       external_arg(cmd, "%llu", (unsigned long long)c->histogram_us) && external_arg(cmd, "-d") &&
	       external_arg(cmd, "%.0f", ceil(c->window_ns / 1e9) + 10) &&
	       (!c->stop_us || (external_arg(cmd, "-T") && external_arg(cmd, "%llu", (unsigned long long)c->stop_us)));
}

/*
 * When rtla's trace instance started tracing (it stays off while rtla sets the tracer up and
 * the tracer's thread priority), or 0 when the deadline passed or rtla ended first. Looks every
 * 500 us.
 */
static uint64_t await_tracing(pid_t pid, const char *tracefs, uint64_t deadline_ns)
{
	const struct timespec step = { .tv_nsec = 500000 };
	char path[128], on[8];

	snprintf(path, sizeof(path), "%s/instances/timerlat_hist/tracing_on", tracefs);
	while (mono_ns() < deadline_ns) {
		siginfo_t ended = { 0 };

		if (read_line(path, on, sizeof(on)) && !strcmp(on, "1"))
			return mono_ns();
		/* Ended already (WNOWAIT: its status stays for external_wait). */
		if (!waitid(P_PID, (id_t)pid, &ended, WEXITED | WNOHANG | WNOWAIT) && ended.si_pid == pid)
			return 0;
		nanosleep(&step, NULL);
	}
	return 0;
}

/*
 * rtla killed before it took its tracer down leaves its instance tracing: the tracer's thread
 * would go on waking on the measured CPU at the task's priority. Removing the instance stops it.
 */
static void remove_instance(const char *tracefs)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/instances/timerlat_hist", tracefs);
	rmdir(path);
}

/* What prepare started, for the body: this task's own process keeps them. */
static pid_t rtla_pid;
static char rtla_err_path[256], rtla_tracefs[64];

void timerlat_prepare(struct task_record *rec)
{
	struct external_stats *x = &rec->u.external;
	struct external_cmd cmd;

	if (!timerlat_available(rtla_tracefs, sizeof(rtla_tracefs), x->error, sizeof(x->error))) {
		x->unavailable = 1;
		return;
	}
	if (!private_dir_file(x->output, sizeof(x->output), "timerlat-%d.txt", (int)getpid()) ||
	    !private_dir_file(rtla_err_path, sizeof(rtla_err_path), "timerlat-%d.err", (int)getpid()))
		task_fail(rec, "no private folder for rtla's files");
	external_own_cpus(x->cpus, sizeof(x->cpus));
	if (!timerlat_command(&rec->config, &cmd))
		task_fail(rec, "the rtla command line is too long");
	external_cmdline(&cmd, x->command, sizeof(x->command));
	external_begin();
	rtla_pid = external_start(&cmd, x->output, rtla_err_path, (unsigned)rec->config.lifetime_cap_s + 20);
	if (rtla_pid < 0)
		task_fail(rec, "fork for rtla failed");
	x->runs = 1;
	x->measuring_ns = await_tracing(rtla_pid, rtla_tracefs, mono_ns() + TIMERLAT_SETUP_NS);
}

void role_timerlat(struct window_shm *shm, struct task_record *rec)
{
	struct external_stats *x = &rec->u.external;

	rec->first_ns = shm->start_ns;
	if (x->unavailable) {
		rec->last_ns = mono_ns();
		return;
	}
	/* Set-up slower than TIMERLAT_SETUP_NS: its start may still come within the window. */
	if (!x->measuring_ns)
		x->measuring_ns = await_tracing(rtla_pid, rtla_tracefs, shm->end_ns);
	if (external_wait(rtla_pid, shm->end_ns, &x->exit_status))
		x->stopped_ns = mono_ns();	/* it stopped by itself: a threshold, its -d, or an error */
	else
		x->exit_status = external_stop_within(rtla_pid, 0, SIGINT, &x->stopped_ns, TIMERLAT_STOP_GRACE_NS);
	external_sweep();
	if (WIFSIGNALED(x->exit_status))
		remove_instance(rtla_tracefs);
	rec->last_ns = mono_ns();
	external_first_line(rtla_err_path, x->error, sizeof(x->error));
	unlink(rtla_err_path);
	/* rtla exits 2 where a threshold stopped the trace (1 before 6.x's exit codes: an error). */
	if (WIFEXITED(x->exit_status) && (WEXITSTATUS(x->exit_status) == 0 || WEXITSTATUS(x->exit_status) == 2)) {
		x->runs_done = 1;
		return;
	}
	unlink(x->output);
	if (WIFSIGNALED(x->exit_status))
		task_fail(rec, "rtla was killed by signal %d (it did not stop within 5 s of SIGINT)", WTERMSIG(x->exit_status));
	task_fail(rec, "rtla exited with status %d: %s", WEXITSTATUS(x->exit_status),
		  x->error[0] ? x->error : "(nothing on stderr)");
}
