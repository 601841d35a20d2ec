// SPDX-License-Identifier: GPL-2.0-only
/* A plan replayed write by write: no idle write, no absent cgroup knob, no refused state, the right end. */
#include "plan_replay.h"
#include "unit.h"

#include <inttypes.h>

const struct dl_floor fair_server_default = { .runtime_us = 50000, .period_us = 1000000, .source = "the 6.12+ default" };

int plan_replay(const char *label, const struct knobs *from, const struct knobs *to, const struct dl_floor *floor,
		const struct knob_plan *plan)
{
	struct knobs state = *from;
	int failures = 0;

	if (plan->count < 0 || plan->count > KNOB_PLAN_STEPS_MAX) {
		CHECK(0, "%s: plan has %d steps", label, plan->count);
		return 1;
	}
	for (int i = 0; i < plan->count; i++) {
		const struct knob_write *w = &plan->step[i];
		const char *why;

		if ((int)w->knob < 0 || w->knob >= KNOB_COUNT) {
			CHECK(0, "%s: step %d writes knob %d", label, i, (int)w->knob);
			return failures + 1;
		}
		if (!from->has_cgroup && w->knob >= KNOB_CGROUP_RUNTIME) {
			CHECK(0, "%s: step %d writes %s on a machine without the cgroup", label, i,
			      knob_name(w->knob));
			failures++;
		}
		if (!from->has_fair_server && w->knob >= KNOB_FAIR_SERVER_RUNTIME) {
			CHECK(0, "%s: step %d writes %s where the fair server is unknown", label, i, knob_name(w->knob));
			failures++;
		}
		if (!knob_write_allowed(&state, w->knob)) {
			CHECK(0, "%s: step %d writes %s while the global runtime is %" PRId64, label, i,
			      knob_name(w->knob), state.value[KNOB_SYSCTL_RUNTIME]);
			failures++;
		}
		if (state.value[w->knob] == w->value) {
			CHECK(0, "%s: step %d rewrites %s with its current value %" PRId64, label, i,
			      knob_name(w->knob), w->value);
			failures++;
		}
		state.value[w->knob] = w->value;
		why = knobs_invalid_reason(&state, floor);
		if (why) {
			CHECK(0, "%s: after step %d (%s = %" PRId64 ") the state is invalid: %s", label, i,
			      knob_name(w->knob), w->value, why);
			failures++;
		}
	}
	if (!knobs_equal(&state, to)) {
		CHECK(0, "%s: the plan ends at %" PRId64 "/%" PRId64 " cgroup %" PRId64 "/%" PRId64
			 ", want %" PRId64 "/%" PRId64 " cgroup %" PRId64 "/%" PRId64,
		      label, state.value[0], state.value[1], state.value[2], state.value[3], to->value[0],
		      to->value[1], to->value[2], to->value[3]);
		failures++;
	}
	return failures;
}
