/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words for knob plans: why each write is valid at its moment (`rtthrottle plan`), and why
 * no plan exists (refusals before anything is written).
 */
#ifndef RTT_KNOB_EXPLAIN_H
#define RTT_KNOB_EXPLAIN_H

#include <stddef.h>

#include "knob_plan.h"

/* "950000/1000000, root cgroup 950000/1000000" */
void knobs_describe(const struct knobs *k, char *buf, size_t len);
/* Why the state `after`, just reached by writing `written`, is one the kernel accepts. */
void knob_step_why(const struct knobs *after, enum knob_id written, const struct dl_floor *floor, char *buf,
		   size_t len);
/* Why no plan leads from `from` to `to`: the target's broken rule with its numbers. */
void knob_plan_refusal(const struct knobs *from, const struct knobs *to, const struct dl_floor *floor, char *buf,
		       size_t len);

#endif
