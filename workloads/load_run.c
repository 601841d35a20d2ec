// SPDX-License-Identifier: GPL-2.0-only
/*
 * The load role: a background load on its CPUs for the window, at SCHED_OTHER. hackbench
 * (rt-tests) runs again and again, each run bounded by its message count; stress-ng runs once
 * with its own --timeout. Both stop with SIGINT at the window end (hackbench then kills its
 * workers, stress-ng writes its metrics), and whatever they leave is killed (external_sweep).
 */
#include "external.h"
#include "private_dir.h"
#include "roles.h"
#include "spin_measure.h"
#include "task.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define HACKBENCH_FDS 10	/* per group: 10 senders, 10 receivers */
#define HACKBENCH_LOOPS 1000	/* messages per sender and run: ~0.3 s a run a CPU here */

static bool load_command(const struct task_config *c, int cpus, const char *yaml_path, struct external_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	if (c->load_tool == LOAD_HACKBENCH)
		/* One group per loaded CPU. */
		return external_arg(cmd, "hackbench") && external_arg(cmd, "-g") && external_arg(cmd, "%d", cpus) &&
		       external_arg(cmd, "-f") && external_arg(cmd, "%d", HACKBENCH_FDS) && external_arg(cmd, "-l") &&
		       external_arg(cmd, "%d", HACKBENCH_LOOPS);
	/* --timeout: it ends by itself a second after the window even if nobody stops it. */
	return external_arg(cmd, "stress-ng") && external_arg(cmd, "--cpu") && external_arg(cmd, "%d", cpus) &&
	       external_arg(cmd, "--timeout") && external_arg(cmd, "%.0fs", ceil(c->window_ns / 1e9) + 1) &&
	       external_arg(cmd, "--metrics-brief") && external_arg(cmd, "--yaml") && external_arg(cmd, "%s", yaml_path);
}

/* The number after `key` on the first line that holds it (hackbench "Time:", stress-ng "bogo-ops:"). */
static double figure_after(const char *path, const char *key)
{
	char line[256];
	double v = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, key);

		if (at) {
			v = strtod(at + strlen(key), NULL);
			break;
		}
	}
	fclose(f);
	return v;
}

/* Runs the tool until the window end: false once it failed on its own (x->error says why). */
static bool run_once(struct window_shm *shm, struct task_record *rec, const struct external_cmd *cmd,
		     const char *out_path, const char *err_path)
{
	struct external_stats *x = &rec->u.external;
	pid_t pid;
	bool ended;

	/* Each run's files are new (external_start creates them with O_EXCL). */
	unlink(out_path);
	unlink(err_path);
	unlink(x->output);
	pid = external_start(cmd, out_path, err_path, (unsigned)rec->config.lifetime_cap_s);
	if (pid < 0)
		task_fail(rec, "fork for %s failed", cmd->argv[0]);
	x->runs++;
	ended = external_wait(pid, shm->end_ns, &x->exit_status);
	if (!ended)
		x->exit_status = external_stop(pid, 0, SIGINT, NULL);
	x->reported += figure_after(rec->config.load_tool == LOAD_HACKBENCH ? out_path : x->output,
				    rec->config.load_tool == LOAD_HACKBENCH ? "Time:" : "bogo-ops:");
	if (ended && WIFEXITED(x->exit_status) && WEXITSTATUS(x->exit_status) == 0) {
		x->runs_done++;
		return true;
	}
	if (!ended)
		return true;
	external_first_line(err_path, x->error, sizeof(x->error));
	return false;
}

void role_load(struct window_shm *shm, struct task_record *rec)
{
	struct external_stats *x = &rec->u.external;
	char out_path[sizeof(x->output)], err_path[sizeof(x->output)];
	struct external_cmd cmd;
	bool ok = true;

	rec->first_ns = shm->start_ns;
	if (!private_dir_file(x->output, sizeof(x->output), "load-%d.yaml", (int)getpid()) ||
	    !private_dir_file(out_path, sizeof(out_path), "load-%d.out", (int)getpid()) ||
	    !private_dir_file(err_path, sizeof(err_path), "load-%d.err", (int)getpid()))
		task_fail(rec, "no private folder for the load's files");
	if (!load_command(&rec->config, external_own_cpus(x->cpus, sizeof(x->cpus)), x->output, &cmd))
		task_fail(rec, "the load's command line is too long");
	external_cmdline(&cmd, x->command, sizeof(x->command));
	external_begin();
	while (ok && mono_ns() < shm->end_ns)
		ok = run_once(shm, rec, &cmd, out_path, err_path);
	external_sweep();
	rec->last_ns = mono_ns();
	unlink(x->output);
	unlink(out_path);
	unlink(err_path);
	if (!ok)
		task_fail(rec, "%s exited with status %d: %s", cmd.argv[0],
			  WIFEXITED(x->exit_status) ? WEXITSTATUS(x->exit_status) : 128 + WTERMSIG(x->exit_status),
			  x->error[0] ? x->error : "(nothing on stderr)");
}
