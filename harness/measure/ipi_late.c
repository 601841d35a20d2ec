// SPDX-License-Identifier: GPL-2.0-only
/* Wake-up interrupts to an idle CPU: from each send to its delivery. */
#include "ipi_late.h"

#include <stdbool.h>
#include <string.h>

const struct idle_span *idle_span_at(const struct idle_span *idle, int n_idle, uint64_t at_ns)
{
	int lo = 0, hi = n_idle;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (idle[mid].to_ns <= at_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n_idle && idle[lo].from_ns <= at_ns ? &idle[lo] : NULL;
}

void ipi_late_measure(const uint64_t *sent_ns, int n_sent, const uint64_t *entry_ns, int n_entry,
		      const struct idle_span *idle, int n_idle, uint64_t from_ns, uint64_t to_ns, struct ipi_late *out)
{
	uint64_t last_delivery = 0;
	bool timed_one = false;
	int e = 0;

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < n_sent; k++) {
		uint64_t at = sent_ns[k], delivery;
		const struct idle_span *span;

		if (at < from_ns || at > to_ns)
			continue;
		out->sent++;
		if (timed_one && at <= last_delivery)
			continue;	/* the interrupt a send before it is already timed for */
		span = idle_span_at(idle, n_idle, at);
		if (!span) {
			out->to_busy++;
			continue;
		}
		while (e < n_entry && entry_ns[e] < at)
			e++;
		delivery = e < n_entry && entry_ns[e] < span->to_ns ? entry_ns[e] : span->to_ns;
		if (delivery == UINT64_MAX) {
			out->undelivered++;
			continue;
		}
		timed_one = true;
		last_delivery = delivery;
		out->delivered++;
		if (delivery - at > out->late_max_ns) {
			out->late_max_ns = delivery - at;
			out->late_at_ns = at;
		}
	}
}

void ipi_late_add(struct ipi_late *total, const struct ipi_late *kind)
{
	total->sent += kind->sent;
	total->to_busy += kind->to_busy;
	total->delivered += kind->delivered;
	total->undelivered += kind->undelivered;
	if (kind->late_max_ns > total->late_max_ns) {
		total->late_max_ns = kind->late_max_ns;
		total->late_at_ns = kind->late_at_ns;
	}
}

uint64_t timer_irq_late_ns(uint64_t due_ns, uint64_t idle_to_ns, uint64_t first_irq_ns)
{
	if (first_irq_ns < due_ns || idle_to_ns <= due_ns || first_irq_ns > idle_to_ns)
		return 0;
	return first_irq_ns - due_ns;
}
