// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sched_switch recorder with libtracefs (instance, mask, clock, buffer) and libtraceevent
 * (fields), with the RT period timer's, the tick's and the sleepers' wake-up timers' firings beside it
 * (timer:hrtimer_expire_entry).
 */
#include "ipi_late.h"
#include "trace_backend.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

struct recorder {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	int switch_id, timer_id;	/* timer_id -1: no timer's firings are recorded */
	int ipi_send_id, resched_id, call_id;	/* -1: wake-up interrupts are not recorded */
	int wakeup_id;	/* sched:sched_wakeup to the traced CPUs; -1: not recorded */
	struct tep_format_field *wakeup_pid;
	struct tep_format_field *ipi_cpu, *ipi_callback;
	struct tep_format_field *prev_pid, *prev_state, *next_pid, *next_prio, *next_comm, *hrtimer, *function;
	unsigned long long rt_timer_fn, tick_fn, wake_fn;	/* the handlers filtered on; 0 when not found */
	int local_timer_id;	/* the tick's stand-in without its handler's address; -1: none */
	const char *tick_source;	/* what the tick events are; NULL: none recorded */
	cpu_set_t switch_cpus;	/* sched_switch and the tick are kept only from these; the RT timer from every CPU */
	uint64_t lost_at_start;
	void (*fn)(void *ctx, const struct trace_switch *ev);
	void *ctx;
};

bool recorder_built_in(char *why, size_t len)
{
	(void)why;
	(void)len;
	return true;
}

static bool fields_found(struct recorder *r)
{
	struct tep_event *ev = tep_find_event_by_name(r->tep, "sched", "sched_switch");

	if (!ev)
		return false;
	r->switch_id = ev->id;
	r->prev_pid = tep_find_field(ev, "prev_pid");
	r->prev_state = tep_find_field(ev, "prev_state");
	r->next_pid = tep_find_field(ev, "next_pid");
	r->next_prio = tep_find_field(ev, "next_prio");
	r->next_comm = tep_find_field(ev, "next_comm");
	return r->prev_pid && r->prev_state && r->next_pid && r->next_prio && r->next_comm;
}

/* Where a kernel function lies (/proc/kallsyms), 0 when hidden or absent. */
static unsigned long long kernel_address(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr = 0, a;
	char type, sym[128], line[512];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 && !strcmp(sym, name)) {
			addr = a;
			break;
		}
	fclose(f);
	return addr;
}

/* Appends "field == c1 || field == c2 ..." for the traced CPUs to f. */
static void cpu_clause(const char *field, const int *cpus, int ncpus, char *f, size_t len)
{
	for (int i = 0; i < ncpus && strlen(f) + 32 < len; i++)
		snprintf(f + strlen(f), len - strlen(f), "%s%s == %d", i ? " || " : "", field, cpus[i]);
}

/* "function == A || function == B ...", with the wake-up timers' clause limited to the traced CPUs. */
static void timer_filter(const struct recorder *r, const int *cpus, int ncpus, bool with_wake, char *f, size_t len)
{
	const unsigned long long fns[] = { r->rt_timer_fn, r->tick_fn };

	f[0] = '\0';
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (fns[i])
			snprintf(f + strlen(f), len - strlen(f), "%sfunction == 0x%llx", f[0] ? " || " : "", fns[i]);
	if (!with_wake || !r->wake_fn || ncpus <= 0)
		return;
	snprintf(f + strlen(f), len - strlen(f), "%s(function == 0x%llx && (", f[0] ? " || " : "", r->wake_fn);
	cpu_clause("CPU", cpus, ncpus, f, len);
	snprintf(f + strlen(f), len - strlen(f), "))");
}

