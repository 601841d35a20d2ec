// SPDX-License-Identifier: GPL-2.0-only
/* Breadth-first over the states each knob's start, target and -1 span: the first plan found is shortest. */
#include "knob_plan.h"
#include "fair_server.h"

#include <stddef.h>

static const char *pair_invalid(int64_t runtime, int64_t period)
{
	if (period <= 0)
		return "period must be positive";
	if (runtime < -1)
		return "runtime below -1";
	if (runtime > period)
		return "runtime exceeds period";
	return NULL;
}

const char *knobs_fair_server_invalid(int64_t runtime_ns, int64_t period_ns)
{
	if (period_ns < FAIR_SERVER_PERIOD_MIN_US * 1000 || period_ns > FAIR_SERVER_PERIOD_MAX_US * 1000)
		return "fair server period outside 100 us..2^22 us";
	if (runtime_ns < 0 || runtime_ns > period_ns)
		return "fair server runtime outside 0..period";
	return NULL;
}

uint64_t knobs_admitted_ratio(const struct knobs *k, const struct dl_floor *floor)
{
	uint64_t server;

	if (!k->has_fair_server)
		return dl_floor_ratio(floor);
	/* ns against us: the kernel's fixed point of a ratio does not depend on the unit. The ext
	 * server (no knob of its own) keeps what it has. */
	server = knob_ratio(k->value[KNOB_FAIR_SERVER_RUNTIME], k->value[KNOB_FAIR_SERVER_PERIOD]) +
		 dl_floor_ext_ratio(floor);
	/* The CPUs the run leaves alone keep theirs, admitted before: the floor. */
	if (fair_server_partial() && dl_floor_ratio(floor) > server)
		return dl_floor_ratio(floor);
	return server;
}

const char *knobs_invalid_reason(const struct knobs *k, const struct dl_floor *floor)
{
	int64_t runtime = k->value[KNOB_SYSCTL_RUNTIME], period = k->value[KNOB_SYSCTL_PERIOD];
	const char *why = pair_invalid(runtime, period);

	if (why)
		return why;
	if (k->has_fair_server) {
		why = knobs_fair_server_invalid(k->value[KNOB_FAIR_SERVER_RUNTIME], k->value[KNOB_FAIR_SERVER_PERIOD]);
		if (why)
			return why;
		/* Both writes are checked against it: a sysctl going under it, the fair server going over. */
		if (runtime >= 0 && knob_ratio(runtime, period) < knobs_admitted_ratio(k, floor))
			return knob_ratio(runtime, period) < knob_ratio(k->value[KNOB_FAIR_SERVER_RUNTIME],
									 k->value[KNOB_FAIR_SERVER_PERIOD])
				       ? "global ratio below the fair server's bandwidth (deadline admission)"
				       : "global ratio below the deadline floor the CPUs whose fair server is left alone keep (deadline admission)";
	} else if (!dl_floor_allows(floor, runtime, period)) {
		return "global ratio below the deadline bandwidth already admitted";
	}
	if (!k->has_cgroup)
		return NULL;
	why = pair_invalid(k->value[KNOB_CGROUP_RUNTIME], k->value[KNOB_CGROUP_PERIOD]);
	if (why)
		return why;
	if (k->value[KNOB_CGROUP_RUNTIME] == 0)
		return "root cgroup runtime 0 would forbid all RT tasks";
	if (knob_ratio(k->value[KNOB_CGROUP_RUNTIME], k->value[KNOB_CGROUP_PERIOD]) > knob_ratio(runtime, period))
		return "root cgroup ratio above the global ratio";
	return NULL;
}

bool knob_write_allowed(const struct knobs *at, enum knob_id id)
{
	return id < KNOB_FAIR_SERVER_RUNTIME || at->value[KNOB_SYSCTL_RUNTIME] == -1;
}

/*
 * The values a knob takes on the way, in the order they are tried: its target, -1 for the
 * sysctl runtime (ratio 1: every cgroup ratio fits under it, no floor applies and the kernel
 * admits any fair server), its start.
 */
#define VALUES_MAX 3
#define STATES_MAX (VALUES_MAX * 2 * 2 * 2 * 2 * 2)

