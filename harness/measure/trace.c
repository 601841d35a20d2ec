// SPDX-License-Identifier: GPL-2.0-only
/* Tracing per run: tracefs found or mounted (a marker names the run), armed per window with a hog or RT
 * task on the measured CPU; stale ones go. */
#include "trace.h"
#include "trace_blocked.h"
#include "trace_others.h"
#include "json_util.h"
#include "pseudo_fs.h"
#include "sysinfo.h"
#include "ipi_late.h"
#include "tick_late.h"
#include "timer_late.h"
#include "trace_uncharged.h"
#include "trace_backend.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACEFS_DIR "/sys/kernel/tracing"
#define TRACEFS_DEBUGFS_DIR "/sys/kernel/debug/tracing"	/* where older setups have it */
#define MOUNT_MARKER "tracefs-mounted"	/* in the state folder: "<pid> <dir>" of the run that mounted */
#define TRACE_CPUS_MAX 64
/*
 * Buffer per traced CPU: a 1 kHz probe switches 2000 times a second (in and out), kernel threads
 * add a few hundred; 5000 a second leaves room. A sched_switch record is 64 bytes, 80 with its
 * header and the page headers. Two seconds more cover the setup before the window and the reap.
 */
#define SWITCHES_PER_S 5000
#define EVENT_BYTES 80
#define BUFFER_KB_MAX (64 * 1024)
#define PF_KTHREAD 0x00200000u
#define RT_TIMERS_MAX 8		/* RT period timers told apart: the root's and cgroups' */
#define FIRINGS_MAX 1024	/* per timer: a 10 ms period over a 10 s window */

struct trace_session {
	struct recorder *rec;
	char reason[320];	/* why nothing is recorded; empty when recording */
	char dir[PATH_MAX], name[48];
	struct pseudo_fs fs;	/* tracefs, mounted by this session or found */
	int cpus[TRACE_CPUS_MAX], ncpus;
	size_t buffer_kb;
	bool armed, tried;	/* recording this case; asked to (an RT task on the measured CPU) */
	int measured_cpu;	/* the case's measured CPU */
	char arm_error[320];	/* why this case's recording failed */
};

/* Where tracefs is mounted, or mounts it at TRACEFS_DIR (remembered in a marker first). */
static bool find_or_mount(struct trace_session *t)
{
	const char *dir = sysinfo_mounted_at(TRACEFS_DEBUGFS_DIR, "tracefs") && !sysinfo_mounted_at(TRACEFS_DIR, "tracefs")
				  ? TRACEFS_DEBUGFS_DIR : TRACEFS_DIR;

	if (!pseudo_fs_mount(&t->fs, "tracefs", dir, MOUNT_MARKER, t->reason, sizeof(t->reason)))
		return false;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	return true;
}

struct trace_session *trace_open(bool wanted, const int *cpus, int ncpus)
{
	static struct trace_session session;
	struct trace_session *t = &session;

	memset(t, 0, sizeof(*t));
	t->ncpus = ncpus < TRACE_CPUS_MAX ? ncpus : TRACE_CPUS_MAX;
	memcpy(t->cpus, cpus, sizeof(int) * (size_t)t->ncpus);
	if (!wanted) {
		snprintf(t->reason, sizeof(t->reason), "--no-trace");
		return t;
	}
	if (!recorder_built_in(t->reason, sizeof(t->reason)) || !find_or_mount(t))
		return t;
	snprintf(t->name, sizeof(t->name), "rtthrottle-%d", (int)getpid());
	t->rec = recorder_open(t->dir, t->name, t->cpus, t->ncpus, t->reason, sizeof(t->reason));
	if (!t->rec)
		pseudo_fs_unmount(&t->fs);
	return t;
}

void trace_close(struct trace_session *t)
{
	if (!t)
		return;
	recorder_close(t->rec);
	t->rec = NULL;
	pseudo_fs_unmount(&t->fs);
}