/*
 * The RT period timer fires on the CPU that armed it, which may not be a traced one: the
 * instance records every CPU, and only its firings and the measured CPUs' switches and ticks
 * are kept. The tick's hrtimer handler is tick_sched_timer, tick_nohz_handler from 6.9. A sleeper's
 * wake-up timer (hrtimer_wakeup) is kept from the traced CPUs only (the harness sleeps often
 * elsewhere); a kernel whose filter refuses the CPU field goes on without it. Without an
 * address, or the event, the trace goes on without that timer.
 */
static void enable_timer_event(struct recorder *r, const int *cpus, int ncpus)
{
	struct tep_event *ev;
	char filter[512];

	r->timer_id = -1;
	r->rt_timer_fn = kernel_address("sched_rt_period_timer");
	r->tick_fn = kernel_address("tick_sched_timer");
	r->wake_fn = kernel_address("hrtimer_wakeup");
	r->tick_source = "tick_sched_timer";
	if (!r->tick_fn) {	/* before 6.9 this name is the low-resolution handler, no hrtimer */
		r->tick_fn = kernel_address("tick_nohz_handler");
		r->tick_source = "tick_nohz_handler";
	}
	ev = tep_find_event_by_name(r->tep, "timer", "hrtimer_expire_entry");
	if ((!r->rt_timer_fn && !r->tick_fn && !r->wake_fn) || !ev || !(r->hrtimer = tep_find_field(ev, "hrtimer")) ||
	    !(r->function = tep_find_field(ev, "function")))
		return;
	timer_filter(r, cpus, ncpus, true, filter, sizeof(filter));
	if (tracefs_event_file_write(r->inst, "timer", "hrtimer_expire_entry", "filter", filter) < 0) {
		r->wake_fn = 0;
		timer_filter(r, cpus, ncpus, false, filter, sizeof(filter));
		if (!filter[0] || tracefs_event_file_write(r->inst, "timer", "hrtimer_expire_entry", "filter", filter) < 0)
			return;
	}
	if (tracefs_event_enable(r->inst, "timer", "hrtimer_expire_entry") < 0) {
		tracefs_event_disable(r->inst, "timer", "hrtimer_expire_entry");
		return;
	}
	r->timer_id = ev->id;
}

/*
 * Without the tick handler's address (a kernel built without kallsyms), the measured CPUs' timer
 * interrupts stand in for the tick (x86's irq_vectors:local_timer_entry): the tick is one of the
 * hrtimers each serves, so a busy CPU takes one at least every tick, and their gaps never
 * overstate how late one was.
 */
static void enable_local_timer_event(struct recorder *r)
{
	struct tep_event *ev = tep_find_event_by_name(r->tep, "irq_vectors", "local_timer_entry");

	r->local_timer_id = -1;
	if (r->timer_id >= 0 && r->tick_fn)
		return;
	r->tick_source = NULL;
	if (!ev || tracefs_event_enable(r->inst, "irq_vectors", "local_timer_entry") < 0) {
		tracefs_event_disable(r->inst, "irq_vectors", "local_timer_entry");
		return;
	}
	r->local_timer_id = ev->id;
	r->tick_source = "irq_vectors:local_timer_entry";
}

const char *recorder_tick_source(const struct recorder *r)
{
	return r->tick_source;
}

bool recorder_ipi_traced(const struct recorder *r)
{
	return r->ipi_send_id >= 0;
}

bool recorder_wake_timer_traced(const struct recorder *r)
{
	return (r->timer_id >= 0 && r->wake_fn) || r->local_timer_id >= 0;
}

static void disable_ipi_events(struct recorder *r)
{
	tracefs_event_disable(r->inst, "ipi", "ipi_send_cpu");
	tracefs_event_disable(r->inst, "irq_vectors", "reschedule_entry");
	tracefs_event_disable(r->inst, "irq_vectors", "call_function_single_entry");
}

/*
 * Interrupts that wake the measured CPUs, sent from any CPU (ipi:ipi_send_cpu, since 6.6,
 * filtered on the target) and taken on the measured CPU (x86's irq_vectors). A send without a
 * callback is a reschedule (reschedule_entry); with one, a queued function call, which is how a
 * remote wake-up reaches an idle CPU (call_function_single_entry). Without all three, none is
 * recorded.
 */
