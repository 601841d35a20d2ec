// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hog that is light most of the time (busy 1 ms in every 10 ms) and busy without a break for
 * a burst every so often: throttling cuts in only during bursts, the case that "might not cut
 * in during testing". Gaps are measured only while it wants the CPU.
 */
#include "roles.h"
#include "spin_measure.h"
#include "util.h"

#include <errno.h>
#include <time.h>

#define LIGHT_PERIOD_NS 10000000ull
#define LIGHT_BUSY_NS 1000000ull

void role_burst_hog(struct window_shm *shm, struct task_record *rec)
{
	const uint64_t every = rec->config.burst_every_ns, burst = rec->config.burst_ns;
	uint64_t t = shm->start_ns, now = t;
	struct spin_state st;

	spin_begin(rec, shm->start_ns, &st);
	while (t < shm->end_ns) {
		/* Bursts start at every * k + every / 2 from the window start. */
		uint64_t phase = (t - shm->start_ns) % every, burst_start = every / 2;
		uint64_t until;

		if (phase >= burst_start && phase < burst_start + burst) {
			until = t - phase + burst_start + burst;
			now = spin_until(rec, &st, t, until < shm->end_ns ? until : shm->end_ns);
			t = until;
			continue;
		}
		until = t + LIGHT_BUSY_NS;
		now = spin_until(rec, &st, t, until < shm->end_ns ? until : shm->end_ns);
		t += LIGHT_PERIOD_NS;
		if (t < shm->end_ns)
			sleep_until_ns(t);
	}
	spin_end(rec, &st, now);
}
