// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fair server as knobs in a temp folder (sysctls and fair_server/cpuN/{runtime,period} for
 * every online CPU): read alike, applied in a valid order, a refused write undone on the CPUs
 * already written, a target that needs it refused where it cannot be read, and a state file's
 * values put back by state_restore.
 */
#include "fair_server.h"
#include "knobs.h"
#include "plan_replay.h"
#include "state.h"
#include "sysinfo.h"
#include "unit.h"
#include "unit_fixtures.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MS_NS 1000000ll

static bool put_number(const char *path, int64_t value)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%" PRId64 "\n", value) < 0 || fclose(f)) {
		CHECK(0, "cannot write %s", path);
		return false;
	}
	return true;
}

/* dir holds the sysctls at runtime/period and dir/fs the fair server of every online CPU. */
static bool make_fixture(const char *dir, int64_t runtime, int64_t period, int64_t fs_runtime, int64_t fs_period)
{
	char path[PATH_MAX];
	bool ok;

	snprintf(path, sizeof(path), "%s/sched_rt_runtime_us", dir);
	ok = put_number(path, runtime);
	snprintf(path, sizeof(path), "%s/sched_rt_period_us", dir);
	ok = ok && put_number(path, period);
	snprintf(path, sizeof(path), "%s/fs", dir);
	ok = ok && mkdir(path, 0700) == 0;
	for (int cpu = 0; ok && cpu <= cpu_last_online(); cpu++) {
		snprintf(path, sizeof(path), "%s/fs/cpu%d", dir, cpu);
		ok = mkdir(path, 0700) == 0;
		snprintf(path, sizeof(path), "%s/fs/cpu%d/runtime", dir, cpu);
		ok = ok && put_number(path, fs_runtime);
		snprintf(path, sizeof(path), "%s/fs/cpu%d/period", dir, cpu);
		ok = ok && put_number(path, fs_period);
	}
	CHECK(ok, "fixture in %s not made", dir);
	return ok;
}

static void use_fixture(const char *dir)
{
	char no_cgroup[PATH_MAX], fs[PATH_MAX];

	snprintf(no_cgroup, sizeof(no_cgroup), "%s/no-cgroup", dir);
	snprintf(fs, sizeof(fs), "%s/fs", dir);
	knobs_set_roots(dir, no_cgroup);
	fair_server_set_root(fs);
}

static void use_system(void)
{
	knobs_set_roots("/proc/sys/kernel", "/sys/fs/cgroup/cpu");
	fair_server_set_root(NULL);
}

static int64_t cpu_value(const char *dir, int cpu, const char *file)
{
	char path[PATH_MAX];
	int64_t v = -99;

	snprintf(path, sizeof(path), "%s/fs/cpu%d/%s", dir, cpu, file);
	read_i64_file(path, &v);
	return v;
}

/* Every online CPU's fair server holds runtime/period. */
static bool every_cpu_holds(const char *dir, int64_t runtime, int64_t period)
{
	for (int cpu = 0; cpu <= cpu_last_online(); cpu++)
		if (cpu_is_online(cpu) &&
		    (cpu_value(dir, cpu, "runtime") != runtime || cpu_value(dir, cpu, "period") != period))
			return false;
	return true;
}

static bool apply_captured(const char *dir, const struct knobs *target, char *said, size_t len)
{
	struct stderr_capture cap;
	bool ok = false;

	if (stderr_capture_begin(&cap, dir)) {
		ok = knobs_apply(target, &fair_server_default);
		stderr_capture_end(&cap, said, len);
	}
	return ok;
}

TEST(fair_server_knobs_read_alike)
{
	char dir[64], path[PATH_MAX];
	struct knobs k;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	if (make_fixture(dir, 950000, 1000000, 50 * MS_NS, 1000 * MS_NS)) {
		use_fixture(dir);
		CHECK(knobs_read(&k) && k.has_fair_server && k.value[KNOB_FAIR_SERVER_RUNTIME] == 50 * MS_NS &&
			      k.value[KNOB_FAIR_SERVER_PERIOD] == 1000 * MS_NS,
		      "read %d %" PRId64 "/%" PRId64, k.has_fair_server, k.value[KNOB_FAIR_SERVER_RUNTIME],
		      k.value[KNOB_FAIR_SERVER_PERIOD]);
		/* CPUs that differ are no one setting: the fair server is not a knob then. */
		snprintf(path, sizeof(path), "%s/fs/cpu%d/runtime", dir, cpu_last_online());
		if (cpus_online_count() > 1 && put_number(path, 10 * MS_NS))
			CHECK(knobs_read(&k) && !k.has_fair_server && strstr(knobs_fair_server_why(), "differs between CPUs"),
			      "differing CPUs read as one: %s", knobs_fair_server_why());
		fair_server_set_root("/nonexistent-fair-server");
		CHECK(knobs_read(&k) && !k.has_fair_server && strstr(knobs_fair_server_why(), "/nonexistent-fair-server"),
		      "a missing folder: %s", knobs_fair_server_why());
		use_system();
	}
	remove_temp_dir(dir);
}

