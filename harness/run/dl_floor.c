#include "dl_floor.h"
#include "knob_plan.h"
#include "policy.h"
#include "sysinfo.h"

#include <inttypes.h>
#include <stdio.h>

#define BW_UNIT (double)(1u << 20)

uint64_t dl_floor_ratio(const struct dl_floor *floor)
{
	if (!floor || floor->runtime_us <= 0 || floor->period_us <= 0)
		return 0;
	return knob_ratio(floor->runtime_us, floor->period_us);
}

bool dl_floor_allows(const struct dl_floor *floor, int64_t runtime_us, int64_t period_us)
{
	/* The kernel refuses when new_bw * cpus < total_bw: equal is accepted. */
	return runtime_us < 0 || knob_ratio(runtime_us, period_us) >= dl_floor_ratio(floor);
}

struct dl_floor dl_floor_from_model(const struct kernel_model *m)
{
	struct dl_floor floor = { 0, 1000000, "no fair server before 6.12" };

	if (m->fs_from_debugfs)
		floor.source = m->fair_server ? "as debugfs shows it" : "debugfs shows the fair server off";
	else if (m->fair_server)
		floor.source = "the 6.12+ default, debugfs being unreadable";
	if (m->fair_server) {
		floor.runtime_us = m->fs_runtime_us;
		floor.period_us = m->fs_period_us;
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
	if (dl_floor_ratio(floor) == 0)
		snprintf(buf, len, "none (%s)", floor->source);
	else
		snprintf(buf, len, "fair server %" PRId64 "/%" PRId64 " = %.3f per CPU: %s", floor->runtime_us,
			 floor->period_us, dl_floor_ratio(floor) / BW_UNIT, floor->source);
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
