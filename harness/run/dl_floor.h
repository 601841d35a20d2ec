/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The deadline bandwidth the kernel has admitted per CPU: on 6.12+ the fair server's
 * runtime/period, plus on 7.0+ the sched_ext server's where the kernel admits it (7.0 and 7.1
 * always, 7.2+ while a BPF scheduler is loaded). A write of sched_rt_runtime_us or sched_rt_period_us that would set the global
 * ratio below it fails with EBUSY (sched_rt_handler -> sched_dl_global_validate); runtime -1
 * counts as ratio 1 and always passes. The knob planner keeps every state at or above it.
 */
#ifndef RTT_DL_FLOOR_H
#define RTT_DL_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_model.h"
#include "policy.h"

struct dl_floor {
	int64_t runtime_us, period_us;	/* the fair server's; runtime 0: nothing admitted */
	const char *source;		/* where the values come from, for messages */
	int64_t ext_runtime_us, ext_period_us;	/* the ext server's where admitted; runtime 0: none */
};

/* The kernel's fixed-point ratio (runtime << 20) / period; -1 runtime gives 1 << 20. */
uint64_t knob_ratio(int64_t runtime_us, int64_t period_us);
/* The floor in the kernel's fixed point, to compare with knob_ratio() as the kernel does. */
uint64_t dl_floor_ratio(const struct dl_floor *floor);
/* The ext server's part of it (0 where it is not admitted): a policy setting the fair server keeps it. */
uint64_t dl_floor_ext_ratio(const struct dl_floor *floor);
/* A global ratio the kernel accepts: runtime -1, or ratio >= the floor. */
bool dl_floor_allows(const struct dl_floor *floor, int64_t runtime_us, int64_t period_us);
/* From the kernel model: debugfs's fair server values, else the 6.12+ default, else none; the ext server where admitted. */
struct dl_floor dl_floor_from_model(const struct kernel_model *m);
/* This system's floor, probed once per process (so a forked guardian inherits it). */
const struct dl_floor *dl_floor_of_system(void);
/* "fair server 50000/1000000 = 0.050 per CPU: the 6.12+ default, debugfs being unreadable" */
void dl_floor_describe(const struct dl_floor *floor, char *buf, size_t len);
/*
 * Why the kernel refuses runtime/period as a global policy (pair rules first, then the floor),
 * e.g. "policy 40000/1000000: ratio 0.040 is below the deadline bandwidth ...; the kernel would
 * refuse it with EBUSY"; false when it accepts it.
 */
bool dl_floor_policy_refused(const struct dl_floor *floor, int64_t runtime_us, int64_t period_us, char *why,
			     size_t len);
/* Why the kernel would refuse a grid cell (runtime > period, below the deadline floor), or NULL. */
const char *grid_cell_unreachable(const struct policy *p, const struct kernel_model *m, char *buf, size_t len);

#endif
