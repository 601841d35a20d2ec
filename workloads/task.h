/* SPDX-License-Identifier: GPL-2.0-only */
/* The child side of a task: set itself up as configured, wait at the barrier, measure, exit. */
#ifndef RTT_TASK_H
#define RTT_TASK_H

#include "task_shm.h"

/* Never returns: _exit(0) after measuring, _exit(1) after a setup failure (recorded in rec). */
void task_main(struct window_shm *shm, struct task_record *rec) __attribute__((noreturn));
/* Records why the task cannot go on (errno too) and ends it with TASK_FAILED. */
void task_fail(struct task_record *rec, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

#endif
