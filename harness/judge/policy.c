// SPDX-License-Identifier: GPL-2.0-only
/* The built-in policies, the 2008 debate's positions among them; ad-hoc pairs checked as the kernel would. */
#include "policy.h"
#include "json_util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const struct policy builtins[] = {
	{ .name = "default", .runtime_us = 950000, .period_us = 1000000,
	  .origin = "the kernel default since 2.6.25: 5% of every second kept for non-RT tasks" },
	{ .name = "unlimited", .runtime_us = -1, .period_us = 1000000,
	  .origin = "runtime -1, as proposed in 2008 ('sched: disabled rt-bandwidth by default'): strict POSIX" },
	{ .name = "half", .runtime_us = 500000, .period_us = 1000000,
	  .origin = "RT gets half of every second: makes the throttle obvious" },
	{ .name = "full", .runtime_us = 1000000, .period_us = 1000000,
	  .origin = "runtime = period: RT may take the whole period; no RT throttling, only other limits" },
	{ .name = "ten-second-window", .runtime_us = 9500000, .period_us = 10000000,
	  .origin = "the 'raise it to ten seconds' position of 2008: 95% over a 10 s period" },
};

const struct policy *policy_builtins(size_t *count)
{
	*count = sizeof(builtins) / sizeof(builtins[0]);
	return builtins;
}

bool policy_find(const char *name, struct policy *out)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name)) {
			*out = builtins[i];
			return true;
		}
	return false;
}

const char *policy_pair_invalid(int64_t runtime_us, int64_t period_us)
{
	if (period_us < 1 || period_us > INT_MAX)
		return "period must be 1..2147483647 us";
	if (runtime_us < -1)
		return "runtime must be -1 (no limit) or 0..period";
	if (runtime_us > period_us)
		return "runtime exceeds period";
	if (runtime_us == 0)
		return "runtime 0 forbids every RT task (the kernel refuses it for the root group)";
	return NULL;
}

void policy_make_adhoc(int64_t runtime_us, int64_t period_us, struct policy *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "adhoc-%" PRId64 "-%" PRId64, runtime_us, period_us);
	out->runtime_us = runtime_us;
	out->period_us = period_us;
	out->origin = "ad hoc, from the command line";
}

json_object *policy_to_json(const struct policy *p)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "name", p->name);
	json_add_int64(obj, "runtime_us", p->runtime_us);
	json_add_int64(obj, "period_us", p->period_us);
	json_add_str(obj, "origin", p->origin);
	return obj;
}
