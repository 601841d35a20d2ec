/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Orders knob writes so the kernel accepts each one. The kernel checks every write:
 * runtime <= period for each pair (or runtime -1); the root cgroup's runtime/period ratio must
 * not exceed the global one (-1 counts as ratio 1); and a sysctl write may not set the global
 * ratio below the deadline bandwidth already admitted (dl_floor.h). Where the fair server is a
 * knob, that bandwidth is its runtime/period, and the same rule binds its writes from the other
 * side: a fair server above the global ratio is refused (EBUSY; under runtime -1 the kernel
 * admits any), its runtime must be <= its period and the period 100 us..2^22 us (EINVAL;
 * kernel/sched/debug.c sched_fair_server_write, deadline.c dl_server_apply_params). Plans come
 * from these invariants, not from a fixed order.
 */
#ifndef RTT_KNOB_PLAN_H
#define RTT_KNOB_PLAN_H

#include "dl_floor.h"
#include "knobs.h"

struct knob_write {
	enum knob_id knob;
	int64_t value;
};

/*
 * Each knob once, plus the sysctl runtime's detour through -1: from any valid state, -1, the
 * fair server's pair and the sysctl period (the kernel admits any fair server under -1), the
 * cgroup pair (each pair in the order its runtime <= period allows), then the sysctl runtime
 * reaches any valid target. A fair-server change always takes that detour (knob_write_allowed).
 */
#define KNOB_PLAN_STEPS_MAX (KNOB_COUNT + 1)

struct knob_plan {
	int count;
	struct knob_write step[KNOB_PLAN_STEPS_MAX];
};

/* The fair server's own pair rules (ns): runtime 0 (off) to its period, period within the kernel's limits. */
const char *knobs_fair_server_invalid(int64_t runtime_ns, int64_t period_ns);
/* Why the kernel would refuse a state, or NULL when it accepts it. A NULL floor: none admitted. */
const char *knobs_invalid_reason(const struct knobs *k, const struct dl_floor *floor);
/*
 * The deadline bandwidth admitted in state k, as knob_ratio(): its fair server's where it holds
 * one (the floor's where larger and other CPUs keep theirs: fair_server_partial), else the floor's.
 */
uint64_t knobs_admitted_ratio(const struct knobs *k, const struct dl_floor *floor);
/*
 * Whether a write of knob id may be made in state `at` (before it). The fair server's are made
 * while the global runtime is -1 only: the kernel admits a fair-server change by subtracting
 * the server's old bandwidth from its root domain's total, which Debian's 6.12.118 (under QEMU)
 * loses, so every change under a finite limit fails with EBUSY, lowering ones too; under
 * -1 there is no admission test.
 */
bool knob_write_allowed(const struct knobs *at, enum knob_id id);
/*
 * Finds a shortest sequence of single writes from `from` to `to` with every step valid and
 * allowed.
 */
bool knob_plan_make(const struct knobs *from, const struct knobs *to, const struct dl_floor *floor,
		    struct knob_plan *plan);

#endif