/* A task of the RT classes, whose throttling the witnesses (RT timer, tick, wake-ups) bear on. */
static bool realtime_task(const struct task_config *task)
{
	return task->sched_policy == SCHED_FIFO || task->sched_policy == SCHED_RR ||
	       task->sched_policy == SCHED_DEADLINE;
}

int trace_arm(struct trace_session *t, const struct task_config *tasks, int count, int cpu, double window_s)
{
	int hog = -1, periodic = -1, followed;
	bool realtime = false;
	size_t kb;

	t->armed = t->tried = false;
	t->arm_error[0] = '\0';
	t->measured_cpu = cpu;
	for (int i = 0; i < count; i++) {
		if (tasks[i].cpu != cpu)
			continue;
		if (hog < 0 && (tasks[i].role == ROLE_HOG || tasks[i].role == ROLE_BURST_HOG))
			hog = i;
		if (periodic < 0 && tasks[i].role == ROLE_PERIODIC && realtime_task(&tasks[i]))
			periodic = i;
		realtime |= realtime_task(&tasks[i]);
	}
	followed = hog >= 0 ? hog : periodic;
	if ((hog < 0 && !realtime) || !t->rec)
		return followed;
	t->tried = true;
	kb = (size_t)((window_s + 2) * SWITCHES_PER_S * EVENT_BYTES / 1024);
	if (kb > BUFFER_KB_MAX)
		kb = BUFFER_KB_MAX;
	if (kb > t->buffer_kb)
		t->buffer_kb = kb;
	t->armed = recorder_start(t->rec, t->cpus, t->ncpus, t->buffer_kb, t->arm_error, sizeof(t->arm_error));
	return followed;
}

void trace_window_end(struct trace_session *t)
{
	if (t && t->armed)
		recorder_stop(t->rec);
}

/* The recorded events, with what kind of task each switch-in is. */
struct collected {
	struct trace_switch *ev;
	size_t count, cap;
	bool oom;
	struct rt_timer_firings {
		uint64_t hrtimer;
		int count;
		uint64_t at[FIRINGS_MAX];
	} timers[RT_TIMERS_MAX];
	int timer_count;
	struct tick_late tick;	/* the measured CPU's tick */
	int tick_cpu;		/* -1: not witnessed (a nohz_full CPU may stop its tick while busy) */
	bool tick_seen;
	/* Wake-up interrupts to the measured CPU by kind: sent (from any CPU), taken (on it). */
	struct times {
		uint64_t *at;
		int count, cap;
	} ipi_sent[IPI_KINDS], ipi_taken[IPI_KINDS], woken;	/* woken: the followed task made runnable */
	int followed_pid;
	bool ipi_traced;
	uint64_t first_timer_irq_ns;	/* the measured CPU's first timer interrupt from the window's start; 0: none */
	struct idle_span *idle;	/* when the measured CPU ran its idle task */
	int idle_count;
	int measured_cpu;
	const struct window_shm *shm;
	struct seen_pid {
		int pid;
		enum trace_kind kind;
	} seen[256];
	int seen_count;
};

