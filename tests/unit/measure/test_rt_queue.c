// SPDX-License-Identifier: GPL-2.0-only
/* The RT run queue's block in the scheduler's debug file: the root group's, of the asked CPU. */
#include "rt_queue.h"
#include "unit.h"

#include <math.h>
#include <string.h>

/* 6.18 with RT group scheduling: a child group's queue first, then the root's; CPU 0 and 1. */
static const char group_sched[] =
	"cpu#1\n"
	"  .nr_running                    : 2\n"
	"\n"
	"rt_rq[1]:/rtt-a\n"
	"  .rt_nr_running                 : 1\n"
	"  .rt_throttled                  : 1\n"
	"  .rt_time                       : 300.000000\n"
	"  .rt_runtime                    : 300.000000\n"
	"\n"
	"rt_rq[0]:/\n"
	"  .rt_nr_running                 : 0\n"
	"  .rt_throttled                  : 0\n"
	"  .rt_time                       : 0.000000\n"
	"  .rt_runtime                    : 950.000000\n"
	"\n"
	"rt_rq[1]:/\n"
	"  .rt_nr_running                 : 1\n"
	"  .rt_throttled                  : 1\n"
	"  .rt_time                       : 950.027980\n"
	"  .rt_runtime                    : 950.000000\n"
	"\n"
	"dl_rq[1]:\n"
	"  .dl_nr_running                 : 0\n";

/* Without group scheduling the root queue has no path; -1 (RUNTIME_INF) prints as 1 ns. */
static const char flat[] =
	"rt_rq[1]:\n"
	"  .rt_nr_running                 : 0\n"
	"  .rt_throttled                  : 0\n"
	"  .rt_time                       : 48.899035\n"
	"  .rt_runtime                    : 0.000001\n"
	"\n";

static bool parse(const char *text, int cpu, struct rt_queue_state *q)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool ok = f && rt_queue_parse(f, cpu, q);

	if (f)
		fclose(f);
	return ok;
}

TEST(rt_queue_reads_the_root_group_of_the_asked_cpu)
{
	struct rt_queue_state q;

	CHECK(parse(group_sched, 1, &q), "CPU 1's root queue found");
	CHECK(q.cpu == 1 && q.throttled && q.nr_running == 1 && fabs(q.rt_time_us - 950027.98) < 0.01 &&
		      fabs(q.runtime_us - 950000) < 0.01,
	      "throttled %d, %d running, rt_time %.2f us, runtime %.0f us", q.throttled, q.nr_running, q.rt_time_us,
	      q.runtime_us);
	CHECK(parse(group_sched, 0, &q) && !q.throttled && q.rt_time_us == 0, "CPU 0: %.2f us", q.rt_time_us);
}

TEST(rt_queue_without_group_scheduling_and_unlimited)
{
	struct rt_queue_state q;

	CHECK(parse(flat, 1, &q) && fabs(q.rt_time_us - 48899.035) < 0.01 && q.runtime_us == -1,
	      "rt_time %.3f us, runtime %.0f", q.rt_time_us, q.runtime_us);
}

TEST(rt_queue_absent_or_cut_short_is_not_read)
{
	struct rt_queue_state q;

	CHECK(!parse(group_sched, 3, &q), "no CPU 3");
	CHECK(!parse("rt_rq[1]:/\n  .rt_nr_running : 0\n\n", 1, &q), "a block without rt_time");
	CHECK(!parse("", 1, &q), "an empty file");
}