TEST(fair_server_knobs_apply_and_back)
{
	struct policy policy = { .runtime_us = 30000, .period_us = 1000000,
				 .fair_server = { .set = true, .runtime_us = 10000, .period_us = 0 } };
	char dir[64], said[1024] = "";
	struct knobs before, target, now;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	if (make_fixture(dir, 950000, 1000000, 50 * MS_NS, 1000 * MS_NS)) {
		use_fixture(dir);
		CHECK(knobs_read(&before) && before.has_fair_server, "fixture unread");
		target = knobs_for_policy(&before, &policy);
		/* 3% RT is below the 5% fair server: only the fair server's decrease first makes it valid. */
		CHECK(apply_captured(dir, &target, said, sizeof(said)), "3%% with a 1%% fair server refused: %s", said);
		CHECK(knobs_read(&now) && now.value[KNOB_SYSCTL_RUNTIME] == 30000 &&
			      every_cpu_holds(dir, 10 * MS_NS, 1000 * MS_NS),
		      "not applied: %" PRId64 ", cpu0 %" PRId64, now.value[KNOB_SYSCTL_RUNTIME],
		      cpu_value(dir, 0, "runtime"));
		/* A target silent on the fair server leaves it as it is. */
		target = knobs_target(&now, 40000, 1000000);
		target.has_fair_server = false;
		CHECK(apply_captured(dir, &target, said, sizeof(said)) && every_cpu_holds(dir, 10 * MS_NS, 1000 * MS_NS),
		      "the fair server moved under a target without it: %s", said);
		CHECK(apply_captured(dir, &before, said, sizeof(said)), "back refused: %s", said);
		CHECK(knobs_read(&now) && knobs_equal(&now, &before) && every_cpu_holds(dir, 50 * MS_NS, 1000 * MS_NS),
		      "not back: %" PRId64 ", cpu0 %" PRId64, now.value[KNOB_SYSCTL_RUNTIME], cpu_value(dir, 0, "runtime"));
		use_system();
	}
	remove_temp_dir(dir);
}

/* A knob file that holds a number but refuses every write, even root's (mode 0444 in procfs). */
static const char read_only_number[] = "/proc/sys/kernel/ngroups_max";

TEST(fair_server_knobs_refused_write_is_undone)
{
	struct policy policy = { .runtime_us = 950000, .period_us = 1000000,
				 .fair_server = { .set = true, .runtime_us = 0 } };
	char dir[64], path[PATH_MAX], said[1024] = "";
	struct knobs before, target;
	int last = cpu_last_online();
	int64_t number;

	if (cpus_online_count() < 2 || !read_i64_file(read_only_number, &number) || number != 65536) {
		printf("# SKIP needs two online CPUs and %s holding 65536\n", read_only_number);
		return;
	}
	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	/* Every CPU at 65536 ns, the last one's file the read-only number: read alike, refused last. */
	if (make_fixture(dir, 950000, 1000000, 65536, 1000 * MS_NS)) {
		use_fixture(dir);
		snprintf(path, sizeof(path), "%s/fs/cpu%d/runtime", dir, last);
		CHECK(unlink(path) == 0 && symlink(read_only_number, path) == 0, "symlink %s", path);
		CHECK(knobs_read(&before) && before.has_fair_server, "fixture unread: %s", knobs_fair_server_why());
		target = knobs_for_policy(&before, &policy);
		CHECK(!apply_captured(dir, &target, said, sizeof(said)), "a refused fair server write succeeded");
		CHECK(strstr(said, path) && strstr(said, "writing 0 to"), "message: '%s'", said);
		for (int cpu = 0; cpu < last; cpu++)
			CHECK(!cpu_is_online(cpu) || cpu_value(dir, cpu, "runtime") == 65536,
			      "CPU %d kept %" PRId64 " after the refused write", cpu, cpu_value(dir, cpu, "runtime"));
		unlink(path);
		use_system();
	}
	remove_temp_dir(dir);
}