static void enable_ipi_events(struct recorder *r, const int *cpus, int ncpus)
{
	struct tep_event *send = tep_find_event_by_name(r->tep, "ipi", "ipi_send_cpu");
	struct tep_event *resched = tep_find_event_by_name(r->tep, "irq_vectors", "reschedule_entry");
	struct tep_event *call = tep_find_event_by_name(r->tep, "irq_vectors", "call_function_single_entry");
	char filter[256] = "";

	r->ipi_send_id = r->resched_id = r->call_id = -1;
	if (!send || !resched || !call || !(r->ipi_cpu = tep_find_field(send, "cpu")) ||
	    !(r->ipi_callback = tep_find_field(send, "callback")))
		return;
	cpu_clause("cpu", cpus, ncpus, filter, sizeof(filter));
	if (!filter[0] || tracefs_event_file_write(r->inst, "ipi", "ipi_send_cpu", "filter", filter) < 0 ||
	    tracefs_event_enable(r->inst, "ipi", "ipi_send_cpu") < 0 ||
	    tracefs_event_enable(r->inst, "irq_vectors", "reschedule_entry") < 0 ||
	    tracefs_event_enable(r->inst, "irq_vectors", "call_function_single_entry") < 0) {
		disable_ipi_events(r);
		return;
	}
	r->ipi_send_id = send->id;
	r->resched_id = resched->id;
	r->call_id = call->id;
}

/*
 * Tasks made runnable on the traced CPUs (sched:sched_wakeup, recorded on the waker's CPU,
 * filtered on the target): a task's wait begins at its wake-up, which no switch shows. Without
 * the event, or a filter the kernel takes, the waits after a sleep are not followed.
 */
static void enable_wakeup_event(struct recorder *r, const int *cpus, int ncpus)
{
	struct tep_event *ev = tep_find_event_by_name(r->tep, "sched", "sched_wakeup");
	char filter[256] = "";

	r->wakeup_id = -1;
	if (!ev || !(r->wakeup_pid = tep_find_field(ev, "pid")) || !tep_find_field(ev, "target_cpu"))
		return;
	cpu_clause("target_cpu", cpus, ncpus, filter, sizeof(filter));
	if (!filter[0] || tracefs_event_file_write(r->inst, "sched", "sched_wakeup", "filter", filter) < 0 ||
	    tracefs_event_enable(r->inst, "sched", "sched_wakeup") < 0) {
		tracefs_event_disable(r->inst, "sched", "sched_wakeup");
		return;
	}
	r->wakeup_id = ev->id;
}

bool recorder_wakeups_traced(const struct recorder *r)
{
	return r->wakeup_id >= 0;
}

struct recorder *recorder_open(const char *tracing_dir, const char *name, const int *cpus, int ncpus, char *why,
			       size_t len)
{
	static const char *const systems[] = { "sched", "timer", "ipi", "irq_vectors", NULL };
	struct recorder *r = calloc(1, sizeof(*r));
	char *dir = strdup(tracing_dir);
	const char *step = "";

	if (!r || !dir) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	/* Pin libtracefs to the folder we checked, so it never mounts one of its own. */
	if (tracefs_set_tracing_dir(dir)) {
		step = "tracefs_set_tracing_dir";
		goto fail_errno;
	}
	r->inst = tracefs_instance_create(name);
	if (!r->inst) {
		step = "creating the instance";
		goto fail_errno;
	}
	/* A new instance traces from the start: off before anything is enabled. */
	if (tracefs_trace_off(r->inst) < 0) {
		step = "tracing_on 0";
		goto fail_errno;
	}
	if (tracefs_instance_file_write(r->inst, "trace_clock", "mono") < 0) {
		step = "trace_clock mono";
		goto fail_errno;
	}
	if (tracefs_instance_set_affinity(r->inst, NULL) < 0) {
		step = "tracing_cpumask";
		goto fail_errno;
	}
	if (tracefs_event_enable(r->inst, "sched", "sched_switch") < 0) {
		step = "enabling sched:sched_switch";
		goto fail_errno;
	}
	r->tep = tracefs_local_events_system(tracing_dir, systems);
	if (!r->tep || !fields_found(r)) {
		snprintf(why, len, "cannot parse the format of sched:sched_switch under %s/events", tracing_dir);
		goto fail;
	}
	enable_timer_event(r, cpus, ncpus);
	enable_local_timer_event(r);
	enable_ipi_events(r, cpus, ncpus);
	enable_wakeup_event(r, cpus, ncpus);
	free(dir);
	return r;
fail_errno:
	snprintf(why, len, "%s in %s/instances/%s: %s", step, tracing_dir, name, strerror(errno ? errno : EIO));
fail:
	free(dir);
	recorder_close(r);
	return NULL;
}

