// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU counters from procfs and cgroup v1: steal time, local timer interrupts, CPU time of all tasks. */
#include "cpu_stat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cpu_steal_us(int cpu, uint64_t *out)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	char want[16], line[256];
	bool found = false;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return false;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want))) {
			found = sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
				       &sys, &idle, &iowait, &irq, &softirq, &steal) == 8;
			break;
		}
	fclose(f);
	if (found)
		*out = steal * 1000000ull / (unsigned long long)(hz > 0 ? hz : 100);
	return found;
}

bool cpu_timer_interrupts(int cpu, uint64_t *out)
{
	char *line = NULL;
	size_t cap = 0;
	int column = -1, n = 0;
	bool found = false;
	FILE *f = fopen("/proc/interrupts", "re");

	if (!f)
		return false;
	/* The header names the columns ("CPU0 CPU1 ..."): offline CPUs have none. */
	if (getline(&line, &cap, f) > 0)
		for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"), n++)
			if (!strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu)
				column = n;
	while (column >= 0 && getline(&line, &cap, f) > 0) {
		char *tok = strtok(line, " \t\n");

		if (!tok || strcmp(tok, "LOC:"))
			continue;
		for (n = 0; n < column && (tok = strtok(NULL, " \t\n")); n++)
			;
		tok = strtok(NULL, " \t\n");
		found = tok && sscanf(tok, "%llu", (unsigned long long *)out) == 1;
		break;
	}
	free(line);
	fclose(f);
	return found;
}

bool cpu_busy_ns(int cpu, uint64_t *out)
{
	static const char *const paths[] = {
		"/sys/fs/cgroup/cpuacct/cpuacct.usage_percpu",
		"/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage_percpu",
		"/sys/fs/cgroup/cpuacct,cpu/cpuacct.usage_percpu",
	};
	bool found = false;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !found; i++) {
		FILE *f = fopen(paths[i], "re");
		unsigned long long v;

		if (!f)
			continue;
		for (int k = 0; k <= cpu && fscanf(f, "%llu", &v) == 1; k++)
			if (k == cpu) {
				*out = v;
				found = true;
			}
		fclose(f);
	}
	return found;
}
