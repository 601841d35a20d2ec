// SPDX-License-Identifier: GPL-2.0-only
/*
 * knobs_apply on knob files in a temp folder: nothing is written without a plan there and back,
 * and a write that fails names its step, file, value and likely cause.
 */
#include "fair_server.h"
#include "knob_plan.h"
#include "knobs.h"
#include "plan_replay.h"
#include "unit.h"
#include "unit_fixtures.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A knob file that holds a number but refuses every write, even root's (mode 0444 in procfs). */
static const char read_only_number[] = "/proc/sys/kernel/ngroups_max";

static bool put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		CHECK(0, "cannot write %s", path);
		return false;
	}
	return true;
}

/* Sysctls in `dir`; no cgroup folder, so the plans leave the cgroup pair alone. */
static int apply_in(const char *dir, const struct knobs *target, char *said, size_t len)
{
	struct stderr_capture cap;
	char no_cgroup[PATH_MAX];
	bool ok = false;

	snprintf(no_cgroup, sizeof(no_cgroup), "%s/no-cgroup", dir);
	knobs_set_roots(dir, no_cgroup);
	fair_server_set_root(no_cgroup);	/* nor a fair server: the host's is not read */
	if (stderr_capture_begin(&cap, dir)) {
		ok = knobs_apply(target, &fair_server_default);
		stderr_capture_end(&cap, said, len);
	}
	knobs_set_roots("/proc/sys/kernel", "/sys/fs/cgroup/cpu");
	fair_server_set_root(NULL);
	return ok;
}

TEST(knobs_apply_below_the_floor_writes_nothing)
{
	struct knobs target = make_knobs(40000, 1000000, 0, 0, false), now;
	char dir[64], said[1024];

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	if (put(dir, "sched_rt_runtime_us", "950000\n") && put(dir, "sched_rt_period_us", "1000000\n")) {
		CHECK(!apply_in(dir, &target, said, sizeof(said)), "40000/1000000 applied under the fair server");
		CHECK(strstr(said, "ratio 0.040 is below the deadline bandwidth") && strstr(said, "nothing written"),
		      "refusal: '%s'", said);
		knobs_set_roots(dir, "/nonexistent");
		CHECK(knobs_read(&now) && now.value[KNOB_SYSCTL_RUNTIME] == 950000 &&
			      now.value[KNOB_SYSCTL_PERIOD] == 1000000,
		      "the knobs changed: %lld/%lld", (long long)now.value[0], (long long)now.value[1]);
		knobs_set_roots("/proc/sys/kernel", "/sys/fs/cgroup/cpu");
	}
	remove_temp_dir(dir);
}

TEST(knobs_apply_names_the_step_that_fails)
{
	/* From 45000/65536 to 1000/10000: -1 first (1000 alone is 1.5%), then the period, which fails. */
	struct knobs target = make_knobs(1000, 10000, 0, 0, false);
	char dir[64], link[PATH_MAX], said[1024], want[PATH_MAX + 100];
	int64_t number;

	if (!read_i64_file(read_only_number, &number) || number != 65536) {
		printf("# SKIP %s does not hold 65536 here\n", read_only_number);
		return;
	}
	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(link, sizeof(link), "%s/sched_rt_period_us", dir);
	if (put(dir, "sched_rt_runtime_us", "45000\n") && symlink(read_only_number, link) == 0) {
		CHECK(!apply_in(dir, &target, said, sizeof(said)), "a write into %s succeeded", read_only_number);
		snprintf(want, sizeof(want), "step 2 of 3 towards 1000/10000: writing 10000 to %s failed: ", link);
		CHECK(strstr(said, want) && strstr(said, "needs root"), "message: '%s'", said);
	}
	unlink(link);
	remove_temp_dir(dir);
}
