// SPDX-License-Identifier: GPL-2.0-only
/* --cpu: CPU lists, "last" and "per-node" on made-up topologies, and bad input named. */
#include "placement.h"
#include "unit.h"

#include <string.h>

/* nodes[i] is CPU i's node; CPUs numbered from 0 without holes. */
static struct topology topo(int count, const int *nodes)
{
	struct topology t = { .count = count };

	for (int i = 0; i < count; i++) {
		t.cpu[i] = i;
		t.node[i] = nodes[i];
	}
	return t;
}

static void expect(const char *text, const struct topology *t, bool allow_cpu0, const char *want)
{
	int cpus[PLACEMENT_CPUS_MAX], count = -1;
	char why[256] = "", got[64] = "";
	size_t used = 0;

	if (placement_choose(text, t, allow_cpu0, cpus, &count, why, sizeof(why)))
		for (int i = 0; i < count; i++)
			used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%d", i ? "," : "", cpus[i]);
	else
		snprintf(got, sizeof(got), "error");
	CHECK(!strcmp(got, want), "--cpu %s%s: got %s (%s), want %s", text ? text : "(none)",
	      allow_cpu0 ? " --allow-cpu0" : "", got, why, want);
}

static void expect_error(const char *text, const struct topology *t, const char *says)
{
	int cpus[PLACEMENT_CPUS_MAX], count = 0;
	char why[256] = "";

	CHECK(!placement_choose(text, t, false, cpus, &count, why, sizeof(why)), "--cpu %s accepted", text);
	CHECK(strstr(why, says) != NULL, "--cpu %s: '%s' does not say '%s'", text, why, says);
	CHECK(count == 0, "--cpu %s: nothing chosen on error", text);
}

TEST(placement_one_node_two_cpus)
{
	static const int nodes[] = { 0, 0 };
	struct topology t = topo(2, nodes);

	expect(NULL, &t, false, "1");
	expect("last", &t, false, "1");
	/* One node: per-node is its last CPU, never CPU 0 of this 2-CPU machine. */
	expect("per-node", &t, false, "1");
	expect("per-node", &t, true, "1");
	expect("1", &t, false, "1");
	expect("0", &t, true, "0");
	expect_error("0", &t, "--allow-cpu0");
	expect_error("0-1", &t, "--allow-cpu0");
}

TEST(placement_two_nodes)
{
	static const int four[] = { 0, 0, 1, 1 }, split[] = { 0, 1 };
	struct topology t = topo(4, four), small = topo(2, split);

	expect("per-node", &t, false, "1,3");
	expect("3,1", &t, false, "1,3");
	expect("2-3", &t, false, "2,3");
	expect("0,2", &t, false, "0,2");	/* 4 CPUs: CPU 0 is allowed */
	expect("last", &t, false, "3");
	/* A node whose only CPU is CPU 0 of a 2-CPU machine is left out, unless allowed. */
	expect("per-node", &small, false, "1");
	expect("per-node", &small, true, "0,1");
}

TEST(placement_bad_input_is_named)
{
	static const int four[] = { 0, 0, 1, 1 }, one[] = { 0 };
	struct topology t = topo(4, four), lone = topo(1, one);

	expect_error("5", &t, "CPU 5: no such online CPU");
	expect_error("1,1", &t, "CPU 1 given twice");
	expect_error("1-2,2", &t, "given twice");
	expect_error("a", &t, "'a' is not a CPU list");
	expect_error("", &t, "is not a CPU list");
	expect_error("1,", &t, "'1,' is not a CPU list");
	expect_error("3-2", &t, "'3-2' is not a CPU list");
	expect_error("-1", &t, "is not a CPU list");
	expect_error("1-", &t, "is not a CPU list");
	expect_error("per_node", &t, "'per_node' is not a CPU list");
	expect_error(NULL, &lone, "only CPU 0 is online");
	expect_error("per-node", &lone, "--allow-cpu0");
	expect("0", &lone, true, "0");
}

TEST(placement_live_topology)
{
	struct topology t;

	topology_read(&t);
	CHECK(t.count >= 1, "no online CPU read");
	for (int i = 0; i < t.count; i++) {
		CHECK(i == 0 || t.cpu[i] > t.cpu[i - 1], "CPUs ascending");
		CHECK(placement_node_of(t.cpu[i]) < 0 || placement_node_of(t.cpu[i]) == t.node[i], "node of CPU %d", t.cpu[i]);
	}
}
