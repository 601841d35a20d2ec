// SPDX-License-Identifier: GPL-2.0-only
/* One fair server for all online CPUs, or the run's: read each, write each, and undo a write that half succeeded. */
#include "fair_server.h"
#include "pseudo_fs.h"
#include "sysinfo.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_ROOT DEBUGFS_MOUNT_DIR "/sched/fair_server"

/* The scheduler's debug file: each root domain's admitted deadline bandwidth (dl_bw->total_bw). */
#define DEFAULT_SCHED_DEBUG DEBUGFS_MOUNT_DIR "/sched/debug"
/* The kernel's fixed point for bandwidths (BW_SHIFT): runtime/period << 20. */
#define BW_SHIFT 20

static char root[PATH_MAX / 2] = DEFAULT_ROOT;
static char sched_debug[PATH_MAX / 2] = DEFAULT_SCHED_DEBUG;
static struct pseudo_fs debugfs;
static int holders;	/* fair_server_mount calls not yet undone: the run's, and a restore's within it */
static int scope[FAIR_SERVER_CPUS_MAX];
static int scope_count;	/* 0: every online CPU */

bool fair_server_set_cpus(const int *cpus, int count)
{
	if (count < 0 || count > FAIR_SERVER_CPUS_MAX || (count && !cpus))
		return false;
	for (int i = 0; i < count; i++)
		if (cpus[i] < 0)
			return false;
	for (int i = 0; i < count; i++)
		scope[i] = cpus[i];
	scope_count = count;
	return true;
}

int fair_server_cpus(int *cpus)
{
	for (int i = 0; i < scope_count; i++)
		cpus[i] = scope[i];
	return scope_count;
}

/* The scope's CPUs as "1,3", after `open` and before `close` when it holds more than one. */
static const char *scope_list(char *buf, size_t len, const char *open, const char *close)
{
	size_t used = (size_t)snprintf(buf, len, "%s", scope_count > 1 ? open : "");

	for (int i = 0; i < scope_count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", scope[i]);
	if (scope_count > 1 && used < len)
		snprintf(buf + used, len - used, "%s", close);
	return buf;
}

const char *fair_server_cpus_described(void)
{
	static char text[16 + FAIR_SERVER_CPUS_MAX * 5];
	char cpus[FAIR_SERVER_CPUS_MAX * 5];

	if (!scope_count)
		return "every online CPU";
	snprintf(text, sizeof(text), "CPU%s %s", scope_count > 1 ? "s" : "", scope_list(cpus, sizeof(cpus), "", ""));
	return text;
}

/* An online CPU whose server this run reads and writes. */
static bool in_scope(int cpu)
{
	if (!cpu_is_online(cpu))
		return false;
	for (int i = 0; i < scope_count; i++)
		if (scope[i] == cpu)
			return true;
	return !scope_count;
}

bool fair_server_cpus_choice(const char *text, bool *measured)
{
	if (strcmp(text, "all") && strcmp(text, "measured"))
		return false;
	*measured = !strcmp(text, "measured");
	return true;
}

bool fair_server_partial(void)
{
	for (int cpu = 0; scope_count && cpu <= cpu_last_online(); cpu++)
		if (cpu_is_online(cpu) && !in_scope(cpu))
			return true;
	return false;
}

void fair_server_set_root(const char *dir)
{
	snprintf(root, sizeof(root), "%s", dir ? dir : DEFAULT_ROOT);
}

void fair_server_set_sched_debug(const char *path)
{
	snprintf(sched_debug, sizeof(sched_debug), "%s", path ? path : DEFAULT_SCHED_DEBUG);
}

bool fair_server_accounted(int64_t runtime_ns, int64_t period_ns, char *why, size_t len)
{
	FILE *f = fopen(sched_debug, "re");
	char line[256];
	long long least = 0;
	bool seen = false;
	int64_t servers;

	if (!f || period_ns <= 0)
		goto unknown;
	while (fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, ".dl_bw->total_bw");
		const char *colon = at ? strchr(at, ':') : NULL;
		long long v;

		if (colon && sscanf(colon + 1, "%lld", &v) == 1) {
			least = seen && least < v ? least : v;
			seen = true;
		}
	}
	fclose(f);
	f = NULL;
	if (!seen)
		goto unknown;
	/*
	 * sched/debug names no root domain's CPUs, so the bound holds on any partition: each CPU's
	 * root domain holds at least that CPU's own server (1 off for rounding). A kernel that lost
	 * them all, as Debian's 6.12.118 does at boot, reads 0.
	 */
	servers = (int64_t)(((uint64_t)runtime_ns << BW_SHIFT) / (uint64_t)period_ns) - 1;
	if (least >= servers)
		return true;
	snprintf(why, len, "the kernel's admitted deadline bandwidth (%s dl_bw->total_bw %lld) does not hold even "
		 "its own CPU's fair server (%" PRId64 "): a fair-server change makes it negative and "
		 "sched_rt_runtime_us writes fail (EBUSY; seen on Debian's 6.12.118)", sched_debug, least, servers + 1);
	return false;
unknown:
	if (f)
		fclose(f);
	return true;	/* unreadable: the kernel's own refusal, if any, is reported and the knobs put back */
}

