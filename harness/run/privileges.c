// SPDX-License-Identifier: GPL-2.0-only
/* Probed as the kernel checks (effective ids, capabilities, rlimits); each case's needs held against it. */
#include "privileges.h"
#include "util.h"
#include "sysinfo.h"

#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CPU_CGROUP "/sys/fs/cgroup/cpu"
#define RT_PRIORITY_TOP 99

/* Checked with the effective ids, as the kernel checks the writes. */
static bool writable(const char *path)
{
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

void privileges_probe(struct privileges *out)
{
	struct rlimit rtprio = { 0, 0 }, nice = { 0, 0 };

	*out = (struct privileges){ .root = geteuid() == 0 };
	out->write_knobs = writable(knob_path(KNOB_SYSCTL_RUNTIME)) && writable(knob_path(KNOB_SYSCTL_PERIOD));
	out->write_cgroups = writable(CPU_CGROUP);
	out->write_stat_refresh = writable("/proc/sys/vm/stat_refresh");
	out->cap_sys_nice = (sysinfo_effective_caps() >> CAP_SYS_NICE_BIT) & 1;
	getrlimit(RLIMIT_RTPRIO, &rtprio);
	if (out->cap_sys_nice || rtprio.rlim_cur == RLIM_INFINITY || rtprio.rlim_cur >= RT_PRIORITY_TOP)
		out->rt_priority_max = RT_PRIORITY_TOP;
	else
		out->rt_priority_max = (int)rtprio.rlim_cur;
	getrlimit(RLIMIT_NICE, &nice);
	/* RLIMIT_NICE n allows nice down to 20 - n. */
	if (out->cap_sys_nice || nice.rlim_cur == RLIM_INFINITY || nice.rlim_cur >= 40)
		out->nice_min = -20;
	else
		out->nice_min = 20 - (int)nice.rlim_cur < 0 ? 20 - (int)nice.rlim_cur : 0;
}

bool privileges_complete(const struct privileges *p)
{
	return p->write_knobs && p->cap_sys_nice && p->rt_priority_max >= RT_PRIORITY_TOP;
}

static const char *const how_to_get_root = "run as root (sudo rtthrottle run ...)";
static const char *const how_to_get_rt =
	"raise RLIMIT_RTPRIO (a '<user> - rtprio 99' line in /etc/security/limits.conf, or "
	"'prlimit --rtprio=99' on the shell), or grant CAP_SYS_NICE";

static int highest_rt_priority(const struct scenario *s, bool *deadline, int *lowest_nice)
{
	int top = 0;

	*deadline = false;
	*lowest_nice = 0;
	for (int t = 0; t < s->task_count; t++) {
		const struct scenario_task *task = &s->tasks[t];

		if (task->sched_policy == SCHED_DEADLINE)
			*deadline = true;
		else if (task->sched_policy != SCHED_OTHER && task->priority > top)
			top = task->priority;
		/* The periodic role's work loop is calibrated at SCHED_FIFO (see run.c). */
		else if (task->role == ROLE_PERIODIC && top < 1)
			top = 1;
		if (task->sched_policy == SCHED_OTHER && task->priority < *lowest_nice)
			*lowest_nice = task->priority;
	}
	return top;
}

static bool uses_role(const struct scenario *s, enum task_role role)
{
	for (int t = 0; t < s->task_count; t++)
		if (s->tasks[t].role == role)
			return true;
	return false;
}

const char *privileges_case_missing(const struct privileges *p, const struct scenario *s,
				    const struct policy *policy, const struct knobs *in_force, char *buf, size_t len)
{
	struct knobs target = knobs_target(in_force, policy->runtime_us, policy->period_us);
	bool deadline;
	int lowest_nice, top = highest_rt_priority(s, &deadline, &lowest_nice);

	if (!p->write_knobs && !knobs_equal(&target, in_force)) {
		snprintf(buf, len, "policy %s (%" PRId64 "/%" PRId64 ") differs from the knobs in force (%" PRId64
			 "/%" PRId64 ") and writing them needs root",
			 policy->name, policy->runtime_us, policy->period_us, in_force->value[KNOB_SYSCTL_RUNTIME],
			 in_force->value[KNOB_SYSCTL_PERIOD]);
		return buf;
	}
	if (s->cgroup_count && !p->write_cgroups) {
		snprintf(buf, len, "creating RT cgroups under %s needs root", CPU_CGROUP);
		return buf;
	}
	if (uses_role(s, ROLE_INVALID_WRITES) && !p->write_knobs) {
		snprintf(buf, len, "the invalid-writes task writes the throttling knobs, which needs root");
		return buf;
	}
	if (uses_role(s, ROLE_KERNEL_WORK) && !p->write_stat_refresh) {
		snprintf(buf, len, "the kernel-work task writes /proc/sys/vm/stat_refresh, which needs root");
		return buf;
	}
	if (deadline && !p->cap_sys_nice) {
		snprintf(buf, len, "SCHED_DEADLINE needs CAP_SYS_NICE");
		return buf;
	}
	if (top > p->rt_priority_max) {
		snprintf(buf, len, "SCHED_FIFO/RR priority %d needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d (it is %d)",
			 top, top, p->rt_priority_max);
		return buf;
	}
	if (lowest_nice < p->nice_min) {
		snprintf(buf, len, "nice %d needs CAP_SYS_NICE or RLIMIT_NICE >= %d", lowest_nice, 20 - lowest_nice);
		return buf;
	}
	return NULL;
}

void privileges_explain(const struct privileges *p, const struct knobs *in_force)
{
	rtt_err("running with limited privileges (euid %d); the cases that need nothing "
		"missing run, the others are skipped with the reason:", (int)geteuid());
	if (!p->write_knobs)
		fprintf(stderr, "  - the knobs cannot be written: only policies equal to those in force (%" PRId64
				"/%" PRId64 ") run, the regime probe is skipped; to run all: %s\n",
			in_force->value[KNOB_SYSCTL_RUNTIME], in_force->value[KNOB_SYSCTL_PERIOD], how_to_get_root);
	if (p->rt_priority_max < RT_PRIORITY_TOP)
		fprintf(stderr, "  - SCHED_FIFO/RR allowed up to priority %d (RLIMIT_RTPRIO); for more: %s\n",
			p->rt_priority_max, how_to_get_rt);
	if (!p->cap_sys_nice)
		fprintf(stderr, "  - no CAP_SYS_NICE: SCHED_DEADLINE tasks cannot run; %s\n", how_to_get_root);
	if (!p->write_cgroups)
		fprintf(stderr, "  - %s is not writable: RT cgroup scenarios cannot run; %s\n", CPU_CGROUP,
			how_to_get_root);
}
