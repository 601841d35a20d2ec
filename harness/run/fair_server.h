/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The deadline fair server's files (6.12+: debugfs sched/fair_server/cpuN/{runtime,period}, in
 * ns), read and written alike on every online CPU or on the CPUs a run names (its measured
 * ones), so the knobs hold one runtime and one period for all of them; the other CPUs' servers
 * are left as they are. debugfs is mounted for a run that sets them when it is not mounted.
 */
#ifndef RTT_FAIR_SERVER_H
#define RTT_FAIR_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAIR_SERVER_CPUS_MAX 64

/* Where the cpuN folders live; tests point it at a temp folder. NULL: the debugfs default. */
void fair_server_set_root(const char *dir);
/*
 * The CPUs whose servers are read and written from now on (count 0 or NULL: every online CPU,
 * the default); false when count exceeds FAIR_SERVER_CPUS_MAX or a CPU is negative.
 */
bool fair_server_set_cpus(const int *cpus, int count);
/* Those CPUs into cpus (room for FAIR_SERVER_CPUS_MAX); returns how many, 0 for every online CPU. */
int fair_server_cpus(int *cpus);
/* "every online CPU", "CPU 1" or "CPUs 1,3": for messages. */
const char *fair_server_cpus_described(void);
/* --fair-server-cpus: "all" or "measured" (sets *measured); false for anything else. */
bool fair_server_cpus_choice(const char *text, bool *measured);
/* Some online CPU's server is outside them (it keeps what it has, admitted by the kernel before). */
bool fair_server_partial(void);
/* "<root>/cpu*\/runtime" (or period; cpu1 or cpu{1,3} when CPUs are named): how messages and plans name the files. */
const char *fair_server_path_shown(bool period);
/*
 * The runtime and period every CPU read has (online ones of fair_server_cpus); false with why:
 * debugfs absent or not mounted, no fair server (before 6.12), reading refused (lockdown), CPUs
 * that differ, or none online.
 */
bool fair_server_read(int64_t *runtime_ns, int64_t *period_ns, char *why, size_t len);
/*
 * Whether the kernel's admitted deadline bandwidth (debugfs sched/debug, each CPU's root domain's
 * dl_bw->total_bw) holds at least that CPU's fair server of runtime/period: where not (it lost them,
 * as Debian's 6.12.118 does at boot), changing a server subtracts what was never added and every
 * later sched_rt_runtime_us write fails. False with why; true where it holds or cannot be read.
 */
bool fair_server_accounted(int64_t runtime_ns, int64_t period_ns, char *why, size_t len);
/* The debug file fair_server_accounted reads; tests point it elsewhere. NULL: debugfs's. */
void fair_server_set_sched_debug(const char *path);
/* Every such CPU's files may be opened for writing; false with the first that may not. */
bool fair_server_writable(char *why, size_t len);
/*
 * Writes value into each such CPU's runtime (or period) file. A CPU that refuses it stops
 * the write and the CPUs already written get `old` back, so all keep one value. Returns 0 or
 * the errno, with the refusing file in failed_path.
 */
int fair_server_write(bool period, int64_t value, int64_t old, char *failed_path, size_t len);
/*
 * Mounts debugfs when it is not mounted (a marker in the state folder lets the guardian or
 * `restore` undo it); true when it is there now or nothing was needed. Calls nest: each true
 * one is undone by one fair_server_unmount.
 */
bool fair_server_mount(char *why, size_t len);
/* Undoes a fair_server_mount: the last one unmounts debugfs if the first mounted it. */
void fair_server_unmount(void);

#endif