/* Events the kernel overwrote or dropped on the traced CPUs so far. */
static uint64_t lost_events(struct recorder *r, const int *cpus, int ncpus)
{
	uint64_t lost = 0;

	for (int i = 0; i < ncpus; i++) {
		char file[64], *text, *line;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpus[i]);
		text = tracefs_instance_file_read(r->inst, file, NULL);
		for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			uint64_t v;

			if (sscanf(line, "overrun: %" SCNu64, &v) == 1 || sscanf(line, "dropped events: %" SCNu64, &v) == 1)
				lost += v;
		}
		free(text);
	}
	return lost;
}

bool recorder_start(struct recorder *r, const int *cpus, int ncpus, size_t kb, char *why, size_t len)
{
	for (int i = 0; i < ncpus; i++) {
		ssize_t now = tracefs_instance_get_buffer_size(r->inst, cpus[i]);

		if (now < (ssize_t)kb && tracefs_instance_set_buffer_size(r->inst, kb, cpus[i]) < 0) {
			snprintf(why, len, "buffer of %zu KiB on CPU %d: %s", kb, cpus[i], strerror(errno ? errno : ENOMEM));
			return false;
		}
	}
	if (tracefs_instance_file_clear(r->inst, "trace") < 0) {
		snprintf(why, len, "emptying the buffer: %s", strerror(errno ? errno : EIO));
		return false;
	}
	r->lost_at_start = lost_events(r, cpus, ncpus);
	if (tracefs_trace_on(r->inst) < 0) {
		snprintf(why, len, "tracing_on 1: %s", strerror(errno ? errno : EIO));
		return false;
	}
	return true;
}

void recorder_stop(struct recorder *r)
{
	tracefs_trace_off(r->inst);
}

