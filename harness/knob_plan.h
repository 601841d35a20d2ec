/*
 * Orders knob writes so the kernel accepts each one. The kernel checks every write:
 * runtime <= period for each pair (or runtime -1), and the root cgroup's runtime/period ratio
 * must not exceed the global one (-1 counts as ratio 1). Plans come from these invariants, not
 * from a fixed order.
 */
#ifndef RTT_KNOB_PLAN_H
#define RTT_KNOB_PLAN_H

#include "knobs.h"

struct knob_write {
	enum knob_id knob;
	int64_t value;
};

#define KNOB_PLAN_STEPS_MAX (KNOB_COUNT + 2)	/* each knob once, plus a detour and its undo */

struct knob_plan {
	int count;
	struct knob_write step[KNOB_PLAN_STEPS_MAX];
};

/* Why a state is invalid, or NULL when the kernel would accept it. */
const char *knobs_invalid_reason(const struct knobs *k);
/* The kernel's fixed-point ratio (runtime << 20) / period; -1 runtime gives 1 << 20. */
uint64_t knob_ratio(int64_t runtime_us, int64_t period_us);
/* Finds a sequence of single writes from `from` to `to` with every step valid. */
bool knob_plan_make(const struct knobs *from, const struct knobs *to, struct knob_plan *plan);

#endif
