/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU time the hypervisor stole (/proc/stat), to tell VM noise from throttling. */
#ifndef RTT_CPU_STAT_H
#define RTT_CPU_STAT_H

#include <stdbool.h>
#include <stdint.h>

/* Steal time of one CPU since boot, in us (USER_HZ resolution); false when not reported. */
bool cpu_steal_us(int cpu, uint64_t *out);
/*
 * Local timer interrupts one CPU took since boot (/proc/interrupts, row LOC: the tick and other
 * hrtimers); false where there is no such row. An emulator that loses ticks delivers fewer.
 */
bool cpu_timer_interrupts(int cpu, uint64_t *out);

/*
 * CPU time all tasks used on one CPU since boot, in ns (interrupts charged to them), from the
 * root cgroup's cpuacct.usage_percpu (cgroup v1); false where there is none.
 */
bool cpu_busy_ns(int cpu, uint64_t *out);

#endif
