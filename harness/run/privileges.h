/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What this process may do: write the knobs, create RT cgroups, run SCHED_FIFO/RR (up to which
 * priority) and SCHED_DEADLINE. A run without some of it still runs the cases that need none of
 * the missing parts and skips the others, each with the reason.
 */
#ifndef RTT_PRIVILEGES_H
#define RTT_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobs.h"
#include "policy.h"
#include "scenario.h"

struct privileges {
	bool root;		/* effective uid 0 */
	bool write_knobs;	/* sched_rt_runtime_us is writable */
	bool write_cgroups;	/* the cgroup v1 cpu hierarchy accepts new groups */
	bool write_stat_refresh;	/* /proc/sys/vm/stat_refresh (the kernel-work role) */
	bool cap_sys_nice;
	int nice_min;		/* lowest nice value allowed (RLIMIT_NICE, CAP_SYS_NICE) */
	int rt_priority_max;	/* highest SCHED_FIFO/RR priority allowed; 0: none */
};

void privileges_probe(struct privileges *out);
/* Everything a measuring run may need is there (the root case). */
bool privileges_complete(const struct privileges *p);
/*
 * Why a case (scenario under policy, with the knobs in force) cannot run with these
 * privileges, or NULL. The text says what is missing and how to get it.
 */
const char *privileges_case_missing(const struct privileges *p, const struct scenario *s,
				    const struct policy *policy, const struct knobs *in_force, char *buf, size_t len);
/* Prints to stderr what is missing and how to get it. */
void privileges_explain(const struct privileges *p, const struct knobs *in_force);

#endif
