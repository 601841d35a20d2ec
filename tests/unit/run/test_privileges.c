// SPDX-License-Identifier: GPL-2.0-only
/* privileges_case_missing: which cases a run without some privileges can still measure. */
#include "privileges.h"
#include "unit.h"

#include <sched.h>
#include <string.h>

static const struct privileges root = {
	.root = true, .write_knobs = true, .write_cgroups = true, .write_stat_refresh = true,
	.cap_sys_nice = true, .nice_min = -20, .rt_priority_max = 99,
};

/* The default knobs in force, without the RT cgroup. */
static struct knobs default_knobs(void)
{
	struct knobs k = { 0 };

	k.value[KNOB_SYSCTL_RUNTIME] = 950000;
	k.value[KNOB_SYSCTL_PERIOD] = 1000000;
	return k;
}

static struct scenario hog_and_victim(int hog_policy, int hog_priority)
{
	struct scenario s = { .name = "unit", .task_count = 2 };

	s.tasks[0] = (struct scenario_task){ .name = "hog", .role = ROLE_HOG, .sched_policy = hog_policy,
					     .priority = hog_priority };
	s.tasks[1] = (struct scenario_task){ .name = "victim", .role = ROLE_VICTIM, .sched_policy = SCHED_OTHER };
	return s;
}

static const struct policy dflt = { .name = "default", .runtime_us = 950000, .period_us = 1000000 };
static const struct policy unlimited = { .name = "unlimited", .runtime_us = -1, .period_us = 1000000 };

static void expect_missing(const char *label, const struct privileges *p, const struct scenario *s,
			   const struct policy *policy, const char *want)
{
	struct knobs in_force = default_knobs();
	char buf[320];
	const char *why = privileges_case_missing(p, s, policy, &in_force, buf, sizeof(buf));

	if (!want)
		CHECK(why == NULL, "%s: refused (%s)", label, why ? why : "");
	else
		CHECK(why && strstr(why, want), "%s: reason '%s', wanted one with '%s'", label, why ? why : "(none)",
		      want);
}

TEST(privileges_root_runs_everything)
{
	struct scenario s = hog_and_victim(SCHED_FIFO, 99);

	s.cgroup_count = 1;
	expect_missing("root, default", &root, &s, &dflt, NULL);
	expect_missing("root, unlimited", &root, &s, &unlimited, NULL);
}

TEST(privileges_without_knob_writes_only_the_policy_in_force)
{
	struct privileges p = root;
	struct scenario s = hog_and_victim(SCHED_FIFO, 50);

	p.write_knobs = false;
	expect_missing("policy equal to the knobs", &p, &s, &dflt, NULL);
	expect_missing("another policy", &p, &s, &unlimited, "differs from the knobs in force (950000/1000000)");
}

TEST(privileges_rt_priority_limit)
{
	struct privileges p = root;
	struct scenario s = hog_and_victim(SCHED_RR, 50);

	p.cap_sys_nice = false;
	p.rt_priority_max = 49;
	expect_missing("RR 50 over RLIMIT_RTPRIO 49", &p, &s, &dflt, "priority 50 needs CAP_SYS_NICE or RLIMIT_RTPRIO >= 50");
	p.rt_priority_max = 50;
	expect_missing("RR 50 within RLIMIT_RTPRIO 50", &p, &s, &dflt, NULL);
	/* The periodic role's loop is calibrated at SCHED_FIFO, even for a SCHED_OTHER job. */
	s.tasks[0] = (struct scenario_task){ .name = "app", .role = ROLE_PERIODIC, .sched_policy = SCHED_OTHER };
	p.rt_priority_max = 0;
	expect_missing("periodic without any RT priority", &p, &s, &dflt, "priority 1");
}

TEST(privileges_deadline_cgroups_kernel_work_nice)
{
	struct privileges p = root;
	struct scenario s = hog_and_victim(SCHED_DEADLINE, 0);

	p.cap_sys_nice = false;
	expect_missing("deadline without CAP_SYS_NICE", &p, &s, &dflt, "SCHED_DEADLINE needs CAP_SYS_NICE");
	s = hog_and_victim(SCHED_FIFO, 50);
	s.tasks[1].priority = -5;	/* nice */
	p.nice_min = 0;
	expect_missing("nice -5 without RLIMIT_NICE", &p, &s, &dflt, "nice -5 needs CAP_SYS_NICE or RLIMIT_NICE >= 25");
	s.tasks[1].priority = 0;
	s.cgroup_count = 1;
	p.write_cgroups = false;
	expect_missing("RT cgroups", &p, &s, &dflt, "creating RT cgroups");
	s.cgroup_count = 0;
	s.tasks[1].role = ROLE_KERNEL_WORK;
	p.write_stat_refresh = false;
	expect_missing("kernel work", &p, &s, &dflt, "stat_refresh");
}
