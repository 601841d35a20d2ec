/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a run measures: `--cpu` as a CPU list ("1", "1,3", "2-3"), "last" (the last online
 * CPU, the default) or "per-node" (each NUMA node's last online CPU). Pure: the topology is
 * passed in, so the choice can be tested for machines this one is not.
 */
#ifndef RTT_PLACEMENT_H
#define RTT_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#define PLACEMENT_CPUS_MAX 8	/* measured CPUs in one run */
#define TOPOLOGY_CPUS_MAX 1024

struct topology {
	int count;			/* online CPUs */
	int cpu[TOPOLOGY_CPUS_MAX];	/* ascending */
	int node[TOPOLOGY_CPUS_MAX];	/* each one's NUMA node (0 without NUMA) */
};

/* The NUMA node of cpu, or -1 without NUMA (libnuma). */
int placement_node_of(int cpu);
/* cpu is one of the count CPUs of cpus. */
bool placement_has(const int *cpus, int count, int cpu);
/* [{cpu, node}] of the measured CPUs, for the results. */
json_object *placement_to_json(const int *cpus, int count);
/* The online CPUs and their nodes (libnuma; node 0 for all when NUMA is unavailable). */
void topology_read(struct topology *t);
/*
 * The measured CPUs for `text` (NULL: "last"), in ascending order, the first being the one the
 * noise floor, probe and calibration use. CPU 0 of a machine with 2 CPUs or fewer only with
 * allow_cpu0 ("per-node" leaves it out instead). False with why (naming the input) otherwise.
 */
bool placement_choose(const char *text, const struct topology *t, bool allow_cpu0, int *cpus, int *count,
		      char *why, size_t len);

#endif