/* Kernel threads by the kernel's own flag (PF_KTHREAD in /proc/PID/stat); gone: not one. */
static bool is_kthread(int pid)
{
	char path[64], buf[1024], *after;
	unsigned long flags = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!read_text_file(path, buf, sizeof(buf)) || !(after = strrchr(buf, ')')))
		return false;
	/* After "pid (comm)": state ppid pgrp session tty_nr tpgid flags. */
	if (sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

static enum trace_kind classify(struct collected *c, const struct trace_switch *ev)
{
	enum trace_kind kind;

	if (ev->next_pid == 0)
		return TRACE_IDLE;
	for (int i = 0; i < c->seen_count; i++)
		if (c->seen[i].pid == ev->next_pid)
			return c->seen[i].kind;
	kind = is_kthread(ev->next_pid) ? TRACE_KTHREAD : ev->next_prio < 100 ? TRACE_RT : TRACE_CFS;
	if (c->seen_count < (int)(sizeof(c->seen) / sizeof(c->seen[0])))
		c->seen[c->seen_count++] = (struct seen_pid){ ev->next_pid, kind };
	return kind;
}

static void collect_firing(struct collected *c, const struct trace_switch *ev)
{
	struct rt_timer_firings *f = NULL;

	for (int i = 0; i < c->timer_count && !f; i++)
		if (c->timers[i].hrtimer == ev->hrtimer)
			f = &c->timers[i];
	if (!f && c->timer_count < RT_TIMERS_MAX) {
		f = &c->timers[c->timer_count++];
		f->hrtimer = ev->hrtimer;
	}
	if (f && f->count < FIRINGS_MAX)
		f->at[f->count++] = ev->ts_ns;
}

static void add_time(struct collected *c, struct times *t, uint64_t at)
{
	if (t->count == t->cap) {
		int bigger = t->cap ? t->cap * 2 : 1024;
		uint64_t *p = realloc(t->at, (size_t)bigger * sizeof(*p));

		if (!p) {
			c->oom = true;
			return;
		}
		t->at = p;
		t->cap = bigger;
	}
	t->at[t->count++] = at;
}

static void collect(void *ctx, const struct trace_switch *ev)
{
	struct collected *c = ctx;
	struct trace_switch *e;

	if (ev->woken) {
		if (ev->woken_pid == c->followed_pid && c->followed_pid > 0)
			add_time(c, &c->woken, ev->ts_ns);
		return;
	}
	if (ev->ipi_sent || ev->ipi_taken) {
		c->ipi_traced = true;
		if (ev->ipi_sent && ev->ipi_target == c->measured_cpu)
			add_time(c, &c->ipi_sent[ev->ipi_kind], ev->ts_ns);
		else if (ev->ipi_taken && ev->cpu == c->measured_cpu)
			add_time(c, &c->ipi_taken[ev->ipi_kind], ev->ts_ns);
		return;
	}
	if (ev->rt_timer) {
		collect_firing(c, ev);
		return;
	}
	if ((ev->tick || ev->wake_timer) && ev->cpu == c->measured_cpu && ev->ts_ns >= c->shm->start_ns &&
	    (!c->first_timer_irq_ns || ev->ts_ns < c->first_timer_irq_ns))
		c->first_timer_irq_ns = ev->ts_ns;
	if (ev->wake_timer)
		return;
	if (ev->tick) {
		if (ev->cpu == c->tick_cpu) {
			tick_late_firing(&c->tick, ev->ts_ns);
			c->tick_seen = true;
		}
		return;
	}
	if (ev->cpu == c->tick_cpu) {
		tick_late_switch(&c->tick, ev->next_pid == 0);
		tick_late_follow(&c->tick, c->followed_pid > 0 && ev->next_pid == c->followed_pid);
	}
	if (c->oom)
		return;
	if (c->count == c->cap) {
		size_t bigger = c->cap ? c->cap * 2 : 4096;
		struct trace_switch *p = realloc(c->ev, bigger * sizeof(*p));

		if (!p) {
			c->oom = true;
			return;
		}
		c->ev = p;
		c->cap = bigger;
	}
	e = &c->ev[c->count++];
	*e = *ev;
	e->next_kind = classify(c, ev);
	for (int i = 0; i < c->shm->task_count; i++)
		if (c->shm->task[i].pid == ev->next_pid)
			snprintf(e->next_task, sizeof(e->next_task), "%s", c->shm->task[i].config.name);
}

static int earlier(const void *a, const void *b)
{
	const struct trace_switch *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
	return (x > y) - (x < y);	/* qsort is not stable: keep the per-CPU order of equal times */
}

static int earlier_ns(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The `rt_timer` block: the RT period timers' firings from the window start to the trace's
 * end (a throttled task leaves only when a firing lets it), and the latest one the machine
 * delivered late beside on-time ones (timer_late.h).
 */
static json_object *rt_timer_json(struct collected *c, const struct window_shm *shm, uint64_t period_ns,
				  uint64_t on_grid_ns)
{
	json_object *obj = json_object_new_object(), *fired = json_object_new_array();
	struct timer_late worst = { 0 };
	int firings = 0, late = 0;

	for (int i = 0; i < c->timer_count; i++) {
		struct rt_timer_firings *f = &c->timers[i];
		json_object *at = json_object_new_array();
		struct timer_late t;

		qsort(f->at, (size_t)f->count, sizeof(f->at[0]), earlier_ns);
		for (int k = 0; k < f->count; k++)
			json_object_array_add(at, json_object_new_double(((double)f->at[k] - (double)shm->start_ns) / 1e6));
		json_object_array_add(fired, at);
		timer_late_measure(f->at, f->count, period_ns, on_grid_ns, shm->start_ns, UINT64_MAX, &t);
		firings += t.firings;
		late += t.late_firings;
		if (t.late_max_ns > worst.late_max_ns) {
			worst.late_max_ns = t.late_max_ns;
			worst.late_at_ns = t.late_at_ns;
		}
		if (t.unexcused_max_ns > worst.unexcused_max_ns)
			worst.unexcused_max_ns = t.unexcused_max_ns;
	}
	json_add_int(obj, "timers", c->timer_count);
	json_add_int(obj, "firings", firings);
	json_add_double(obj, "on_grid_us", on_grid_ns / 1e3);
	json_add_int(obj, "late_firings", late);
	json_add_double(obj, "late_max_us", worst.late_max_ns / 1e3);
	if (worst.late_max_ns)
		json_add_double(obj, "late_at_ms", ((double)worst.late_at_ns - (double)shm->start_ns) / 1e6);
	json_add_double(obj, "late_not_excused_us", worst.unexcused_max_ns / 1e3);
	/* Each timer's firings (ms from the window start; before it they only lay the grid). */
	json_object_object_add(obj, "fired_at_ms", fired);
	return obj;
}

/* The `tick` block: the measured CPU's tick firings in the window and its longest gap while busy. */
static json_object *tick_json(const struct collected *c, const struct window_shm *shm, const char *source)
{
	json_object *obj = json_object_new_object();

	json_add_int(obj, "cpu", c->tick_cpu);
	json_add_str(obj, "source", source ? source : "unknown");
	json_add_int(obj, "firings", c->tick.firings);
	json_add_int(obj, "busy_gaps", c->tick.busy_gaps);
	json_add_double(obj, "late_max_us", c->tick.late_max_ns / 1e3);
	if (c->tick.late_max_ns)
		json_add_double(obj, "late_at_ms", ((double)c->tick.late_at_ns - (double)shm->start_ns) / 1e6);
	/* Each gap held back 0.5 ms or more: [ms from the window start of the firing that ended it, us late]. */
	if (c->tick.busy_gaps) {
		json_object *late = json_object_new_array();

		for (int i = 0; i < c->tick.listed; i++) {
			json_object *pair = json_object_new_array();

			json_object_array_add(pair, json_object_new_double(
							    ((double)c->tick.list[i].at_ns - (double)shm->start_ns) / 1e6));
			json_object_array_add(pair, json_object_new_double(c->tick.list[i].late_ns / 1e3));
			json_object_array_add(late, pair);
		}
		json_object_object_add(obj, "late", late);
		json_add_double(obj, "late_listed_from_us", TICK_LATE_LISTED_NS / 1e3);
		if (c->tick.list_full)
			json_add_bool(obj, "late_list_full", true);
	}
	/* Only the tick's own handler counts ticks: every timer interrupt would count other hrtimers too. */
	if (c->followed_pid > 0 && source && strcmp(source, "irq_vectors:local_timer_entry"))
		json_add_int(obj, "task_firings", c->tick.followed_firings);
	return obj;
}

static void free_ipi_times(struct collected *c)
{
	for (int k = 0; k < IPI_KINDS; k++) {
		free(c->ipi_sent[k].at);
		free(c->ipi_taken[k].at);
	}
	free(c->woken.at);
	free(c->idle);
}

/*
 * When the measured CPU idled, from its switches in time order: a span opens at a switch to
 * the idle task and closes at the switch from it; idle before its first switch when that one
 * leaves the idle task; still open at the end: to UINT64_MAX. False when out of memory.
 */
static bool collect_idle_spans(struct collected *c)
{
	bool idle = false, first = true;
	uint64_t since = 0;

	c->idle = malloc((c->count + 1) * sizeof(*c->idle));
	if (!c->idle)
		return false;
	for (size_t i = 0; i < c->count; i++) {
		const struct trace_switch *ev = &c->ev[i];

		if (ev->cpu != c->measured_cpu)
			continue;
		if (first && ev->prev_pid == 0)
			idle = true;
		first = false;
		if (idle && ev->prev_pid == 0 && ev->next_pid != 0) {
			c->idle[c->idle_count++] = (struct idle_span){ since, ev->ts_ns };
			idle = false;
		} else if (!idle && ev->next_pid == 0) {
			since = ev->ts_ns;
			idle = true;
		}
	}
	if (idle)
		c->idle[c->idle_count++] = (struct idle_span){ since, UINT64_MAX };
	return true;
}

/*
 * Until the window's RT tasks left their class: one the throttle holds at the end runs again
 * only when the period timer's firing lifts it and the wake-up that firing sends reaches its
 * idle CPU. Its latency counts that wait, so the witnesses of the machine cover it too.
 */
static uint64_t rt_tasks_left_ns(const struct window_shm *shm)
{
	uint64_t to = shm->end_ns;

	for (int i = 0; i < shm->task_count; i++)
		if (task_config_is_rt(&shm->task[i].config) && shm->task[i].left_rt_ns > to)
			to = shm->task[i].left_rt_ns;
	return to;
}

/* The CFS spinner (role victim) on the measured CPU, -1 when none. */
static int measured_victim(const struct window_shm *shm, int cpu)
{
	for (int i = 0; i < shm->task_count; i++)
		if (shm->task[i].config.role == ROLE_VICTIM && shm->task[i].config.cpu == cpu && shm->task[i].pid > 0)
			return i;
	return -1;
}

/*
 * How long the measured CPU went on idling after the window's start, when a spinner there was
 * due to wake then (its timer set for start_ns) and it idled at that moment; 0 when it ran a task.
 */
static uint64_t idle_after_start_ns(const struct collected *c, const struct window_shm *shm)
{
	bool spinner_due = false;
	const struct idle_span *span;

	/* Spinners start at the window's start (or before it): other roles may start later on purpose. */
	for (int i = 0; i < shm->task_count; i++)
		spinner_due |= shm->task[i].config.cpu == c->measured_cpu &&
			       (shm->task[i].config.role == ROLE_HOG || shm->task[i].config.role == ROLE_VICTIM);
	span = spinner_due ? idle_span_at(c->idle, c->idle_count, shm->start_ns) : NULL;
	return span && span->to_ns != UINT64_MAX ? span->to_ns - shm->start_ns : 0;
}

/*
 * Of that idle time (idle), the part the machine owes: until the CPU's first timer interrupt from the
 * window's start, which expired the spinners' timers (a late interrupt to an idle vCPU is the
 * hypervisor's). The time from it to a task on the CPU is the scheduler's and not excused.
 */
static uint64_t idle_at_start_ns(const struct collected *c, const struct window_shm *shm, uint64_t idle)
{
	return idle ? timer_irq_late_ns(shm->start_ns, shm->start_ns + idle, c->first_timer_irq_ns) : 0;
}

/*
 * The `ipi` block: wake-up interrupts to the measured CPU from the window's start until its RT
 * tasks left their class; those sent while it idled timed, and the latest delivered.
 */
static json_object *ipi_json(struct collected *c, const struct window_shm *shm)
{
	json_object *obj = json_object_new_object();
	struct ipi_late late = { 0 };
	uint64_t to_ns = rt_tasks_left_ns(shm);

	for (int k = 0; k < IPI_KINDS; k++) {
		struct times *sent = &c->ipi_sent[k], *taken = &c->ipi_taken[k];
		struct ipi_late kind;

		qsort(sent->at, (size_t)sent->count, sizeof(uint64_t), earlier_ns);
		qsort(taken->at, (size_t)taken->count, sizeof(uint64_t), earlier_ns);
		ipi_late_measure(sent->at, sent->count, taken->at, taken->count, c->idle, c->idle_count, shm->start_ns,
				 to_ns, &kind);
		ipi_late_add(&late, &kind);
	}
	json_add_int(obj, "cpu", c->measured_cpu);
	json_add_double(obj, "to_ms", ((double)to_ns - (double)shm->start_ns) / 1e6);
	json_add_int(obj, "sent", late.sent);
	json_add_int(obj, "sent_to_busy", late.to_busy);
	json_add_int(obj, "delivered", late.delivered);
	json_add_int(obj, "undelivered", late.undelivered);
	json_add_double(obj, "late_max_us", late.late_max_ns / 1e3);
	if (late.late_max_ns)
		json_add_double(obj, "late_at_ms", ((double)late.late_at_ns - (double)shm->start_ns) / 1e6);
	return obj;
}

/* Whether cpu is in /sys/devices/system/cpu/nohz_full: its tick may stop while a task runs. */
static bool cpu_is_nohz_full(int cpu)
{
	char text[256];

	return read_text_file("/sys/devices/system/cpu/nohz_full", text, sizeof(text)) && cpu_in_list(text, cpu);
}

static json_object *skipped(const char *reason)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "status", "skipped");
	json_add_str(obj, "reason", reason);
	return obj;
}

