// SPDX-License-Identifier: GPL-2.0-only
/* The topology from libnuma and --cpu parsed against it; CPU 0 of a small machine is left to the harness. */
#include "placement.h"
#include "json_util.h"
#include "sysinfo.h"
#include "util.h"

#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int placement_node_of(int cpu)
{
	return cpu >= 0 && numa_available() >= 0 ? numa_node_of_cpu(cpu) : -1;
}

bool placement_has(const int *cpus, int count, int cpu)
{
	for (int i = 0; i < count; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

json_object *placement_to_json(const int *cpus, int count)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < count; i++) {
		json_object *obj = json_object_new_object();
		int node = placement_node_of(cpus[i]);

		json_add_int(obj, "cpu", cpus[i]);
		json_object_object_add(obj, "node", node >= 0 ? json_object_new_int(node) : NULL);
		json_object_array_add(arr, obj);
	}
	return arr;
}

void topology_read(struct topology *t)
{
	bool numa = numa_available() >= 0;

	t->count = 0;
	for (int c = 0; c <= cpu_last_online() && t->count < TOPOLOGY_CPUS_MAX; c++) {
		int node = numa ? numa_node_of_cpu(c) : 0;

		if (!cpu_is_online(c))
			continue;
		t->cpu[t->count] = c;
		t->node[t->count++] = node < 0 ? 0 : node;
	}
}

static int index_of(const struct topology *t, int cpu)
{
	for (int i = 0; i < t->count; i++)
		if (t->cpu[i] == cpu)
			return i;
	return -1;
}

/* CPU 0 of a small machine carries the harness and the shell. */
static bool cpu0_refused(const struct topology *t, int cpu, bool allow_cpu0)
{
	return cpu == 0 && t->count <= 2 && !allow_cpu0;
}

static bool add(int *cpus, int *count, int cpu, const char *text, char *why, size_t len)
{
	for (int i = 0; i < *count; i++)
		if (cpus[i] == cpu) {
			snprintf(why, len, "--cpu %s: CPU %d given twice", text, cpu);
			return false;
		}
	if (*count == PLACEMENT_CPUS_MAX) {
		snprintf(why, len, "--cpu %s: more than %d CPUs", text, PLACEMENT_CPUS_MAX);
		return false;
	}
	cpus[(*count)++] = cpu;
	return true;
}

static int ascending(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* "1,3,5-6": each CPU online, none twice. */
static bool parse_list(const char *text, const struct topology *t, bool allow_cpu0, int *cpus, int *count, char *why,
		       size_t len)
{
	char copy[256], *save = NULL;

	if (snprintf(copy, sizeof(copy), "%s", text) >= (int)sizeof(copy) || !*text || text[strlen(text) - 1] == ',') {
		snprintf(why, len, "--cpu: '%.64s' is not a CPU list (e.g. 1 or 1,3 or 2-3), last or per-node", text);
		return false;
	}
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(item, '-');
		int64_t first, last;

		if (dash)
			*dash = '\0';
		if (!parse_i64(item, 0, TOPOLOGY_CPUS_MAX - 1, &first) ||
		    (dash && !parse_i64(dash + 1, 0, TOPOLOGY_CPUS_MAX - 1, &last)) || (dash && last < first)) {
			snprintf(why, len, "--cpu: '%.64s' is not a CPU list (e.g. 1 or 1,3 or 2-3), last or per-node", text);
			return false;
		}
		if (!dash)
			last = first;
		for (int64_t c = first; c <= last; c++) {
			if (index_of(t, (int)c) < 0) {
				snprintf(why, len, "--cpu %.64s: CPU %d: no such online CPU", text, (int)c);
				return false;
			}
			if (cpu0_refused(t, (int)c, allow_cpu0)) {
				snprintf(why, len, "--cpu %.64s: the harness and your shell live on CPU 0 of this %d-CPU machine; "
						   "add --allow-cpu0 to insist", text, t->count);
				return false;
			}
			if (!add(cpus, count, (int)c, text, why, len))
				return false;
		}
	}
	return true;
}

bool placement_choose(const char *text, const struct topology *t, bool allow_cpu0, int *cpus, int *count,
		      char *why, size_t len)
{
	*count = 0;
	if (t->count == 0) {
		snprintf(why, len, "no online CPU found");
		return false;
	}
	if (!text || !strcmp(text, "last")) {
		int last = t->cpu[t->count - 1];

		if (last == 0 && !allow_cpu0) {
			snprintf(why, len, "only CPU 0 is online; measuring there needs --cpu 0 --allow-cpu0");
			return false;
		}
		cpus[(*count)++] = last;
		return true;
	}
	if (!strcmp(text, "per-node")) {
		/* Each node's last online CPU (the CPUs are ascending, so the last seen wins). */
		for (int i = 0; i < t->count; i++) {
			bool last_of_node = true;

			for (int j = i + 1; j < t->count; j++)
				last_of_node &= t->node[j] != t->node[i];
			if (last_of_node && !cpu0_refused(t, t->cpu[i], allow_cpu0) && !add(cpus, count, t->cpu[i], text, why, len))
				return false;
		}
		if (*count == 0) {
			snprintf(why, len, "--cpu per-node: no node has a CPU to measure but CPU 0; add --allow-cpu0 to insist");
			return false;
		}
	} else if (!parse_list(text, t, allow_cpu0, cpus, count, why, len)) {
		*count = 0;
		return false;
	}
	qsort(cpus, (size_t)*count, sizeof(*cpus), ascending);
	return true;
}
