// SPDX-License-Identifier: GPL-2.0-only
/* How a task gives up: apart from task.c so the role bodies that call it are not called back. */
#include "task.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void task_fail(struct task_record *rec, const char *fmt, ...)
{
	va_list ap;

	rec->error = errno;
	va_start(ap, fmt);
	vsnprintf(rec->error_msg, sizeof(rec->error_msg), fmt, ap);
	va_end(ap);
	atomic_store(&rec->state, TASK_FAILED);
	_exit(1);
}
