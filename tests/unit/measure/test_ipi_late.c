// SPDX-License-Identifier: GPL-2.0-only
/* Wake-up interrupts to an idle CPU: which delivery takes which send, and how late. */
#include "ipi_late.h"
#include "unit.h"

#define US 1000ull
#define MS 1000000ull

/* Idle through the whole trace. */
static const struct idle_span always_idle[] = { { 0, UINT64_MAX } };

TEST(ipi_late_prompt_deliveries_are_microseconds)
{
	const uint64_t sent[] = { 100 * MS, 200 * MS, 300 * MS };
	const uint64_t entry[] = { 100 * MS + 8 * US, 200 * MS + 12 * US, 300 * MS + 5 * US };
	const struct idle_span idle[] = { { 50 * MS, 100 * MS + 9 * US },
					  { 150 * MS, 200 * MS + 13 * US },
					  { 250 * MS, 300 * MS + 6 * US } };
	struct ipi_late t;

	ipi_late_measure(sent, 3, entry, 3, idle, 3, 0, UINT64_MAX, &t);
	CHECK(t.sent == 3 && t.delivered == 3 && t.to_busy == 0 && t.late_max_ns == 12 * US,
	      "sent %d delivered %d late %llu", t.sent, t.delivered, (unsigned long long)t.late_max_ns);
}

TEST(ipi_late_an_idle_vcpu_woken_late_is_measured_from_the_first_send)
{
	/* The soak's window: the RT timer fired at 2926.7 ms on the other CPU, the measured one ran at 2942.6. */
	const uint64_t sent[] = { 1926700 * US, 2926700 * US, 2930000 * US };
	const uint64_t entry[] = { 1926710 * US, 2942600 * US };
	const struct idle_span idle[] = { { 1900000 * US, 1926720 * US }, { 2900000 * US, 2942610 * US } };
	struct ipi_late t;

	ipi_late_measure(sent, 3, entry, 2, idle, 2, 0, UINT64_MAX, &t);
	CHECK(t.delivered == 2 && t.late_max_ns == 15900 * US && t.late_at_ns == 2926700 * US, "late %llu at %llu",
	      (unsigned long long)t.late_max_ns, (unsigned long long)t.late_at_ns);
}

TEST(ipi_late_a_send_to_a_busy_cpu_is_not_timed)
{
	/*
	 * PREEMPT_RT under an emulator: sends to a CPU running its tasks, the next entry of the
	 * vector 1.4 s on. That CPU switched tasks all along: no stall of 1.4 s to excuse.
	 */
	const uint64_t sent[] = { 597838 * US };
	const uint64_t entry[] = { 2008181 * US };
	const struct idle_span idle[] = { { 100 * MS, 101 * MS }, { 1990 * MS, 2008200 * US } };
	struct ipi_late t;

	ipi_late_measure(sent, 1, entry, 1, idle, 2, 0, UINT64_MAX, &t);
	CHECK(t.sent == 1 && t.to_busy == 1 && t.delivered == 0 && t.late_max_ns == 0, "busy %d delivered %d late %llu",
	      t.to_busy, t.delivered, (unsigned long long)t.late_max_ns);
}

TEST(ipi_late_an_idle_cpu_that_left_idle_took_its_wake_up)
{
	/* No entry of the vector came, but the CPU left idle 220 us after the send: delivered then. */
	const uint64_t sent[] = { 597838 * US };
	const uint64_t entry[] = { 2008181 * US };
	const struct idle_span idle[] = { { 592050 * US, 598058 * US } };
	struct ipi_late t;

	ipi_late_measure(sent, 1, entry, 1, idle, 1, 0, UINT64_MAX, &t);
	CHECK(t.delivered == 1 && t.late_max_ns == 220 * US, "delivered %d late %llu", t.delivered,
	      (unsigned long long)t.late_max_ns);
}

TEST(ipi_late_sends_never_taken_time_nothing)
{
	/* A kernel that never sent: the CPU woke at its tick 40 ms on. Nothing is excused. */
	const uint64_t entry[] = { 100 * MS, 140 * MS };
	const uint64_t sent[] = { 500 * MS };
	struct ipi_late t;

	ipi_late_measure(sent, 0, entry, 2, always_idle, 1, 0, UINT64_MAX, &t);
	CHECK(t.sent == 0 && t.delivered == 0 && t.late_max_ns == 0, "late %llu", (unsigned long long)t.late_max_ns);
	/* A send after every arrival to a CPU idle to the trace's end: not delivered, times nothing. */
	ipi_late_measure(sent, 1, entry, 2, always_idle, 1, 0, UINT64_MAX, &t);
	CHECK(t.sent == 1 && t.delivered == 0 && t.undelivered == 1 && t.late_max_ns == 0, "pending %llu",
	      (unsigned long long)t.late_max_ns);
}

TEST(ipi_late_only_sends_in_the_window_count)
{
	const uint64_t sent[] = { 50 * MS, 150 * MS, 950 * MS };
	const uint64_t entry[] = { 80 * MS, 151 * MS, 990 * MS };
	struct ipi_late t;

	ipi_late_measure(sent, 3, entry, 3, always_idle, 1, 100 * MS, 900 * MS, &t);
	CHECK(t.sent == 1 && t.delivered == 1 && t.late_max_ns == 1 * MS, "sent %d late %llu", t.sent,
	      (unsigned long long)t.late_max_ns);
}

TEST(ipi_late_kinds_add_up_keeping_the_latest)
{
	/* A reschedule 20 us late and a remote wake-up (a queued call) 3 ms late: one total. */
	struct ipi_late total = { 0 };
	const struct ipi_late resched = { .sent = 4, .delivered = 4, .late_max_ns = 20 * US, .late_at_ns = 10 * MS };
	const struct ipi_late call = { .sent = 3, .to_busy = 1, .delivered = 1, .undelivered = 1,
				       .late_max_ns = 3 * MS, .late_at_ns = 70 * MS };

	ipi_late_add(&total, &resched);
	ipi_late_add(&total, &call);
	CHECK(total.sent == 7 && total.delivered == 5 && total.to_busy == 1 && total.undelivered == 1 &&
		      total.late_max_ns == 3 * MS && total.late_at_ns == 70 * MS,
	      "sent %d delivered %d late %llu at %llu", total.sent, total.delivered,
	      (unsigned long long)total.late_max_ns, (unsigned long long)total.late_at_ns);
}

TEST(timer_irq_late_excuses_the_interrupt_not_the_scheduler)
{
	/* Due at 100 ms, the idle vCPU took its timer interrupt 16.4 ms late and ran the task 30 us later. */
	uint64_t late = timer_irq_late_ns(100 * MS, 116430 * US, 116400 * US);

	CHECK(late == 16400 * US, "late %llu", (unsigned long long)late);
	/* An on-time interrupt with the CPU idle 16 ms more: the scheduler's delay, nothing excused. */
	late = timer_irq_late_ns(100 * MS, 116 * MS, 100 * MS + 5 * US);
	CHECK(late == 5 * US, "late %llu", (unsigned long long)late);
}

TEST(timer_irq_late_is_zero_when_the_cpu_was_woken_otherwise)
{
	/* No timer interrupt seen, or the first one after the CPU had left idle (an IPI woke it). */
	CHECK(timer_irq_late_ns(100 * MS, 110 * MS, 0) == 0, "no interrupt");
	CHECK(timer_irq_late_ns(100 * MS, 110 * MS, 112 * MS) == 0, "interrupt after idle");
	/* Not idle at the due time. */
	CHECK(timer_irq_late_ns(100 * MS, 100 * MS, 100 * MS) == 0, "not idle");
}
