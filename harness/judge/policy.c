// SPDX-License-Identifier: GPL-2.0-only
/* The built-in policies, the 2008 debate's positions among them; ad-hoc pairs checked as the kernel would. */
#include "policy.h"
#include "json_util.h"
#include "util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const struct policy builtins[] = {
	{ .name = "default", .runtime_us = 950000, .period_us = 1000000,
	  .origin = "the kernel default from 2.6.25 to 7.1: 5% of every second kept for non-RT tasks "
		    "(7.2 defaults to 1000000: the fair server keeps CFS time)" },
	{ .name = "unlimited", .runtime_us = -1, .period_us = 1000000,
	  .origin = "runtime -1, as proposed in 2008 ('sched: disabled rt-bandwidth by default'): strict POSIX" },
	{ .name = "half", .runtime_us = 500000, .period_us = 1000000,
	  .origin = "RT gets half of every second: makes the throttle obvious" },
	{ .name = "full", .runtime_us = 1000000, .period_us = 1000000,
	  .origin = "runtime = period: RT may take the whole period; no RT throttling, only other limits" },
	{ .name = "ten-second-window", .runtime_us = 9500000, .period_us = 10000000,
	  .origin = "the 'raise it to ten seconds' position of 2008: 95% over a 10 s period" },
	{ .name = "rt-no-fair-server", .runtime_us = 950000, .period_us = 1000000,
	  .fair_server = { .set = true, .runtime_us = 0 },
	  .origin = "default RT throttling with the 6.12+ fair server off (runtime 0), as NI's real-time "
		    "distribution ships it against 6.12 latency regressions: RT throttling alone guards CFS" },
	{ .name = "posix", .runtime_us = -1, .period_us = 1000000,
	  .fair_server = { .set = true, .runtime_us = 0 },
	  .origin = "runtime -1 and the fair server off: the 2008 patch's strict POSIX on a 6.12+ kernel, "
		    "nothing keeps a runaway RT task from starving CFS" },
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
	if (p->fair_server.set) {
		json_object *fs = json_object_new_object();

		json_add_int64(fs, "runtime_us", p->fair_server.runtime_us);
		/* null: the period in force was kept */
		json_object_object_add(fs, "period_us", p->fair_server.period_us
								? json_object_new_int64(p->fair_server.period_us)
								: NULL);
		json_object_object_add(obj, "fair_server", fs);
	}
	return obj;
}

const char *policy_fair_server_invalid(const struct policy_fair_server *fs)
{
	if (fs->runtime_us < 0)
		return "the runtime must not be negative (0 turns the fair server off)";
	if (!fs->period_us)
		return fs->runtime_us ? "a runtime needs its period (RUNTIME/PERIOD)" : NULL;
	if (fs->period_us < FAIR_SERVER_PERIOD_MIN_US || fs->period_us > FAIR_SERVER_PERIOD_MAX_US)
		return "the period must be 100us to 4194304us (the kernel's limits, about 4.2 s)";
	if (fs->runtime_us > fs->period_us)
		return "the runtime exceeds the period";
	return NULL;
}

bool policy_fair_server_parse(const char *text, struct policy_fair_server *out, char *why, size_t len)
{
	const char *slash = strchr(text, '/');
	char runtime[32];
	const char *invalid;

	memset(out, 0, sizeof(*out));
	out->set = true;
	if (!strcmp(text, "0"))
		return true;
	if (text[0] == '-' || (slash && slash[1] == '-')) {
		snprintf(why, len, "a negative time (the runtime 0 turns the fair server off)");
		return false;
	}
	if (!slash || (size_t)(slash - text) >= sizeof(runtime)) {
		snprintf(why, len, "not RUNTIME/PERIOD with units (50ms/1s) or 0 (off)");
		return false;
	}
	snprintf(runtime, sizeof(runtime), "%.*s", (int)(slash - text), text);
	if (strcmp(runtime, "0") && !parse_duration_us(runtime, &out->runtime_us)) {
		snprintf(why, len, "runtime '%s' is not a time with a unit (1500us, 50ms, 1.5s) or 0", runtime);
		return false;
	}
	if (!parse_duration_us(slash + 1, &out->period_us) || !out->period_us) {
		snprintf(why, len, "period '%s' is not a time with a unit (100ms, 1s)", slash + 1);
		return false;
	}
	invalid = policy_fair_server_invalid(out);
	if (invalid)
		snprintf(why, len, "%s", invalid);
	return !invalid;
}

void policy_fair_server_format(const struct policy_fair_server *fs, char *buf, size_t len)
{
	char runtime[24], period[24];

	if (!fs->runtime_us && !fs->period_us) {
		snprintf(buf, len, "0");
		return;
	}
	format_duration_us(fs->runtime_us, runtime, sizeof(runtime));
	format_duration_us(fs->period_us, period, sizeof(period));
	snprintf(buf, len, "%s/%s", fs->runtime_us ? runtime : "0", period);
}

void policy_with_fair_server(struct policy *p, const struct policy_fair_server *fs)
{
	char runtime[24], period[24] = "";
	size_t used;

	if (p->fair_server.set || !fs->set)
		return;
	p->fair_server = *fs;
	format_duration_us(fs->runtime_us, runtime, sizeof(runtime));
	/* The kernel's default period goes without saying, as in the grid's fair_server axis. */
	if (fs->period_us && fs->period_us != FAIR_SERVER_DEFAULT_PERIOD_US) {
		period[0] = 'p';
		format_duration_us(fs->period_us, period + 1, sizeof(period) - 1);
	}
	used = strlen(p->name);
	snprintf(p->name + used, sizeof(p->name) - used, "-fs%s%s", fs->runtime_us ? runtime : "0", period);
}
