// SPDX-License-Identifier: GPL-2.0-only
/* Reschedule interrupts to a CPU: from each send to its arrival. */
#include "ipi_late.h"

#include <string.h>

void ipi_late_measure(const uint64_t *sent_ns, int n_sent, const uint64_t *entry_ns, int n_entry, uint64_t from_ns,
		      uint64_t to_ns, struct ipi_late *out)
{
	int s = 0;

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < n_sent; k++)
		out->sent += sent_ns[k] >= from_ns && sent_ns[k] <= to_ns;
	for (int e = 0; e < n_entry && s < n_sent; e++) {
		uint64_t first;

		if (sent_ns[s] > entry_ns[e])
			continue;	/* no send pending: not a wake-up this times */
		first = sent_ns[s];
		while (s < n_sent && sent_ns[s] <= entry_ns[e])
			s++;
		if (first < from_ns || first > to_ns)
			continue;
		out->delivered++;
		if (entry_ns[e] - first > out->late_max_ns) {
			out->late_max_ns = entry_ns[e] - first;
			out->late_at_ns = first;
		}
	}
}

void ipi_late_add(struct ipi_late *total, const struct ipi_late *kind)
{
	total->sent += kind->sent;
	total->delivered += kind->delivered;
	if (kind->late_max_ns > total->late_max_ns) {
		total->late_max_ns = kind->late_max_ns;
		total->late_at_ns = kind->late_at_ns;
	}
}