TEST(fair_server_knobs_unreadable_writes_nothing)
{
	struct policy policy = { .runtime_us = 950000, .period_us = 1000000,
				 .fair_server = { .set = true, .runtime_us = 0 } };
	char dir[64], said[1024] = "";
	struct knobs before, target, now;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	if (make_fixture(dir, 500000, 1000000, 50 * MS_NS, 1000 * MS_NS)) {
		use_fixture(dir);
		fair_server_set_root("/nonexistent-fair-server");
		CHECK(knobs_read(&before) && !before.has_fair_server, "a missing fair server read");
		target = knobs_for_policy(&before, &policy);
		target.value[KNOB_SYSCTL_RUNTIME] = 950000;
		CHECK(!apply_captured(dir, &target, said, sizeof(said)), "applied without the fair server");
		CHECK(strstr(said, "the fair server cannot be set") && strstr(said, "nothing written"), "message: '%s'",
		      said);
		CHECK(knobs_read(&now) && now.value[KNOB_SYSCTL_RUNTIME] == 500000, "the sysctl changed: %" PRId64,
		      now.value[KNOB_SYSCTL_RUNTIME]);
		use_system();
	}
	remove_temp_dir(dir);
}

TEST(fair_server_state_restore_puts_it_back)
{
	static const char saved[] = "{ \"pid\": 999999, \"knobs\": { \"sched_rt_runtime_us\": 950000, "
				    "\"sched_rt_period_us\": 1000000, \"fair_server_runtime_ns\": 50000000, "
				    "\"fair_server_period_ns\": 1000000000 } }";
	char dir[64], path[PATH_MAX], *old_env;
	struct knobs now;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	/* A dead run left RT at -1 and the fair server off, as the posix policy sets them. */
	if (make_fixture(dir, -1, 1000000, 0, 1000 * MS_NS)) {
		old_env = env_set("RTTHROTTLE_STATE_DIR", dir);
		snprintf(path, sizeof(path), "%s/state.json", dir);
		use_fixture(dir);
		CHECK(write_file_atomic(path, saved, strlen(saved)) == 0, "state file not written");
		CHECK(state_restore(), "state_restore failed");
		CHECK(knobs_read(&now) && now.value[KNOB_SYSCTL_RUNTIME] == 950000 &&
			      every_cpu_holds(dir, 50 * MS_NS, 1000 * MS_NS),
		      "not restored: %" PRId64 ", cpu0 %" PRId64 "/%" PRId64, now.value[KNOB_SYSCTL_RUNTIME],
		      cpu_value(dir, 0, "runtime"), cpu_value(dir, 0, "period"));
		CHECK(access(path, F_OK) != 0, "the state file is still there after a restore");
		use_system();
		env_restore("RTTHROTTLE_STATE_DIR", old_env);
	}
	remove_temp_dir(dir);
}

/*
 * Debian's 6.12.118 boots with its root domain's admitted deadline bandwidth at 0 while two
 * 50 ms servers run: a server changed then takes it below zero, and sched_rt_runtime_us may not
 * be written back (EBUSY, measured under QEMU). Such a kernel's fair server is not changed.
 */
TEST(fair_server_accounting_that_lost_the_servers_is_refused)
{
	char dir[64], path[PATH_MAX], why[420] = "";
	FILE *f;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/debug", dir);
	fair_server_set_sched_debug(path);
	CHECK(fair_server_accounted(50 * MS_NS, 1000 * MS_NS, why, sizeof(why)), "an unreadable file: %s", why);
	if ((f = fopen(path, "w"))) {
		fputs("dl_rq[0]:\n  .dl_nr_running                 : 0\n  .dl_bw->bw                     : 996147\n"
		      "  .dl_bw->total_bw               : 0\ndl_rq[1]:\n  .dl_bw->total_bw               : 0\n", f);
		fclose(f);
		CHECK(!fair_server_accounted(50 * MS_NS, 1000 * MS_NS, why, sizeof(why)) && strstr(why, "total_bw 0") &&
			      strstr(why, "EBUSY"),
		      "lost servers: %s", why);
		CHECK(fair_server_accounted(0, 1000 * MS_NS, why, sizeof(why)), "servers off hold nothing");
	}
	if ((f = fopen(path, "w"))) {
		/* Each CPU in a root domain of its own (isolcpus): one 50 ms of 1 s server each, 52428. */
		fputs("dl_rq[0]:\n  .dl_bw->total_bw               : 52428\n"
		      "dl_rq[1]:\n  .dl_bw->total_bw               : 52428\n", f);
		fclose(f);
		CHECK(fair_server_accounted(50 * MS_NS, 1000 * MS_NS, why, sizeof(why)), "held: %s", why);
	}
	if ((f = fopen(path, "w"))) {
		/* One CPU's root domain held, the other's had its server taken out after it was lost. */
		fputs("dl_rq[0]:\n  .dl_bw->total_bw               : 104857\n"
		      "dl_rq[1]:\n  .dl_bw->total_bw               : -83886\n", f);
		fclose(f);
		CHECK(!fair_server_accounted(50 * MS_NS, 1000 * MS_NS, why, sizeof(why)) && strstr(why, "-83886") &&
			      strstr(why, "(52428)"),
		      "one root domain lost it: %s", why);
	}
	fair_server_set_sched_debug(NULL);
	remove_temp_dir(dir);
}