static const char *cpu_file(int cpu, bool period, char *buf, size_t len)
{
	snprintf(buf, len, "%s/cpu%d/%s", root, cpu, period ? "period" : "runtime");
	return buf;
}

const char *fair_server_path_shown(bool period)
{
	static char shown[2][PATH_MAX];
	char cpus[FAIR_SERVER_CPUS_MAX * 5 + 2];

	snprintf(shown[period], sizeof(shown[period]), "%s/cpu%s/%s", root,
		 scope_count ? scope_list(cpus, sizeof(cpus), "{", "}") : "*", period ? "period" : "runtime");
	return shown[period];
}

/* Why one CPU's files cannot be read: debugfs's own reasons at the default root (lockdown...). */
static void unreadable_why(int cpu, const char *path, char *why, size_t len)
{
	int err = errno ? errno : EINVAL;
	int64_t runtime, period;

	if (!strcmp(root, DEFAULT_ROOT) && !sysinfo_fair_server_read(cpu, &runtime, &period, why, len))
		return;
	snprintf(why, len, "cannot read %s: %s", path, strerror(err));
}

bool fair_server_read(int64_t *runtime_ns, int64_t *period_ns, char *why, size_t len)
{
	bool first = true;

	for (int cpu = 0; cpu <= cpu_last_online(); cpu++) {
		char path[PATH_MAX];
		int64_t runtime, period;

		if (!in_scope(cpu))
			continue;
		errno = 0;
		if (!read_i64_file(cpu_file(cpu, false, path, sizeof(path)), &runtime) ||
		    !read_i64_file(cpu_file(cpu, true, path, sizeof(path)), &period)) {
			unreadable_why(cpu, path, why, len);
			return false;
		}
		if (!first && (runtime != *runtime_ns || period != *period_ns)) {
			snprintf(why, len, "the fair server differs between CPUs (CPU %d: %" PRId64 "/%" PRId64
					   " ns, the first one read: %" PRId64 "/%" PRId64 " ns); set them alike first",
				 cpu, runtime, period, *runtime_ns, *period_ns);
			return false;
		}
		*runtime_ns = runtime;
		*period_ns = period;
		first = false;
	}
	if (first)
		snprintf(why, len, scope_count ? "none of the fair server's CPUs is online" : "no online CPU found");
	return !first;
}

bool fair_server_writable(char *why, size_t len)
{
	char path[PATH_MAX];

	for (int cpu = 0; cpu <= cpu_last_online(); cpu++)
		for (int period = 0; period < 2 && in_scope(cpu); period++)
			if (access(cpu_file(cpu, period, path, sizeof(path)), W_OK)) {
				snprintf(why, len, "%s is not writable: %s", path, strerror(errno));
				return false;
			}
	return true;
}

int fair_server_write(bool period, int64_t value, int64_t old, char *failed_path, size_t len)
{
	char text[32], back[32], path[PATH_MAX];
	int err = 0, cpu;

	snprintf(text, sizeof(text), "%" PRId64, value);
	for (cpu = 0; cpu <= cpu_last_online() && !err; cpu++)
		if (in_scope(cpu))
			err = write_text_file(cpu_file(cpu, period, path, sizeof(path)), text);
	if (!err)
		return 0;
	snprintf(failed_path, len, "%s", path);
	/* The failed CPU kept its value; the ones before it take theirs back. */
	snprintf(back, sizeof(back), "%" PRId64, old);
	for (int c = 0; c < cpu - 1; c++)
		if (in_scope(c) && write_text_file(cpu_file(c, period, path, sizeof(path)), back))
			rtt_err("could not put %s back to %s after the failed write: the CPUs now differ", path, back);
	return err;
}

bool fair_server_mount(char *why, size_t len)
{
	/* A test's folder is not in debugfs. */
	if (!holders && !strcmp(root, DEFAULT_ROOT) &&
	    !pseudo_fs_mount(&debugfs, "debugfs", DEBUGFS_MOUNT_DIR, DEBUGFS_MOUNT_MARKER, why, len))
		return false;
	holders++;
	return true;
}

void fair_server_unmount(void)
{
	if (holders && --holders == 0)
		pseudo_fs_unmount(&debugfs);
}
