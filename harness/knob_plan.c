#include "knob_plan.h"

#include <stddef.h>

#define BW_SHIFT 20	/* the kernel's to_ratio() fixed point */

uint64_t knob_ratio(int64_t runtime_us, int64_t period_us)
{
	if (runtime_us < 0)
		return 1ull << BW_SHIFT;
	if (period_us <= 0)
		return UINT64_MAX;
	return ((uint64_t)runtime_us << BW_SHIFT) / (uint64_t)period_us;
}

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

const char *knobs_invalid_reason(const struct knobs *k)
{
	const char *why = pair_invalid(k->value[KNOB_SYSCTL_RUNTIME], k->value[KNOB_SYSCTL_PERIOD]);

	if (why || !k->has_cgroup)
		return why;
	why = pair_invalid(k->value[KNOB_CGROUP_RUNTIME], k->value[KNOB_CGROUP_PERIOD]);
	if (why)
		return why;
	if (k->value[KNOB_CGROUP_RUNTIME] == 0)
		return "root cgroup runtime 0 would forbid all RT tasks";
	if (knob_ratio(k->value[KNOB_CGROUP_RUNTIME], k->value[KNOB_CGROUP_PERIOD]) >
	    knob_ratio(k->value[KNOB_SYSCTL_RUNTIME], k->value[KNOB_SYSCTL_PERIOD]))
		return "root cgroup ratio above the global ratio";
	return NULL;
}

static bool search(struct knobs *state, const struct knobs *to, struct knob_plan *plan, bool detoured);

/* Tries one write; keeps it when the state stays valid and the rest of the plan is found. */
static bool try_write(struct knobs *state, const struct knobs *to, struct knob_plan *plan, int id, int64_t value,
		      bool detoured)
{
	int64_t old = state->value[id];

	if (plan->count == KNOB_PLAN_STEPS_MAX)
		return false;
	state->value[id] = value;
	if (!knobs_invalid_reason(state)) {
		plan->step[plan->count++] = (struct knob_write){ id, value };
		if (search(state, to, plan, detoured))
			return true;
		plan->count--;
	}
	state->value[id] = old;
	return false;
}

/*
 * Depth-first search over the orders of the knobs that change (at most 4! = 24 orders). When
 * no order works, one detour through sysctl runtime -1 (ratio 1, which every cgroup ratio fits
 * under) unlocks the rest.
 */
static bool search(struct knobs *state, const struct knobs *to, struct knob_plan *plan, bool detoured)
{
	bool all_done = true;

	for (int id = 0; id < KNOB_COUNT; id++) {
		if (state->value[id] == to->value[id])
			continue;
		all_done = false;
		if (try_write(state, to, plan, id, to->value[id], detoured))
			return true;
	}
	if (all_done)
		return true;
	return !detoured && state->value[KNOB_SYSCTL_RUNTIME] != -1 &&
	       try_write(state, to, plan, KNOB_SYSCTL_RUNTIME, -1, true);
}

bool knob_plan_make(const struct knobs *from, const struct knobs *to, struct knob_plan *plan)
{
	struct knobs state = *from;

	plan->count = 0;
	if (from->has_cgroup != to->has_cgroup || knobs_invalid_reason(to))
		return false;
	if (!from->has_cgroup) {
		state.value[KNOB_CGROUP_RUNTIME] = to->value[KNOB_CGROUP_RUNTIME];
		state.value[KNOB_CGROUP_PERIOD] = to->value[KNOB_CGROUP_PERIOD];
	}
	return search(&state, to, plan, false);
}