/*
 * A kernel whose fair server was never started reads 0/0 ns: no state the kernel would accept,
 * so not a knob (every plan from it would be refused, the default policy's too: a mutant kernel
 * of that kind ended its runs with exit 2 before this).
 */
TEST(fair_server_reading_no_valid_state_is_left_alone)
{
	char dir[64];
	struct knobs k;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	if (make_fixture(dir, 950000, 1000000, 0, 0)) {
		use_fixture(dir);
		CHECK(knobs_read(&k) && !k.has_fair_server && strstr(knobs_fair_server_why(), "0/0 ns") &&
			      strstr(knobs_fair_server_why(), "left alone"),
		      "0/0 read as a knob: %d, %s", k.has_fair_server, knobs_fair_server_why());
		CHECK(knobs_invalid_reason(&k, NULL) == NULL, "the state without it is valid: %s",
		      knobs_invalid_reason(&k, NULL));
		use_system();
	}
	remove_temp_dir(dir);
}

/*
 * --fair-server-cpus measured: only the named CPUs' servers are read, written and saved; the
 * others keep theirs (here 20 ms, unlike the named one) and count in plans as the bandwidth
 * admitted before, so RT may not go below them. The state file names the CPUs, and a restore
 * that starts with every CPU in scope (the `restore` command) puts back those only.
 */
TEST(fair_server_scoped_to_named_cpus)
{
	struct policy policy = { .runtime_us = 950000, .period_us = 1000000,
				 .fair_server = { .set = true, .runtime_us = 10000, .period_us = 0 } };
	char dir[64], path[PATH_MAX], said[1024] = "", *old_env;
	int last = cpu_last_online(), cpus[FAIR_SERVER_CPUS_MAX];
	struct knobs before, target, now;
	bool saved;

	if (cpus_online_count() < 2 || !cpu_is_online(0)) {
		printf("# SKIP needs CPU 0 and another online CPU\n");
		return;
	}
	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	if (make_fixture(dir, 950000, 1000000, 50 * MS_NS, 1000 * MS_NS)) {
		old_env = env_set("RTTHROTTLE_STATE_DIR", dir);
		use_fixture(dir);
		snprintf(path, sizeof(path), "%s/fs/cpu0/runtime", dir);
		put_number(path, 20 * MS_NS);
		CHECK(!fair_server_set_cpus(&last, FAIR_SERVER_CPUS_MAX + 1) && fair_server_set_cpus(&last, 1),
		      "scope not set");
		CHECK(fair_server_partial() && strstr(fair_server_path_shown(false), "/cpu") &&
			      !strstr(fair_server_path_shown(false), "cpu*"),
		      "partial %d, shown %s", fair_server_partial(), fair_server_path_shown(false));
		CHECK(knobs_read(&before) && before.has_fair_server && before.value[KNOB_FAIR_SERVER_RUNTIME] == 50 * MS_NS,
		      "CPU %d alone not read: %s", last, knobs_fair_server_why());
		target = knobs_for_policy(&before, &policy);
		CHECK(apply_captured(dir, &target, said, sizeof(said)), "refused: %s", said);
		CHECK(cpu_value(dir, last, "runtime") == 10 * MS_NS && cpu_value(dir, 0, "runtime") == 20 * MS_NS,
		      "CPU %d %" PRId64 ", CPU 0 %" PRId64, last, cpu_value(dir, last, "runtime"), cpu_value(dir, 0, "runtime"));
		/* 3% RT under the 5% the other CPUs keep: the plan refuses it, though the named CPU's is 1%. */
		target = knobs_target(&target, 30000, 1000000);
		CHECK(knobs_invalid_reason(&target, &fair_server_default) != NULL, "3%% RT planned beside 5%% servers kept");
		saved = state_save(&before, 999999);
		CHECK(saved, "state not saved");
		CHECK(fair_server_set_cpus(NULL, 0) && !fair_server_partial(), "scope not reset");
		CHECK(saved && state_restore(), "state_restore failed");
		CHECK(fair_server_cpus(cpus) == 1 && cpus[0] == last, "the saved CPUs not taken: %d", fair_server_cpus(cpus));
		CHECK(knobs_read(&now) && cpu_value(dir, last, "runtime") == 50 * MS_NS &&
			      cpu_value(dir, 0, "runtime") == 20 * MS_NS,
		      "restored CPU %d %" PRId64 ", CPU 0 %" PRId64, last, cpu_value(dir, last, "runtime"),
		      cpu_value(dir, 0, "runtime"));
		fair_server_set_cpus(NULL, 0);
		CHECK(knobs_read(&now) && !now.has_fair_server, "CPUs that differ read as one with every CPU in scope");
		use_system();
		env_restore("RTTHROTTLE_STATE_DIR", old_env);
	}
	remove_temp_dir(dir);
}
