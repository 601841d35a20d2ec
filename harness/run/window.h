/* One measuring window: fork the tasks, release them together, wait, reap. */
#ifndef RTT_WINDOW_H
#define RTT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include "task_shm.h"

enum window_status {
	WINDOW_OK,
	WINDOW_TASK_FAILED,	/* a task could not set itself up: why says which and how */
	WINDOW_INTERRUPTED,	/* a signal asked the run to stop */
	WINDOW_OVERRUN,		/* a task outlived its window and was killed */
};

/* One shared mapping for the whole run (tasks write their records into it). */
struct window_shm *window_shm_create(void);
void window_shm_destroy(struct window_shm *shm);

/*
 * Runs `count` tasks for `duration_ns`; they must be at the start barrier within
 * setup_timeout_ns (an RT task cannot set itself up while its CPU's RT queue is throttled). Tasks share one process group, which is given to the
 * guardian so it can kill them if the harness dies.
 */
enum window_status window_run(struct window_shm *shm, const struct task_config *tasks, int count,
			      uint64_t duration_ns, uint64_t setup_timeout_ns, char *why, size_t why_len);

#endif
