// SPDX-License-Identifier: GPL-2.0-only
/* The recorder of a build without libtracefs (make WITH_TRACEFS=0): every trace block says so. */
#include "trace_backend.h"

#include <stdio.h>

bool recorder_built_in(char *why, size_t len)
{
	snprintf(why, len, "built without libtracefs");
	return false;
}

struct recorder *recorder_open(const char *tracing_dir, const char *name, const int *cpus, int ncpus, char *why,
			       size_t len)
{
	(void)tracing_dir, (void)name, (void)cpus, (void)ncpus;
	recorder_built_in(why, len);
	return NULL;
}

bool recorder_start(struct recorder *r, const int *cpus, int ncpus, size_t kb, char *why, size_t len)
{
	(void)r, (void)cpus, (void)ncpus, (void)kb;
	return recorder_built_in(why, len);
}

void recorder_stop(struct recorder *r)
{
	(void)r;
}

bool recorder_read(struct recorder *r, const int *cpus, int ncpus,
		   void (*fn)(void *ctx, const struct trace_switch *ev), void *ctx, uint64_t *lost, char *why, size_t len)
{
	(void)r, (void)cpus, (void)ncpus, (void)fn, (void)ctx;
	*lost = 0;
	return recorder_built_in(why, len);
}

void recorder_close(struct recorder *r)
{
	(void)r;
}

const char *recorder_tick_source(const struct recorder *r)
{
	(void)r;
	return NULL;
}

bool recorder_wakeups_traced(const struct recorder *r)
{
	(void)r;
	return false;
}

bool recorder_ipi_traced(const struct recorder *r)
{
	(void)r;
	return false;
}

bool recorder_wake_timer_traced(const struct recorder *r)
{
	(void)r;
	return false;
}
