/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How late the machine woke an idle CPU: each wake-up interrupt sent to it while it idled
 * (ipi:ipi_send_cpu, on the sender's CPU) against the first sign it took it: its entry into
 * that interrupt's vector, or its leaving idle (sched_switch from the idle task), whichever
 * came first. A kernel that lifts a throttle late sends late, or not at all; only the
 * delivery is timed, and that is the machine's. Pure.
 */
#ifndef RTT_IPI_LATE_H
#define RTT_IPI_LATE_H

#include <stdint.h>

/* Each kind arrives on its own vector: a send is paired only with an arrival of its kind. */
enum ipi_kind {
	IPI_RESCHEDULE,		/* no callback: irq_vectors:reschedule_entry */
	IPI_CALL_FUNCTION,	/* a queued call, e.g. a remote wake-up: call_function_single_entry */
	IPI_KINDS
};

/* The CPU ran its idle task from from_ns until to_ns (UINT64_MAX: to the trace's end). */
struct idle_span {
	uint64_t from_ns, to_ns;
};

/* The span of idle (disjoint, in time order) holding at_ns, or NULL: the CPU ran a task then, or its state is not known. */
const struct idle_span *idle_span_at(const struct idle_span *idle, int n_idle, uint64_t at_ns);

struct ipi_late {
	int sent;		/* sends in [from_ns, to_ns] */
	int to_busy;		/* of them, sent while the CPU ran a task (or its state is not known): not timed */
	int delivered;		/* wake-ups of the idle CPU timed (sends before one delivery are one) */
	int undelivered;	/* sent to the idle CPU, which neither took it nor left idle before the trace ended */
	uint64_t late_max_ns;	/* the longest from a send to its delivery */
	uint64_t late_at_ns;	/* that send */
};

/*
 * sent_ns, entry_ns and idle (disjoint spans): each in time order. A send to a CPU running a
 * task is not timed: the tick's and the stall witnesses see that CPU's delays, and a send
 * there may be acted on without its vector (on PREEMPT_RT a send can go a second and more
 * with no entry, while the CPU switches tasks every few ms). An idle CPU acts on a wake-up
 * when it takes the interrupt, or at the latest when it leaves idle (another interrupt woke
 * it: the idle loop runs queued wake-ups before it schedules). Sends to the idle CPU before
 * one delivery are one interrupt, timed from the first. Sends in [from_ns, to_ns] count.
 */
void ipi_late_measure(const uint64_t *sent_ns, int n_sent, const uint64_t *entry_ns, int n_entry,
		      const struct idle_span *idle, int n_idle, uint64_t from_ns, uint64_t to_ns, struct ipi_late *out);

/* Adds one kind's figures to a total: counts summed, the latest delivery kept. */
void ipi_late_add(struct ipi_late *total, const struct ipi_late *kind);

/*
 * A sleeper's timer due at due_ns on a CPU idle from then until idle_to_ns: how late the
 * machine delivered the timer interrupt, first_irq_ns being the CPU's first one from due_ns
 * (0: none seen). Any hrtimer interrupt runs every expired timer of its CPU, so that one woke
 * the sleeper; what follows it until the CPU left idle is the scheduler's and not counted.
 * 0 when the CPU left idle before any timer interrupt (it was woken otherwise).
 */
uint64_t timer_irq_late_ns(uint64_t due_ns, uint64_t idle_to_ns, uint64_t first_irq_ns);

#endif
