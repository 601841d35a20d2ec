/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How late the machine delivered wake-up interrupts to a CPU: each one sent to it
 * (ipi:ipi_send_cpu, on the sender's CPU) against the next time it entered that interrupt's
 * vector (on its own). A kernel that lifts a throttle late sends late, or not at all; only the
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

struct ipi_late {
	int sent, delivered;	/* sends, and arrivals that followed a send, in the window */
	uint64_t late_max_ns;	/* the longest from a send to the arrival that took it */
	uint64_t late_at_ns;	/* that send */
};

/*
 * sent_ns and entry_ns: in time order each. Sends before one arrival are one interrupt (the
 * kernel sends again while one is pending); its lateness is from the first of them. An
 * arrival with no send before it (another vector's wake-up, the tick) times nothing. Sends in
 * [from_ns, to_ns] count.
 */
void ipi_late_measure(const uint64_t *sent_ns, int n_sent, const uint64_t *entry_ns, int n_entry, uint64_t from_ns,
		      uint64_t to_ns, struct ipi_late *out);

/* Adds one kind's figures to a total: counts summed, the latest delivery kept. */
void ipi_late_add(struct ipi_late *total, const struct ipi_late *kind);

#endif
