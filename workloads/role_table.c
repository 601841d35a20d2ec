// SPDX-License-Identifier: GPL-2.0-only
/* The task roles: name, body, parameters with their defaults. */
#include "role_table.h"
#include "roles.h"

#include <stdio.h>
#include <string.h>

static const struct role_info roles[ROLE_COUNT] = {
	[ROLE_HOG] = { "hog", role_spin, true, "a SCHED_FIFO/RR spinner: its gaps are when it was throttled or preempted",
		       { { "rttime_soft_us", 0, "RLIMIT_RTTIME soft limit (0: from the window)" },
			 { "rttime_hard_us", 0, "RLIMIT_RTTIME hard limit (0: from the window; set: it may be killed)" } } },
	[ROLE_VICTIM] = { "victim", role_spin, true, "a spinner on the hog's CPU: its gaps are its starvation",
			  { { "running_before_ms", 0, "starts spinning this long before the window" } } },
	[ROLE_NOISE] = { "noise", role_spin, false, "a SCHED_OTHER spinner alone: the machine's own noise floor", { { 0 } } },
	[ROLE_PROBE] = { "probe", role_probe, true, "periodic wake-ups: their latency",
			 { { "interval_us", 1000, "wake-up interval" },
			   { "phase_us", 0, "wake on the CLOCK_MONOTONIC grid at this phase", "from the window start" } } },
	[ROLE_PERIODIC] = { "periodic", role_periodic, true,
			    "calibrated work every period: jobs, deadline misses, response time",
			    { { "period_us", 10000, "job period" },
			      { "utilisation", 0.5, "CPU time per job over the period" },
			      { "dl_runtime_us", 0, "SCHED_DEADLINE runtime (0: not a deadline task)" },
			      { "dl_period_us", 0, "SCHED_DEADLINE period", "period_us" } } },
	[ROLE_ADMIN] = { "admin", role_admin, true, "kills a runaway task at a moment: time to regain control",
			 { { "act_at_ms", 500, "when it acts, from the window start" },
			   { "target", 0, "the task it kills, by name", "the first task" } } },
	[ROLE_BURST_HOG] = { "burst-hog", role_burst_hog, true, "mostly light, busy without a break for a burst now and then",
			     { { "burst_ms", 2000, "burst length" }, { "every_ms", 4000, "one burst every this long" } } },
	[ROLE_KERNEL_WORK] = { "kernel-work", role_kernel_work, true, "waits for per-CPU kernel work on the measured CPU",
			       { { "interval_us", 100000, "how often it queues work" } } },
	[ROLE_CALIBRATE] = { "calibrate", role_calibrate, false, "loops per microsecond of the periodic work loop",
			     { { 0 } } },
	[ROLE_CYCLICTEST] = { "cyclictest", role_cyclictest, true, "rt-tests' cyclictest for the window: the reference probe",
			      { { "interval_us", 1000, "cyclictest -i" },
				{ "histogram_us", 100000, "cyclictest -h: p99 stays inside it up to 100 ms latencies" } } },
	[ROLE_LOAD] = { "load", role_load, false, "a background load (hackbench, stress-ng) for the window", { { 0 } } },
	[ROLE_INVALID_WRITES] = { "invalid-writes", role_invalid_writes, true,
				  "tries knob values the kernel must refuse: its validation",
				  { { "act_at_ms", 100, "when it tries them, from the window start" } } },
	[ROLE_TIMERLAT] = { "timerlat", role_timerlat, true,
			    "rtla timerlat hist for the window: the kernel's timerlat tracer as a third probe",
			    { { "interval_us", 1000, "rtla timerlat -p" },
			      { "histogram_us", 100000, "rtla timerlat -E (1 us entries): latencies above it count only in over and max" },
			      { "stop_us", 0, "rtla timerlat -T: a thread latency that stops the trace (0: none)" } },
			    timerlat_prepare },
};

const struct role_info *role_info(enum task_role role)
{
	return (unsigned)role < ROLE_COUNT ? &roles[role] : NULL;
}

const char *role_name(enum task_role role)
{
	return (unsigned)role < ROLE_COUNT ? roles[role].name : "unknown";
}

enum task_role role_by_name(const char *name)
{
	for (int r = 0; r < ROLE_COUNT; r++)
		if (roles[r].in_scenarios && !strcmp(name, roles[r].name))
			return (enum task_role)r;
	return ROLE_COUNT;
}

const struct role_param *role_param_find(enum task_role role, const char *name)
{
	const struct role_info *ri = role_info(role);

	for (int i = 0; ri && ri->params[i].name; i++)
		if (!strcmp(ri->params[i].name, name))
			return &ri->params[i];
	return NULL;
}

void role_names_list(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int r = 0; r < ROLE_COUNT && at < len; r++)
		if (roles[r].in_scenarios)
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "", roles[r].name);
}

void role_params_list(enum task_role role, char *buf, size_t len)
{
	const struct role_info *ri = role_info(role);
	size_t at = 0;

	snprintf(buf, len, "none");
	for (int i = 0; ri && ri->params[i].name && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? "," : "", ri->params[i].name);
}