struct search_space {
	int knobs;			/* how many of the state's knobs are present */
	int id[KNOB_COUNT];		/* which: the sysctls, then the cgroup's and the fair server's */
	int count[KNOB_COUNT];		/* per knob id */
	int64_t value[KNOB_COUNT][VALUES_MAX];
	int start_digit[KNOB_COUNT];
};

static int add_value(struct search_space *s, int id, int64_t v)
{
	for (int d = 0; d < s->count[id]; d++)
		if (s->value[id][d] == v)
			return d;
	s->value[id][s->count[id]] = v;
	return s->count[id]++;
}

/* A state is a mixed-radix number: one digit per present knob, indexing its values. */
static int state_of(const struct search_space *s, const int digit[KNOB_COUNT])
{
	int index = 0;

	for (int i = s->knobs - 1; i >= 0; i--)
		index = index * s->count[s->id[i]] + digit[s->id[i]];
	return index;
}

static void digits_of(const struct search_space *s, int index, int digit[KNOB_COUNT])
{
	for (int i = 0; i < s->knobs; i++) {
		digit[s->id[i]] = index % s->count[s->id[i]];
		index /= s->count[s->id[i]];
	}
}

static void present_knobs(const struct knobs *k, struct search_space *s)
{
	for (int id = 0; id < KNOB_COUNT; id++)
		if (id < KNOB_CGROUP_RUNTIME || (id < KNOB_FAIR_SERVER_RUNTIME ? k->has_cgroup : k->has_fair_server))
			s->id[s->knobs++] = id;
}

struct search_node {
	bool seen;
	int parent;
	struct knob_write via;
};

/* Walks the parents back from the target; false when the path is longer than a plan holds. */
static bool plan_from_parents(const struct search_node *node, int start, int target, struct knob_plan *plan)
{
	int length = 0;

	for (int at = target; at != start; at = node[at].parent)
		length++;
	if (length > KNOB_PLAN_STEPS_MAX)
		return false;
	plan->count = length;
	for (int at = target; at != start; at = node[at].parent)
		plan->step[--length] = node[at].via;
	return true;
}

/* Breadth-first over at most 96 states: the first path found to the target is a shortest one. */
bool knob_plan_make(const struct knobs *from, const struct knobs *to, const struct dl_floor *floor,
		    struct knob_plan *plan)
{
	struct search_space space = { 0 };
	struct search_node node[STATES_MAX] = { { 0 } };
	int queue[STATES_MAX], head = 0, tail = 0, start, target, zero[KNOB_COUNT] = { 0 };
	struct knobs base = *to;

	plan->count = 0;
	if (from->has_cgroup != to->has_cgroup || from->has_fair_server != to->has_fair_server ||
	    knobs_invalid_reason(to, floor))
		return false;
	present_knobs(to, &space);
	for (int i = 0; i < space.knobs; i++) {
		int id = space.id[i];

		add_value(&space, id, to->value[id]);
		if (id == KNOB_SYSCTL_RUNTIME)
			add_value(&space, id, -1);
		space.start_digit[id] = add_value(&space, id, from->value[id]);
	}
	start = state_of(&space, space.start_digit);
	target = state_of(&space, zero);
	node[start].seen = true;
	queue[tail++] = start;
	while (head < tail) {
		int at = queue[head++], digit[KNOB_COUNT];

		if (at == target)
			return plan_from_parents(node, start, target, plan);
		digits_of(&space, at, digit);
		for (int i = 0; i < space.knobs; i++) {
			int id = space.id[i], kept = digit[id];

			for (int d = 0; d < space.count[id]; d++) {
				int next;

				digit[id] = d;
				next = state_of(&space, digit);
				if (d == kept || node[next].seen)
					continue;
				/* The state written in: knob id still at its old value, kept. */
				for (int k = 0; k < space.knobs; k++)
					base.value[space.id[k]] = space.value[space.id[k]][digit[space.id[k]]];
				base.value[id] = space.value[id][kept];
				if (!knob_write_allowed(&base, id))
					continue;
				for (int k = 0; k < space.knobs; k++)
					base.value[space.id[k]] = space.value[space.id[k]][digit[space.id[k]]];
				if (knobs_invalid_reason(&base, floor))
					continue;
				node[next] = (struct search_node){ true, at, { id, space.value[id][d] } };
				queue[tail++] = next;
			}
			digit[id] = kept;
		}
	}
	return false;
}
