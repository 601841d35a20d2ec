/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How late the machine delivered reschedule interrupts to a CPU: each one sent to it
 * (ipi:ipi_send_cpu, on the sender's CPU) against the next time it entered the reschedule
 * vector (irq_vectors:reschedule_entry, on its own). A kernel that lifts a throttle late sends
 * late, or not at all; only the delivery is timed, and that is the machine's. Pure.
 */
#ifndef RTT_IPI_LATE_H
#define RTT_IPI_LATE_H

#include <stdint.h>

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

#endif
