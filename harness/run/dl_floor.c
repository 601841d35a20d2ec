// SPDX-License-Identifier: GPL-2.0-only
/* Ratios in the kernel's fixed point (to_ratio()): one equal to the floor passes here as it does there. */
#include "dl_floor.h"
#include "grid.h"
#include "policy.h"
#include "sysinfo.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>

#define BW_SHIFT 20	/* the kernel's to_ratio() fixed point */
#define BW_UNIT (double)(1u << BW_SHIFT)

uint64_t knob_ratio(int64_t runtime_us, int64_t period_us)
{
	if (runtime_us < 0)
		return 1ull << BW_SHIFT;
	if (period_us <= 0)
		return UINT64_MAX;
	return ((uint64_t)runtime_us << BW_SHIFT) / (uint64_t)period_us;
}

uint64_t dl_floor_ext_ratio(const struct dl_floor *floor)
{
	if (!floor || floor->ext_runtime_us <= 0 || floor->ext_period_us <= 0)
		return 0;
	return knob_ratio(floor->ext_runtime_us, floor->ext_period_us);
}

uint64_t dl_floor_ratio(const struct dl_floor *floor)
{
	uint64_t ext = dl_floor_ext_ratio(floor);

	if (!floor || floor->runtime_us <= 0 || floor->period_us <= 0)
		return ext;
	/* Each server is added to the root domain's total_bw in the same fixed point. */
	return knob_ratio(floor->runtime_us, floor->period_us) + ext;
}

bool dl_floor_allows(const struct dl_floor *floor, int64_t runtime_us, int64_t period_us)
{
	/* The kernel refuses when new_bw * cpus < total_bw: equal is accepted. */
	return runtime_us < 0 || knob_ratio(runtime_us, period_us) >= dl_floor_ratio(floor);
}

struct dl_floor dl_floor_from_model(const struct kernel_model *m)
{
	struct dl_floor floor = { .period_us = 1000000, .source = "no fair server before 6.12" };

	if (m->fs_from_debugfs)
		floor.source = m->fair_server ? "as debugfs shows it" : "debugfs shows the fair server off";
	else if (m->fair_server)
		floor.source = "the 6.12+ default, debugfs being unreadable";
	if (m->fair_server) {
		floor.runtime_us = m->fs_runtime_us;
		floor.period_us = m->fs_period_us;
	}
	if (m->ext_server_reserved) {
		floor.ext_runtime_us = m->es_runtime_us;
		floor.ext_period_us = m->es_period_us;
	}
	return floor;
}

const struct dl_floor *dl_floor_of_system(void)
{
	static struct dl_floor floor;
	static bool known;

	if (!known) {
		struct kernel_facts facts;
		struct kernel_model model;

		kernel_facts_read(&facts);
		kernel_model_predict(&facts, &model);
		floor = dl_floor_from_model(&model);
		known = true;
	}
	return &floor;
}

void dl_floor_describe(const struct dl_floor *floor, char *buf, size_t len)
{
	uint64_t ext = dl_floor_ext_ratio(floor);

	if (dl_floor_ratio(floor) == 0)
		snprintf(buf, len, "none (%s)", floor->source);
	else if (!ext)
		snprintf(buf, len, "fair server %" PRId64 "/%" PRId64 " = %.3f per CPU: %s", floor->runtime_us,
			 floor->period_us, dl_floor_ratio(floor) / BW_UNIT, floor->source);
	else
		snprintf(buf, len, "fair server %" PRId64 "/%" PRId64 " + ext server %" PRId64 "/%" PRId64
			 " = %.3f per CPU: %s", floor->runtime_us, floor->period_us, floor->ext_runtime_us,
			 floor->ext_period_us, dl_floor_ratio(floor) / BW_UNIT, floor->source);
}

bool dl_floor_policy_refused(const struct dl_floor *floor, int64_t runtime_us, int64_t period_us, char *why,
			     size_t len)
{
	const char *pair = policy_pair_invalid(runtime_us, period_us);
	char admitted[160];

	if (pair) {
		snprintf(why, len, "policy %" PRId64 "/%" PRId64 ": %s", runtime_us, period_us, pair);
		return true;
	}
	if (dl_floor_allows(floor, runtime_us, period_us))
		return false;
	dl_floor_describe(floor, admitted, sizeof(admitted));
	snprintf(why, len,
		 "policy %" PRId64 "/%" PRId64 ": ratio %.3f is below the deadline bandwidth the kernel has "
		 "admitted (%s); the kernel would refuse it with EBUSY",
		 runtime_us, period_us, knob_ratio(runtime_us, period_us) / BW_UNIT, admitted);
	return true;
}

const char *grid_cell_unreachable(const struct policy *p, const struct kernel_model *m, char *buf, size_t len)
{
	char runtime[32], period[32];
	struct dl_floor floor;

	if (!p->grid.cells)
		return NULL;
	format_duration_us(p->runtime_us, runtime, sizeof(runtime));
	format_duration_us(p->period_us, period, sizeof(period));
	if (p->runtime_us < 1) {
		snprintf(buf, len, "ratio %g of period %s rounds to runtime 0, which forbids every RT task", p->grid.ratio,
			 period);
		return buf;
	}
	if (p->runtime_us > p->period_us) {
		snprintf(buf, len, "runtime %s exceeds period %s: the kernel refuses it (EINVAL)", runtime, period);
		return buf;
	}
	/* The kernel keeps RT bandwidth at or above what SCHED_DEADLINE holds: every CPU's fair server. */
	floor = dl_floor_from_model(m);
	if (p->fair_server.set) {
		/* The cell's own fair server is what the kernel will hold (its period: the one in force). */
		floor.runtime_us = p->fair_server.runtime_us;
		if (p->fair_server.period_us)
			floor.period_us = p->fair_server.period_us;
	}
	if (!dl_floor_allows(&floor, p->runtime_us, p->period_us)) {
		snprintf(buf, len,
			 "runtime %s is %.1f%% of period %s, below the %.1f%% the deadline %s hold%s on every "
			 "CPU: the kernel refuses it (EBUSY)",
			 runtime, 100.0 * (double)p->runtime_us / (double)p->period_us, period,
			 100.0 * (double)dl_floor_ratio(&floor) / BW_UNIT,
			 dl_floor_ext_ratio(&floor) ? "fair and ext servers" : "fair server",
			 dl_floor_ext_ratio(&floor) ? "" : "s");
		return buf;
	}
	return NULL;
}
