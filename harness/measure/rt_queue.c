// SPDX-License-Identifier: GPL-2.0-only
/* A CPU's RT run queue as the scheduler's debug file shows it. */
#include "rt_queue.h"
#include "pseudo_fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define SCHED_DEBUG_PATH DEBUGFS_MOUNT_DIR "/sched/debug"
/*
 * An unlimited runtime (RUNTIME_INF, all ones: -1 ns as a signed number) prints as 0.000001 ms
 * (6.18: the sign is lost in the split into ms and ns); a runtime is set in whole us.
 */
#define RUNTIME_INF_MS 2e-6

static struct pseudo_fs debugfs;

/* "rt_rq[1]:/" or "rt_rq[1]:" is the root group's queue; "rt_rq[1]:/child" is a group's. */
static bool root_queue_header(const char *line, int cpu)
{
	int got, n = 0;

	if (sscanf(line, "rt_rq[%d]:%n", &got, &n) != 1 || !n || got != cpu)
		return false;
	line += n;
	if (*line == '/')
		line++;
	return *line == '\n' || *line == '\r' || *line == '\0';
}

bool rt_queue_parse(FILE *f, int cpu, struct rt_queue_state *out)
{
	char line[512];
	bool in = false, have_time = false, have_throttled = false;

	memset(out, 0, sizeof(*out));
	out->cpu = cpu;
	out->runtime_us = -1;
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		double v;

		if (!in) {
			in = root_queue_header(line, cpu);
			continue;
		}
		if (sscanf(line, " .%63s : %lf", name, &v) != 2)
			break;	/* the blank line that ends the block */
		if (!strcmp(name, "rt_time")) {
			out->rt_time_us = v * 1000.0;
			have_time = true;
		} else if (!strcmp(name, "rt_throttled")) {
			out->throttled = v != 0;
			have_throttled = true;
		} else if (!strcmp(name, "rt_nr_running")) {
			out->nr_running = (int)v;
		} else if (!strcmp(name, "rt_runtime")) {
			out->runtime_us = v < 0 || (v > 0 && v < RUNTIME_INF_MS) ? -1 : v * 1000.0;
		}
	}
	return have_time && have_throttled;
}

bool rt_queue_open(int cpu, char *why, size_t len)
{
	struct rt_queue_state probe;

	if (!pseudo_fs_mount(&debugfs, "debugfs", DEBUGFS_MOUNT_DIR, DEBUGFS_MOUNT_MARKER, why, len))
		return false;
	if (rt_queue_read(cpu, &probe, why, len))
		return true;
	rt_queue_close();
	return false;
}

void rt_queue_close(void)
{
	pseudo_fs_unmount(&debugfs);
}

void rt_queue_remove_stale(pid_t dead)
{
	pseudo_fs_remove_stale("debugfs", DEBUGFS_MOUNT_MARKER, dead);
}

bool rt_queue_read(int cpu, struct rt_queue_state *out, char *why, size_t len)
{
	FILE *f = fopen(SCHED_DEBUG_PATH, "re");
	bool ok;

	if (!f) {
		snprintf(why, len, "%s: %s", SCHED_DEBUG_PATH, strerror(errno));
		return false;
	}
	ok = rt_queue_parse(f, cpu, out);
	fclose(f);
	if (!ok)
		snprintf(why, len, "%s names no RT queue of CPU %d", SCHED_DEBUG_PATH, cpu);
	return ok;
}
