// SPDX-License-Identifier: GPL-2.0-only
/* Each rule a write keeps, in numbers: runtime <= period, global ratio against the floor and the cgroup's. */
#include "knob_explain.h"

#include <inttypes.h>
#include <stdio.h>

#define BW_UNIT (double)(1u << 20)

static double ratio_of(int64_t runtime, int64_t period)
{
	return knob_ratio(runtime, period) / BW_UNIT;
}

void knobs_describe(const struct knobs *k, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%" PRId64 "/%" PRId64, k->value[KNOB_SYSCTL_RUNTIME],
			 k->value[KNOB_SYSCTL_PERIOD]);

	if (k->has_cgroup && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", root cgroup %" PRId64 "/%" PRId64,
			      k->value[KNOB_CGROUP_RUNTIME], k->value[KNOB_CGROUP_PERIOD]);
	if (k->has_fair_server && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", fair server %" PRId64 "/%" PRId64 " ns",
			 k->value[KNOB_FAIR_SERVER_RUNTIME], k->value[KNOB_FAIR_SERVER_PERIOD]);
}

/* Why a fair-server write is admitted: its pair rule, and its bandwidth under the global ratio. */
static void fair_server_why(const struct knobs *k, char *buf, size_t len)
{
	int64_t runtime = k->value[KNOB_FAIR_SERVER_RUNTIME], period = k->value[KNOB_FAIR_SERVER_PERIOD];
	int n = snprintf(buf, len, "fair server runtime %" PRId64 " <= period %" PRId64 " ns", runtime, period);

	if (n < 0 || (size_t)n >= len)
		return;
	if (k->value[KNOB_SYSCTL_RUNTIME] < 0)
		snprintf(buf + n, len - (size_t)n, "; the global runtime is -1, so the kernel admits any fair server");
	else
		snprintf(buf + n, len - (size_t)n, "; its ratio %.3f <= global ratio %.3f", ratio_of(runtime, period),
			 ratio_of(k->value[KNOB_SYSCTL_RUNTIME], k->value[KNOB_SYSCTL_PERIOD]));
}

static void sysctl_why(const struct knobs *k, enum knob_id written, const struct dl_floor *floor, char *buf,
		       size_t len)
{
	int64_t runtime = k->value[KNOB_SYSCTL_RUNTIME], period = k->value[KNOB_SYSCTL_PERIOD];
	int n;

	if (runtime < 0) {
		snprintf(buf, len, written == KNOB_SYSCTL_RUNTIME
					   ? "no global limit: ratio 1 is above any cgroup's, and the deadline floor does not apply"
					   : "the global runtime is -1, so any period is valid");
		return;
	}
	n = snprintf(buf, len, "runtime %" PRId64 " <= period %" PRId64 "; global ratio %.3f", runtime, period,
		     ratio_of(runtime, period));
	if (knobs_admitted_ratio(k, floor) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " >= deadline floor %.3f", knobs_admitted_ratio(k, floor) / BW_UNIT);
	if (k->has_cgroup && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s >= root cgroup ratio %.3f",
			 knobs_admitted_ratio(k, floor) ? " and" : "",
			 ratio_of(k->value[KNOB_CGROUP_RUNTIME], k->value[KNOB_CGROUP_PERIOD]));
}

void knob_step_why(const struct knobs *after, enum knob_id written, const struct dl_floor *floor, char *buf,
		   size_t len)
{
	int64_t runtime = after->value[KNOB_CGROUP_RUNTIME], period = after->value[KNOB_CGROUP_PERIOD];

	if (written <= KNOB_SYSCTL_PERIOD) {
		sysctl_why(after, written, floor, buf, len);
		return;
	}
	if (written >= KNOB_FAIR_SERVER_RUNTIME) {
		fair_server_why(after, buf, len);
		return;
	}
	snprintf(buf, len, "cgroup runtime %" PRId64 " %s period %" PRId64 "; cgroup ratio %.3f <= global ratio %.3f",
		 runtime, runtime < 0 ? "(no limit) with" : "<=", period, ratio_of(runtime, period),
		 ratio_of(after->value[KNOB_SYSCTL_RUNTIME], after->value[KNOB_SYSCTL_PERIOD]));
}

void knob_plan_refusal(const struct knobs *from, const struct knobs *to, const struct dl_floor *floor, char *buf,
		       size_t len)
{
	const char *why;
	char text[160];

	if (from->has_cgroup != to->has_cgroup) {
		snprintf(buf, len, "the root cgroup's cpu.rt_* pair %s between the two states",
			 from->has_cgroup ? "vanishes" : "appears");
		return;
	}
	if (from->has_fair_server != to->has_fair_server) {
		snprintf(buf, len, "the fair server can be read in one state and not in the other");
		return;
	}
	why = knobs_invalid_reason(to, floor);
	/* The floor's refusal names the fair server and the errno the kernel would give. */
	if (why && !to->has_fair_server &&
	    !dl_floor_allows(floor, to->value[KNOB_SYSCTL_RUNTIME], to->value[KNOB_SYSCTL_PERIOD]) &&
	    dl_floor_policy_refused(floor, to->value[KNOB_SYSCTL_RUNTIME], to->value[KNOB_SYSCTL_PERIOD], buf, len))
		return;
	knobs_describe(to, text, sizeof(text));
	if (why) {
		snprintf(buf, len, "knobs %s: %s", text, why);
		return;
	}
	why = knobs_invalid_reason(from, floor);
	knobs_describe(from, text, sizeof(text));
	snprintf(buf, len, "no valid order of writes leaves %s%s%s", text, why ? ": " : "", why ? why : "");
}
