#include "cpu_stat.h"

#include <stdio.h>
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
