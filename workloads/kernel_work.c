// SPDX-License-Identifier: GPL-2.0-only
/*
 * Waits for per-CPU kernel work on the hogged CPU. Writing /proc/sys/vm/stat_refresh makes the
 * kernel run refresh_vm_stats() on every online CPU through schedule_on_each_cpu() and wait for
 * all of them: the work item on the hog's CPU runs in that CPU's kworker, a CFS task, so the
 * write completes only when throttling (or a fair server) lets CFS run there. The task itself
 * stays on another CPU; it measures how long kernel housekeeping is held up.
 */
#include "latency.h"
#include "roles.h"
#include "spin_measure.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void role_kernel_work(struct window_shm *shm, struct task_record *rec)
{
	uint64_t next = shm->start_ns, cpu_start = thread_cpu_ns(), now = next;
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);

	rec->first_ns = shm->start_ns;
	if (fd < 0) {
		rec->error = errno;
		strncpy(rec->error_msg, "cannot open /proc/sys/vm/stat_refresh", sizeof(rec->error_msg) - 1);
		return;
	}
	while (next < shm->end_ns) {
		uint64_t began;

		sleep_until_ns(next);
		began = mono_ns();
		if (pwrite(fd, "1", 1, 0) < 0 && errno != EINVAL) {
			rec->error = errno;
			break;
		}
		now = mono_ns();
		latency_record(&rec->u.latency, began - shm->start_ns, now - began);
		rec->iterations++;
		next += rec->config.interval_ns;
		while (next <= now)
			next += rec->config.interval_ns;
	}
	close(fd);
	rec->cpu_ns = thread_cpu_ns() - cpu_start;
	rec->last_ns = now;
}
