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

/* Depth-first search over the orders of the knobs that change: at most 4! = 24 orders. */
static bool search(struct knobs *state, const struct knobs *to, struct knob_plan *plan)
{
	bool all_done = true;

	for (int id = 0; id < KNOB_COUNT; id++) {
		int64_t old = state->value[id];

		if (old == to->value[id])
			continue;
		all_done = false;
		state->value[id] = to->value[id];
		if (!knobs_invalid_reason(state)) {
			plan->step[plan->count++] = (struct knob_write){ id, to->value[id] };
			if (search(state, to, plan))
				return true;
			plan->count--;
		}
		state->value[id] = old;
	}
	return all_done;
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
	return search(&state, to, plan);
}
