// SPDX-License-Identifier: GPL-2.0-only
/* The spinners (hog, victim, noise): measure from the window start, through a lead-in if any. */
#include "roles.h"
#include "spin_measure.h"

void role_spin(struct window_shm *shm, struct task_record *rec)
{
	uint64_t cpu_before = 0;

	if (shm->lead_ns < shm->start_ns || rec->config.early_ns) {
		rec->ran_before_start = mono_ns() < shm->start_ns;
		cpu_before = spin_wait_start(shm->start_ns);
		rec->cpu_at_start_ns = thread_cpu_ns();
	}
	spin_measure(rec, shm->start_ns, shm->end_ns, cpu_before);
}
