/* Per-CPU time the hypervisor stole (/proc/stat), to tell VM noise from throttling. */
#ifndef RTT_CPU_STAT_H
#define RTT_CPU_STAT_H

#include <stdbool.h>
#include <stdint.h>

/* Steal time of one CPU since boot, in us (USER_HZ resolution); false when not reported. */
bool cpu_steal_us(int cpu, uint64_t *out);

#endif
