// SPDX-License-Identifier: GPL-2.0-only
/* Latency probe: wakes every interval with clock_nanosleep(TIMER_ABSTIME), like cyclictest. */
#include "latency.h"
#include "roles.h"
#include "spin_measure.h"
#include "util.h"

#include <errno.h>
#include <time.h>

uint64_t probe_first_wake_ns(uint64_t start_ns, uint64_t interval_ns, int phase_set, uint64_t phase_ns)
{
	uint64_t wake;

	if (!phase_set || !interval_ns)
		return start_ns + interval_ns;
	wake = start_ns - start_ns % interval_ns + phase_ns % interval_ns;
	return wake > start_ns ? wake : wake + interval_ns;
}

void role_probe(struct window_shm *shm, struct task_record *rec)
{
	const uint64_t interval = rec->config.interval_ns;
	uint64_t next = probe_first_wake_ns(shm->start_ns, interval, rec->config.phase_set, rec->config.phase_ns);
	uint64_t now = shm->start_ns, cpu_start = thread_cpu_ns();

	rec->first_ns = shm->start_ns;
	while (next < shm->end_ns) {
		sleep_until_ns(next);
		now = mono_ns();
		latency_record(&rec->u.latency, next - shm->start_ns, now - next);
		rec->iterations++;
		/* A wake-up later than the next period: those periods were missed, not delayed. */
		next += interval;
		while (next <= now)
			next += interval;
	}
	rec->cpu_ns = thread_cpu_ns() - cpu_start;
	rec->last_ns = now > shm->end_ns ? now : shm->end_ns;
}
