// SPDX-License-Identifier: GPL-2.0-only
/* The poll loop: barrier, lead-in writes on time, busy time at the edges, reaping, stuck RT tasks demoted. */
#include "window.h"
#include "cpu_stat.h"
#include "guardian.h"
#include "rt_timer.h"
#include "signals.h"
#include "task.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_DELAY_NS 20000000ull	/* barrier release to window start */
#define ALIGN_LEAD_NS 100000ull		/* an aligned window ends this long before the timer fires */
#define REAP_MARGIN_NS 2000000000ull	/* after the window end and a period, before killing */
#define SETUP_MARGIN_NS 3000000000ull	/* for the tasks to reach the barrier, beyond a period */
#define STUCK_MARGIN_NS 500000000ull	/* after the window end and a period: an RT task is stuck */

struct window_shm *window_shm_create(void)
{
	void *p = mmap(NULL, sizeof(struct window_shm), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void window_shm_destroy(struct window_shm *shm)
{
	if (shm)
		munmap(shm, sizeof(*shm));
}

#define POLL_NS 5000000ull	/* the harness's poll while the tasks run */

static void short_sleep(void)
{
	const struct timespec ts = { .tv_nsec = POLL_NS };

	nanosleep(&ts, NULL);
}

/*
 * Reaps what has exited, keeping how it ended; returns how many are still alive, or -1 when a
 * task that should not die ended before finishing its window.
 */
static int reap(struct window_shm *shm, pid_t *pids, int count)
{
	int alive = 0;
	bool lost = false;

	for (int i = 0; i < count; i++) {
		struct task_record *t = &shm->task[i];
		struct rusage ru;
		int status;

		if (pids[i] <= 0)
			continue;
		if (wait4(pids[i], &status, WNOHANG, &ru) != pids[i]) {
			alive++;
			continue;
		}
		pids[i] = 0;
		t->exit_status = status;
		t->rusage_cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
				   (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
		/* A task killed mid-window has no final figures of its own: take the kernel's. */
		/* Counted from the window start, like the task's own figures. */
		t->rusage_cpu_ns = t->rusage_cpu_ns > t->cpu_at_start_ns ? t->rusage_cpu_ns - t->cpu_at_start_ns : 0;
		if (WIFSIGNALED(status) && atomic_load(&t->state) != TASK_DONE) {
			t->last_ns = now_ns();
			t->cpu_ns = t->rusage_cpu_ns;
		}
		lost |= atomic_load(&t->state) != TASK_DONE && !t->config.may_be_killed;
	}
	return lost ? -1 : alive;
}

uint64_t task_life_cpu_ns(const struct task_record *t)
{
	return t->rusage_cpu_ns + t->cpu_at_start_ns;	/* reap() counted it from the start */
}

/* To SCHED_OTHER: a throttled RT task the kernel never lets run again would never end. */
static bool demote(pid_t pid)
{
	const struct sched_param other = { .sched_priority = 0 };

	return sched_setscheduler(pid, SCHED_OTHER, &other) == 0;
}

static void kill_all(pid_t pgid, pid_t *pids, int count)
{
	if (pgid > 0)
		kill(-pgid, SIGKILL);
	for (int i = 0; i < count; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			demote(pids[i]);	/* else its SIGKILL may never be taken */
			waitpid(pids[i], NULL, 0);
			pids[i] = 0;
		}
}

/*
 * A healthy kernel gives a throttled RT task its runtime back within a period; one that
 * never does (a broken period timer) would keep it, and its SIGKILL, from ever running.
 * Such a task is moved to SCHED_OTHER so it can end its window, report and exit; the
 * results say so (demoted_ns).
 */
static void demote_stuck(struct window_shm *shm, const pid_t *pids, int count)
{
	for (int i = 0; i < count; i++) {
		struct task_record *t = &shm->task[i];

		if (pids[i] <= 0 || t->demoted_ns || t->config.sched_policy == SCHED_OTHER)
			continue;
		if (demote(pids[i]))
			t->demoted_ns = now_ns() - shm->end_ns;
	}
}

static int spawn(struct window_shm *shm, int count, pid_t *pids, pid_t *pgid)
{
	for (int i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return errno;
		if (pid == 0) {
			signals_reset_for_child();
			/* Drop the lock and guardian pipe: only the harness may hold them. */
			close_range(3, ~0u, 0);
			setpgid(0, *pgid ? *pgid : 0);
			task_main(shm, &shm->task[i]);
		}
		/* Set the group from both sides so it holds before either runs on. */
		setpgid(pid, *pgid ? *pgid : pid);
		if (!*pgid) {
			*pgid = pid;
			guardian_watch_group(pid);
		}
		pids[i] = pid;
	}
	return 0;
}

/* Waits until every task is at the barrier or one failed. */
static enum window_status wait_ready(struct window_shm *shm, int count, uint64_t timeout_ns, char *why,
				     size_t why_len)
{
	uint64_t deadline = now_ns() + timeout_ns;

	for (;;) {
		int ready = 0;

		for (int i = 0; i < count; i++) {
			struct task_record *t = &shm->task[i];
			int state = atomic_load(&t->state);

			if (state == TASK_FAILED) {
				snprintf(why, why_len, "task %s setup: %s", t->config.name, t->error_msg);
				return WINDOW_TASK_FAILED;
			}
			ready += state == TASK_READY;
		}
		if (ready == count)
			return WINDOW_OK;
		if (signals_stop_requested()) {
			snprintf(why, why_len, "interrupted by signal %d", signals_stop_requested());
			return WINDOW_INTERRUPTED;
		}
		if (now_ns() > deadline) {
			snprintf(why, why_len, "tasks not ready within %.1f s", timeout_ns / 1e9);
			return WINDOW_TASK_FAILED;
		}
		short_sleep();
	}
}

/*
 * The CPU time the window's tasks placed on `cpu` have used since they started: read from
 * their process clocks (an exited but unreaped task still has one), or from what wait4 said
 * for one already reaped. False when a clock could not be read.
 */
static bool tasks_cpu_ns(const struct window_shm *shm, const pid_t *pids, int count, int cpu, uint64_t *out)
{
	*out = 0;
	for (int i = 0; i < count; i++) {
		const struct task_record *t = &shm->task[i];
		struct timespec ts;
		clockid_t clock;

		if (t->config.cpu != cpu)
			continue;
		if (pids[i] <= 0) {
			*out += task_life_cpu_ns(t);
			continue;
		}
		if (clock_getcpuclockid(pids[i], &clock) || clock_gettime(clock, &ts))
			return false;
		*out += (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return true;
}

/*
 * At each window edge: the CPU's busy time and the tasks' own beside it, so that what others
 * took is their difference over exactly the window, whenever the tasks themselves end.
 */
static void busy_at_edge(const struct window_shm *shm, const pid_t *pids, int count, struct window_busy *busy,
			 int *next)
{
	uint64_t v = 0, ours = 0;
	bool read;

	if (!busy || *next > 1 || now_ns() < (*next == 0 ? shm->start_ns : shm->end_ns))
		return;
	read = cpu_busy_ns(busy->cpu, &v) && tasks_cpu_ns(shm, pids, count, busy->cpu, &ours);
	/* Known only once both edges were read: tasks may all end before the end edge is polled. */
	busy->known = (*next == 0 || busy->known) && read &&
		      (*next == 0 || (v >= busy->at_start_ns && ours >= busy->tasks_at_start_ns));
	*(*next == 0 ? &busy->at_start_ns : &busy->at_end_ns) = v;
	*(*next == 0 ? &busy->tasks_at_start_ns : &busy->tasks_at_end_ns) = ours;
	(*next)++;
}

/* The poll's sleep, cut short at the next window edge so its busy time is read on time. */
static void sleep_to_next_poll(const struct window_shm *shm, const struct window_busy *busy, int next)
{
	uint64_t wake = now_ns() + POLL_NS;

	if (busy && next <= 1) {
		uint64_t edge = next == 0 ? shm->start_ns : shm->end_ns;

		if (edge < wake)
			wake = edge;
	}
	sleep_until_ns(wake);
}

/* The lead-in's knob changes that are due; false after saying why when one failed. */
static bool lead_steps_due(const struct window_shm *shm, struct window_lead *lead, int *next, char *why,
			   size_t why_len)
{
	while (lead && *next < lead->steps && now_ns() >= shm->lead_ns + lead->at_ns[*next]) {
		if (!lead->apply(lead->ctx, *next, why, why_len))
			return false;
		lead->applied_ns[(*next)++] = now_ns();
	}
	return true;
}

/*
 * Ends the window at the last firing of the RT period timer by its end, when the timer is armed
 * as the window starts (struct window_align). RT tasks that run before the start (a lead-in,
 * early RT spinners) run up RT time of their own: such a window ends as asked.
 */
static void align_end(struct window_shm *shm, int count, struct window_align *align)
{
	const uint64_t duration = shm->end_ns - shm->start_ns;
	uint64_t cap = duration / 10, firing;
	struct rt_timer_state t;

	align->cut_ns = 0;
	align->firing_ns = 0;
	if (!align->period_ns || shm->lead_ns != shm->start_ns)
		return;
	for (int i = 0; i < count; i++) {
		const struct task_config *c = &shm->task[i].config;

		if (c->early_ns && task_config_is_rt(c))
			return;
	}
	if (cap > align->period_ns * 2 / 5)
		cap = align->period_ns * 2 / 5;
	if (!rt_timer_read(&t))
		return;
	firing = rt_timer_last_firing_by(&t, (int64_t)align->period_ns, shm->end_ns);
	/* Just before the firing: it then comes after the end, and forgives the last period. */
	if (firing > shm->start_ns + ALIGN_LEAD_NS && shm->end_ns - (firing - ALIGN_LEAD_NS) <= cap) {
		align->cut_ns = shm->end_ns - (firing - ALIGN_LEAD_NS);
		align->firing_ns = firing;
		shm->end_ns = firing - ALIGN_LEAD_NS;
		/* The tasks' own window too: a gap the new end cuts is the window's, not a throttle's. */
		for (int i = 0; i < count; i++)
			shm->task[i].config.window_ns = shm->end_ns - shm->start_ns;
	}
}

enum window_status window_run(struct window_shm *shm, const struct task_config *tasks, int count,
			      uint64_t duration_ns, uint64_t period_ns, struct window_lead *lead,
			      struct window_align *align, struct window_busy *busy, char *why, size_t why_len)
{
	const uint64_t setup_timeout_ns = SETUP_MARGIN_NS + period_ns;
	pid_t pids[TASKS_MAX] = { 0 }, pgid = 0;
	enum window_status status;
	uint64_t deadline, lead_ns = lead ? lead->span_ns : 0;
	int err, alive, next_step = 0, next_edge = 0;

	if (busy)
		*busy = (struct window_busy){ .cpu = busy->cpu };
	if (count < 1 || count > TASKS_MAX) {
		snprintf(why, why_len, "task count %d outside 1..%d", count, TASKS_MAX);
		return WINDOW_TASK_FAILED;
	}
	memset(shm, 0, sizeof(*shm));
	shm->harness = getpid();
	shm->task_count = count;
	for (int i = 0; i < count; i++) {
		shm->task[i].config = tasks[i];
		shm->task[i].config.window_ns = duration_ns;
		shm->task[i].config.lead_ns = lead_ns;
		shm->task[i].config.lifetime_cap_s += lead_ns / 1000000000ull + 1;
	}
	fflush(NULL);	/* children must not flush the harness's buffers */
	err = spawn(shm, count, pids, &pgid);
	if (err) {
		snprintf(why, why_len, "fork: %s", strerror(err));
		kill_all(pgid, pids, count);
		return WINDOW_TASK_FAILED;
	}
	status = wait_ready(shm, count, setup_timeout_ns, why, why_len);
	if (status != WINDOW_OK) {
		kill_all(pgid, pids, count);
		return status;
	}
	shm->lead_ns = now_ns() + START_DELAY_NS;
	shm->start_ns = shm->lead_ns + lead_ns;
	shm->end_ns = shm->start_ns + duration_ns;
	if (align)
		align_end(shm, count, align);
	atomic_store(&shm->go, 1);

	deadline = shm->end_ns + period_ns + REAP_MARGIN_NS;
	while ((alive = reap(shm, pids, count)) != 0) {
		/* A task lost mid-window: end the window now rather than run the policy without it. */
		if (alive < 0) {
			kill_all(pgid, pids, count);
			break;
		}
		if (signals_stop_requested()) {
			snprintf(why, why_len, "interrupted by signal %d", signals_stop_requested());
			kill_all(pgid, pids, count);
			return WINDOW_INTERRUPTED;
		}
		if (!lead_steps_due(shm, lead, &next_step, why, why_len)) {
			kill_all(pgid, pids, count);
			return WINDOW_TASK_FAILED;
		}
		if (now_ns() > shm->end_ns + period_ns + STUCK_MARGIN_NS)
			demote_stuck(shm, pids, count);
		if (now_ns() > deadline) {
			int i = 0;

			while (i < count && pids[i] <= 0)
				i++;
			snprintf(why, why_len, "task %s (state %d) outlived its window by %llu ms and was killed",
				 i < count ? shm->task[i].config.name : "?", i < count ? atomic_load(&shm->task[i].state) : -1,
				 (period_ns + REAP_MARGIN_NS) / 1000000ull);
			kill_all(pgid, pids, count);
			return WINDOW_OVERRUN;
		}
		busy_at_edge(shm, pids, count, busy, &next_edge);
		sleep_to_next_poll(shm, busy, next_edge);
	}
	busy_at_edge(shm, pids, count, busy, &next_edge);	/* the tasks may all have ended just before the end edge: read late */
	if (busy && next_edge < 2)
		busy->known = false;
	for (int i = 0; i < count; i++)
		if (atomic_load(&shm->task[i].state) != TASK_DONE && !shm->task[i].config.may_be_killed) {
			snprintf(why, why_len, "task %s ended without finishing its window%s%s", shm->task[i].config.name,
				 shm->task[i].error_msg[0] ? ": " : "", shm->task[i].error_msg);
			return WINDOW_TASK_FAILED;
		}
	return WINDOW_OK;
}