json_object *trace_case_json(struct trace_session *t, const struct window_shm *shm, int followed,
			     double throttle_threshold_us, uint64_t period_ns, uint64_t tick_ns)
{
	static struct collected c;	/* the firings make it large */
	json_object *timer;
	struct trace_input in = {
		.task_pid = followed >= 0 ? shm->task[followed].pid : -1, .cpu = t->measured_cpu,
		.start_ns = shm->start_ns, .end_ns = shm->end_ns, .throttle_threshold_us = throttle_threshold_us,
	};
	struct trace_summary sum;
	struct trace_gap *gaps = NULL;
	json_object *obj, *cpus, *others = NULL, *listed;
	uint64_t lost = 0, idle;
	char why[320];
	const char *not_followed = "no hog or periodic RT task on the measured CPU: the RT timer, tick and wake-up "
				   "witnesses only";
	size_t n;

	if (!t->rec)
		return skipped(t->reason);
	if (!t->tried)
		return skipped("no hog or realtime task on the measured CPU");
	if (!t->armed)
		return skipped(t->arm_error);
	t->armed = false;
	memset(&c, 0, sizeof(c));
	/* A periodic task's waits begin at its wake-ups: without them its gaps would be half seen. */
	if (followed >= 0 && shm->task[followed].config.role == ROLE_PERIODIC && !recorder_wakeups_traced(t->rec)) {
		not_followed = "sched:sched_wakeup not recorded: the periodic RT task's waits after its sleeps are not seen";
		followed = -1;
		in.task_pid = -1;
	}
	c.shm = shm;
	c.measured_cpu = in.cpu;
	c.followed_pid = in.task_pid;
	c.tick_cpu = cpu_is_nohz_full(in.cpu) ? -1 : in.cpu;
	tick_late_init(&c.tick, tick_ns, shm->start_ns, shm->end_ns);
	if (!recorder_read(t->rec, t->cpus, t->ncpus, collect, &c, &lost, why, sizeof(why)) || c.oom) {
		free(c.ev);
		free_ipi_times(&c);
		return skipped(c.oom ? "out of memory reading the trace" : why);
	}
	/* libtracefs hands the events CPU by CPU: one timeline for the analysis. */
	qsort(c.ev, c.count, sizeof(c.ev[0]), earlier);
	qsort(c.woken.at, (size_t)c.woken.count, sizeof(uint64_t), earlier_ns);
	in.ev = c.ev;
	in.count = c.count;
	in.woken_ns = c.woken.at;
	in.woken_count = (size_t)c.woken.count;
	/* Without a task to follow there are no gaps to find: the witnesses only. */
	n = followed >= 0 ? trace_gaps_find(&in, &gaps, &sum) : 0;
	if (n != (size_t)-1 && !collect_idle_spans(&c)) {
		free(gaps);
		n = (size_t)-1;
	}
	/* Every switch seen on the measured CPU: who else ran there, and when; where the CFS spinner slept. */
	if (n != (size_t)-1 && !lost) {
		int victim = measured_victim(shm, in.cpu);

		others = json_object_new_object();
		trace_others_to_json(others, &in);
		if (victim >= 0)
			trace_blocked_to_json(others, &in, shm->task[victim].pid, shm->task[victim].config.name);
	}
	free(c.ev);
	if (n == (size_t)-1) {
		free_ipi_times(&c);
		return skipped("out of memory analysing the trace");
	}
	timer = c.timer_count ? rt_timer_json(&c, shm, period_ns, tick_ns) : NULL;
	obj = json_object_new_object();
	cpus = json_object_new_array();
	for (int i = 0; i < t->ncpus; i++)
		json_object_array_add(cpus, json_object_new_int(t->cpus[i]));
	json_add_str(obj, "status", "recorded");
	json_add_str(obj, "tracing_dir", t->dir);
	json_add_str(obj, "instance", t->name);
	json_object_object_add(obj, "cpus", cpus);
	json_add_int64(obj, "buffer_kb", (int64_t)t->buffer_kb);
	json_add_int64(obj, "events_lost", (int64_t)lost);
	if (followed >= 0) {
		json_add_str(obj, "task", shm->task[followed].config.name);
		json_add_int(obj, "pid", in.task_pid);
		json_add_bool(obj, "wakeups_traced", recorder_wakeups_traced(t->rec));
		trace_gaps_to_json(obj, &in, gaps, n, &sum);
		/* Every time off the CPU is a gap only for a task that never sleeps, and only if all were seen. */
		if (shm->task[followed].config.role == ROLE_HOG && sum.task_seen && !lost && !sum.unresolved)
			trace_uncharged_to_json(obj, &in, gaps, n, &shm->task[followed], period_ns);
	} else {
		json_add_str(obj, "gaps_not_analysed", not_followed);
	}
	idle = idle_after_start_ns(&c, shm);
	json_add_double(obj, "idle_after_start_us", idle / 1e3);
	/* Left out when no witness times the wake-up interrupt: nothing is excused then. */
	if (recorder_wake_timer_traced(t->rec))
		json_add_double(obj, "idle_at_start_us", idle_at_start_ns(&c, shm, idle) / 1e3);
	if (timer)
		json_object_object_add(obj, "rt_timer", timer);
	if (others && json_object_object_get_ex(others, "others", &listed))
		json_object_object_add(obj, "others", json_object_get(listed));
	if (others && json_object_object_get_ex(others, "cfs_blocked", &listed))
		json_object_object_add(obj, "cfs_blocked", json_object_get(listed));
	json_object_put(others);
	if (c.tick_seen)
		json_object_object_add(obj, "tick", tick_json(&c, shm, recorder_tick_source(t->rec)));
	/* Traced and none sent (the period timer fired on the measured CPU) is a measurement too. */
	if (c.ipi_traced || recorder_ipi_traced(t->rec))
		json_object_object_add(obj, "ipi", ipi_json(&c, shm));
	free_ipi_times(&c);
	free(gaps);
	return obj;
}

static void remove_stale_instances(const char *dir, pid_t dead)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid;
		char rest;

		if (sscanf(e->d_name, "rtthrottle-%d%c", &pid, &rest) != 1 || !pseudo_fs_owner_gone(pid, dead))
			continue;
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
			rtt_err("removed tracefs instance %s/%s, left by a run that died", path, e->d_name);
	}
	closedir(d);
}

void trace_remove_stale(pid_t dead)
{
	remove_stale_instances(TRACEFS_DIR, dead);
	remove_stale_instances(TRACEFS_DEBUGFS_DIR, dead);
	pseudo_fs_remove_stale("tracefs", MOUNT_MARKER, dead);
}