static int on_event(struct tep_event *event, struct tep_record *record, int cpu, void *ctx)
{
	struct recorder *r = ctx;
	struct trace_switch ev = { .ts_ns = record->ts, .cpu = cpu };
	unsigned long long v;

	if (event->id == r->ipi_send_id) {
		if (tep_read_number_field(r->ipi_cpu, record->data, &v))
			return 0;
		ev.ipi_sent = true;
		ev.ipi_target = (int)v;
		if (tep_read_number_field(r->ipi_callback, record->data, &v))
			return 0;
		ev.ipi_kind = v ? IPI_CALL_FUNCTION : IPI_RESCHEDULE;
		r->fn(r->ctx, &ev);
		return 0;
	}
	if (event->id == r->resched_id || event->id == r->call_id) {
		if (cpu < 0 || !CPU_ISSET(cpu, &r->switch_cpus))
			return 0;
		ev.ipi_taken = true;
		ev.ipi_kind = event->id == r->call_id ? IPI_CALL_FUNCTION : IPI_RESCHEDULE;
		r->fn(r->ctx, &ev);
		return 0;
	}
	if (event->id == r->wakeup_id) {
		if (tep_read_number_field(r->wakeup_pid, record->data, &v))
			return 0;
		ev.woken = true;
		ev.woken_pid = (int)v;
		r->fn(r->ctx, &ev);
		return 0;
	}
	if (event->id == r->local_timer_id) {
		if (cpu < 0 || !CPU_ISSET(cpu, &r->switch_cpus))
			return 0;
		ev.tick = true;
		r->fn(r->ctx, &ev);
		return 0;
	}
	if (event->id == r->timer_id) {
		if (tep_read_number_field(r->function, record->data, &v))
			return 0;
		ev.rt_timer = r->rt_timer_fn && v == r->rt_timer_fn;
		ev.tick = r->tick_fn && v == r->tick_fn && cpu >= 0 && CPU_ISSET(cpu, &r->switch_cpus);
		ev.wake_timer = r->wake_fn && v == r->wake_fn && cpu >= 0 && CPU_ISSET(cpu, &r->switch_cpus);
		if (!ev.rt_timer && !ev.tick && !ev.wake_timer)
			return 0;
		if (!tep_read_number_field(r->hrtimer, record->data, &v))
			ev.hrtimer = v;
		r->fn(r->ctx, &ev);
		return 0;
	}
	if (event->id != r->switch_id || cpu < 0 || !CPU_ISSET(cpu, &r->switch_cpus))
		return 0;
	if (!tep_read_number_field(r->prev_pid, record->data, &v))
		ev.prev_pid = (int)v;
	if (!tep_read_number_field(r->prev_state, record->data, &v))
		ev.prev_state = (int64_t)v;
	if (!tep_read_number_field(r->next_pid, record->data, &v))
		ev.next_pid = (int)v;
	if (!tep_read_number_field(r->next_prio, record->data, &v))
		ev.next_prio = (int)v;
	if (r->next_comm->offset + r->next_comm->size <= record->size) {
		size_t n = (size_t)r->next_comm->size < sizeof(ev.next_comm) - 1 ? (size_t)r->next_comm->size
										: sizeof(ev.next_comm) - 1;

		memcpy(ev.next_comm, (const char *)record->data + r->next_comm->offset, n);
	}
	r->fn(r->ctx, &ev);
	return 0;
}

bool recorder_read(struct recorder *r, const int *cpus, int ncpus,
		   void (*fn)(void *ctx, const struct trace_switch *ev), void *ctx, uint64_t *lost, char *why, size_t len)
{
	uint64_t now;

	CPU_ZERO(&r->switch_cpus);
	for (int i = 0; i < ncpus; i++)
		CPU_SET(cpus[i], &r->switch_cpus);
	r->fn = fn;
	r->ctx = ctx;
	if (tracefs_iterate_raw_events(r->tep, r->inst, NULL, 0, on_event, r) < 0) {
		snprintf(why, len, "reading the trace buffer: %s", strerror(errno ? errno : EIO));
		return false;
	}
	now = lost_events(r, cpus, ncpus);
	*lost = now > r->lost_at_start ? now - r->lost_at_start : 0;
	return true;
}

void recorder_close(struct recorder *r)
{
	if (!r)
		return;
	if (r->inst) {
		tracefs_trace_off(r->inst);
		tracefs_event_disable(r->inst, "sched", "sched_switch");
		tracefs_event_disable(r->inst, "timer", "hrtimer_expire_entry");
		disable_ipi_events(r);
		tracefs_event_disable(r->inst, "irq_vectors", "local_timer_entry");
		tracefs_event_disable(r->inst, "sched", "sched_wakeup");
		if (tracefs_instance_destroy(r->inst) < 0)
			rtt_warn("cannot remove tracefs instance %s: %s",
				 tracefs_instance_get_name(r->inst), strerror(errno));
		tracefs_instance_free(r->inst);
	}
	if (r->tep)
		tep_free(r->tep);
	free(r);
}
