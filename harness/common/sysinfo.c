// SPDX-License-Identifier: GPL-2.0-only
/* The system probe: what kernel, config, CPUs, NUMA, knobs, cgroups and privileges we run on. */
#include "sysinfo.h"
#include "json_util.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <numa.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#define CONFIG_MAX_BYTES (16u << 20)	/* a .config is ~250 KiB; anything huge is not one */
#define MAX_CPUS 8192			/* CONFIG_NR_CPUS upper bound on x86 */

static const char debugfs_dir[] = "/sys/kernel/debug";
static const char fair_server_dir[] = "/sys/kernel/debug/sched/fair_server";
static const char ext_server_dir[] = "/sys/kernel/debug/sched/ext_server";
static const char sched_ext_state[] = "/sys/kernel/sched_ext/state";
static const char features_path[] = "/sys/kernel/debug/sched/features";
#define FAIR_SERVER_ABSENT "the fair server came in 6.12"
#define EXT_SERVER_ABSENT "the sched_ext server came in 7.0, with CONFIG_SCHED_CLASS_EXT"

/* What the probe learnt beyond struct kernel_facts; `info` prints it, the struct has no room. */
struct probe_notes {
	const char *preempt_source;	/* debugfs, cmdline, config or none */
	char fair_server_why[320];	/* empty when readable */
	char ext_server_why[320];	/* empty when readable */
};

/* ---- kernel release ---- */

/* Leading decimal digits only: no sign, no spaces, small enough for an int. */
static const char *parse_uint(const char *s, int *out)
{
	long value = 0;

	if (!isdigit((unsigned char)*s))
		return NULL;
	for (; isdigit((unsigned char)*s); s++) {
		value = value * 10 + (*s - '0');
		if (value > 999999)
			return NULL;
	}
	*out = (int)value;
	return s;
}

bool kernel_release_parse(const char *release, int *major, int *minor, int *patch)
{
	int ma = 0, mi = 0, pa = 0;
	const char *p = release ? parse_uint(release, &ma) : NULL;

	*major = *minor = *patch = 0;
	if (!p || *p != '.' || !(p = parse_uint(p + 1, &mi)))
		return false;
	/* "6.8-rc1" has no patch level. */
	if (*p == '.' && !parse_uint(p + 1, &pa))
		pa = 0;
	*major = ma;
	*minor = mi;
	*patch = pa;
	return true;
}

/* ---- kernel config ---- */

enum preempt_bit {
	PREEMPT_BIT_NONE = 1 << 0,
	PREEMPT_BIT_VOLUNTARY = 1 << 1,
	PREEMPT_BIT_FULL = 1 << 2,
	PREEMPT_BIT_LAZY = 1 << 3,
	PREEMPT_BIT_RT = 1 << 4,
};

static bool name_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(name, want, len);
}

/* value is NULL for "# CONFIG_X is not set". */
static void config_symbol(struct kernel_facts *out, unsigned *preempt, const char *name,
			  size_t name_len, const char *value, size_t value_len)
{
	bool yes = value && value_len == 1 && *value == 'y';
	char number[32];
	int64_t hz;

	if (name_is(name, name_len, "HZ") && value && value_len < sizeof(number)) {
		memcpy(number, value, value_len);
		number[value_len] = '\0';
		out->hz = parse_i64(number, 1, 100000, &hz) ? (int)hz : 0;
	} else if (name_is(name, name_len, "PREEMPT_NONE")) {
		*preempt |= yes ? PREEMPT_BIT_NONE : 0;
	} else if (name_is(name, name_len, "PREEMPT_VOLUNTARY")) {
		*preempt |= yes ? PREEMPT_BIT_VOLUNTARY : 0;
	} else if (name_is(name, name_len, "PREEMPT")) {
		*preempt |= yes ? PREEMPT_BIT_FULL : 0;
	} else if (name_is(name, name_len, "PREEMPT_LAZY")) {
		*preempt |= yes ? PREEMPT_BIT_LAZY : 0;
	} else if (name_is(name, name_len, "PREEMPT_RT") ||
		   name_is(name, name_len, "PREEMPT_RT_FULL")) {	/* the out-of-tree patch's name */
		*preempt |= yes ? PREEMPT_BIT_RT : 0;
	} else if (name_is(name, name_len, "PREEMPT_DYNAMIC")) {
		out->preempt_dynamic = yes;
	} else if (name_is(name, name_len, "RT_GROUP_SCHED")) {
		out->rt_group_sched = yes;
	} else if (name_is(name, name_len, "RT_GROUP_SCHED_DEFAULT_DISABLED")) {
		out->rt_group_sched_default_disabled = yes;
	} else if (name_is(name, name_len, "NO_HZ_FULL")) {
		out->no_hz_full = yes;
	} else if (name_is(name, name_len, "SCHED_CLASS_EXT")) {
		out->sched_class_ext = yes;
	}
}

/* Since 6.12 PREEMPT_RT sits outside the choice and comes with PREEMPT or PREEMPT_LAZY. */
static const char *preempt_model_name(unsigned bits)
{
	if (bits & PREEMPT_BIT_RT)
		return "rt";
	if (bits & PREEMPT_BIT_LAZY)
		return "lazy";
	if (bits & PREEMPT_BIT_FULL)
		return "full";
	if (bits & PREEMPT_BIT_VOLUNTARY)
		return "voluntary";
	if (bits & PREEMPT_BIT_NONE)
		return "none";
	return "unknown";
}

static void config_line(struct kernel_facts *out, unsigned *preempt, const char *line, size_t len)
{
	static const char set[] = "CONFIG_", unset[] = "# CONFIG_", not_set[] = " is not set";
	const char *eq;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (len > strlen(set) && !memcmp(line, set, strlen(set))) {
		line += strlen(set);
		len -= strlen(set);
		eq = memchr(line, '=', len);
		if (eq)
			config_symbol(out, preempt, line, (size_t)(eq - line), eq + 1,
				      len - (size_t)(eq - line) - 1);
	} else if (len > strlen(unset) + strlen(not_set) && !memcmp(line, unset, strlen(unset)) &&
		   !memcmp(line + len - strlen(not_set), not_set, strlen(not_set))) {
		config_symbol(out, preempt, line + strlen(unset),
			      len - strlen(unset) - strlen(not_set), NULL, 0);
	}
}

void kernel_config_parse(const char *text, struct kernel_facts *out)
{
	unsigned preempt = 0;

	out->config_known = true;
	out->hz = 0;
	out->preempt_dynamic = false;
	out->rt_group_sched = -1;	/* absent: the symbol's dependencies were not met, say unknown */
	/* Absent with RT_GROUP_SCHED=y: a kernel before 6.16, or the default (off) written out. */
	out->rt_group_sched_default_disabled = -1;
	out->no_hz_full = -1;
	out->sched_class_ext = -1;
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);

		config_line(out, &preempt, text, len);
		text += len + (nl ? 1 : 0);
	}
	snprintf(out->preempt_model, sizeof(out->preempt_model), "%s", preempt_model_name(preempt));
}

/* gzread passes plain files through, so this reads /proc/config.gz and /boot/config-* alike. */
static char *config_file_read(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	size_t used = 0, cap = 256 * 1024;
	char *buf = NULL;
	int got;

	if (!gz)
		return NULL;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	for (;;) {
		if (cap - used < 2) {
			char *bigger;

			if (cap >= CONFIG_MAX_BYTES)
				goto fail;
			cap *= 2;
			bigger = realloc(buf, cap);
			if (!bigger)
				goto fail;
			buf = bigger;
		}
		got = gzread(gz, buf + used, (unsigned)(cap - used - 1));
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		used += (size_t)got;
	}
	gzclose(gz);
	buf[used] = '\0';
	return buf;
fail:
	gzclose(gz);
	free(buf);
	return NULL;
}

static void kernel_config_read(struct kernel_facts *out)
{
	static const char *const where[] = {
		"/proc/config.gz", "/boot/config-%s", "/lib/modules/%s/config",
	};

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char *text;

		/* The release (< 128 bytes) always fits in config_source. */
		snprintf(out->config_source, sizeof(out->config_source), where[i], out->release);
		text = config_file_read(out->config_source);
		if (!text)
			continue;
		kernel_config_parse(text, out);
		free(text);
		return;
	}
	out->config_source[0] = '\0';
}

/* ---- RT group scheduling at run time ---- */

/* rt_group_sched=V as the kernel takes it (kstrtol, base 0): 0 or 1, -1 for what it refuses. */
static int rt_group_sched_value(const char *text)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 0);
	if (errno || end == text || *end || isspace((unsigned char)*text) || (v != 0 && v != 1))
		return -1;
	return (int)v;
}

/*
 * The last rt_group_sched= the kernel accepted (the setup function runs for each one, and a
 * refused value leaves the key as it was): 0 or 1, -1 none. `refused` gets the last refused word.
 */
static int rt_group_sched_cmdline(const char *cmdline, char *refused, size_t len)
{
	char buf[4096], *save = NULL, *word;
	int found = -1;

	refused[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", cmdline);
	for (word = strtok_r(buf, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(word, "--"))	/* the rest belongs to init */
			break;
		if (strncmp(word, "rt_group_sched=", 15))
			continue;
		if (rt_group_sched_value(word + 15) >= 0)
			found = rt_group_sched_value(word + 15);
		else
			snprintf(refused, len, "%s", word);
	}
	return found;
}

void kernel_rt_group_boot_resolve(struct kernel_facts *k, const char *cmdline, int cgroup_rt_file)
{
	char refused[64] = "", said[120] = "";
	bool switchable = k->rt_group_sched == 1 && (k->major > 6 || (k->major == 6 && k->minor >= 16));
	int on = -1, arg;

	k->rt_group_boot = RTG_BOOT_AS_BUILT;
	k->rt_group_sched_basis[0] = '\0';
	if (switchable) {
		/* 6.16 added the switch: on by default unless the build says otherwise. */
		on = k->rt_group_sched_default_disabled != 1;
		snprintf(said, sizeof(said), "%s by default (CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED %s)",
			 on ? "on" : "off", k->rt_group_sched_default_disabled == 1 ? "set" : "not set");
		arg = cmdline ? rt_group_sched_cmdline(cmdline, refused, sizeof(refused)) : -1;
		if (arg >= 0) {
			on = arg;
			snprintf(said, sizeof(said), "rt_group_sched=%d on the command line", arg);
		}
		if (refused[0])
			snprintf(said + strlen(said), sizeof(said) - strlen(said), ", %s refused", refused);
	} else if (k->rt_group_sched == 0 || k->rt_group_sched == 1) {
		return;		/* built without it, or before 6.16: the build decides */
	}
	/* What the running kernel shows wins: the file exists exactly while RT groups are on. */
	if (cgroup_rt_file >= 0 && (switchable || k->rt_group_sched == -1)) {
		bool agrees = on < 0 || on == cgroup_rt_file;

		snprintf(k->rt_group_sched_basis, sizeof(k->rt_group_sched_basis),
			 "cpu.rt_runtime_us %s in the cgroup v1 cpu controller%s%s%s",
			 cgroup_rt_file ? "present" : "absent", said[0] ? (agrees ? "; " : "; overrules ") : "", said,
			 k->rt_group_sched == -1 ? "; config unknown" : "");
		on = cgroup_rt_file;
	} else if (switchable) {
		snprintf(k->rt_group_sched_basis, sizeof(k->rt_group_sched_basis), "%s", said);
	}
	if (on >= 0)
		k->rt_group_boot = on ? RTG_BOOT_ON : RTG_BOOT_OFF;
}

int kernel_rt_groups_active(const struct kernel_facts *k)
{
	if (k->rt_group_boot == RTG_BOOT_ON)
		return 1;
	if (k->rt_group_boot == RTG_BOOT_OFF)
		return 0;
	return k->rt_group_sched;
}

/* 1 cpu.rt_runtime_us present, 0 the v1 cpu controller mounted without it, -1 not mounted. */
static int cgroup_rt_file_state(void)
{
	if (access("/sys/fs/cgroup/cpu/cpu.rt_runtime_us", F_OK) == 0)
		return 1;
	/* cpu.shares (FAIR_GROUP_SCHED) says the controller is there. */
	return access("/sys/fs/cgroup/cpu/cpu.shares", F_OK) == 0 ? 0 : -1;
}

static void rt_group_boot_read(struct kernel_facts *out)
{
	char cmdline[4096];

	kernel_rt_group_boot_resolve(out, read_text_file("/proc/cmdline", cmdline, sizeof(cmdline)) ? cmdline : NULL,
				     cgroup_rt_file_state());
}

/* ---- preemption model at run time ---- */

static bool preempt_model_valid(const char *model)
{
	return !strcmp(model, "none") || !strcmp(model, "voluntary") || !strcmp(model, "full") ||
	       !strcmp(model, "lazy");
}

/* debugfs lists every model with the current one in parentheses: "none (voluntary) full". */
static bool preempt_from_debugfs(char *model, size_t len)
{
	char buf[128], *open, *close;

	if (!read_text_file("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)))
		return false;
	open = strchr(buf, '(');
	close = open ? strchr(open, ')') : NULL;
	if (!close || (size_t)(close - open - 1) >= len)
		return false;
	*close = '\0';
	if (!preempt_model_valid(open + 1))
		return false;
	snprintf(model, len, "%s", open + 1);
	return true;
}

/* preempt= on the command line overrides the build default of a PREEMPT_DYNAMIC kernel. */
static bool preempt_from_cmdline(char *model, size_t len)
{
	char buf[4096], *save = NULL, *word;
	bool found = false;

	if (!read_text_file("/proc/cmdline", buf, sizeof(buf)))
		return false;
	for (word = strtok_r(buf, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(word, "--"))	/* the rest belongs to init */
			break;
		if (!strncmp(word, "preempt=", 8) && preempt_model_valid(word + 8) &&
		    strlen(word + 8) < len) {
			snprintf(model, len, "%s", word + 8);
			found = true;	/* the last one wins, as in the kernel */
		}
	}
	return found;
}

static const char *preempt_runtime_read(struct kernel_facts *out)
{
	if (!out->preempt_dynamic)
		return out->config_known ? "config" : "none";
	if (preempt_from_debugfs(out->preempt_model, sizeof(out->preempt_model)))
		return "debugfs";
	if (preempt_from_cmdline(out->preempt_model, sizeof(out->preempt_model)))
		return "cmdline";
	return "config";	/* the boot default; the model may have been switched since */
}

/* ---- CPUs ---- */

struct cpumap {
	uint64_t bits[MAX_CPUS / 64];
};

static void cpumap_set(struct cpumap *m, int cpu)
{
	m->bits[cpu / 64] |= 1ull << (cpu % 64);
}

static bool cpumap_test(const struct cpumap *m, int cpu)
{
	return cpu >= 0 && cpu < MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* The kernel's cpu list format: "0-3,8,10-11". */
static bool cpulist_parse(const char *text, struct cpumap *m)
{
	const char *p = text;

	memset(m, 0, sizeof(*m));
	while (*p) {
		int first, last;

		if (!(p = parse_uint(p, &first)))
			return false;
		last = first;
		if (*p == '-' && !(p = parse_uint(p + 1, &last)))
			return false;
		if (last < first || last >= MAX_CPUS)
			return false;
		for (int cpu = first; cpu <= last; cpu++)
			cpumap_set(m, cpu);
		if (*p == ',')
			p++;
		else if (*p)
			return false;
	}
	return true;
}

bool cpu_in_list(const char *text, int cpu)
{
	struct cpumap m;

	return cpulist_parse(text, &m) && cpumap_test(&m, cpu);
}

static void cpus_online(struct cpumap *m)
{
	char buf[4096];
	long n;

	if (read_text_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) &&
	    cpulist_parse(buf, m))
		return;
	/* No sysfs: assume the online CPUs are numbered from 0 without holes. */
	memset(m, 0, sizeof(*m));
	n = sysconf(_SC_NPROCESSORS_ONLN);
	for (long cpu = 0; cpu < (n > 0 ? n : 1) && cpu < MAX_CPUS; cpu++)
		cpumap_set(m, (int)cpu);
}

int cpus_online_count(void)
{
	struct cpumap m;
	int count = 0;

	cpus_online(&m);
	for (size_t i = 0; i < sizeof(m.bits) / sizeof(m.bits[0]); i++)
		count += __builtin_popcountll(m.bits[i]);
	return count;
}

int cpu_last_online(void)
{
	struct cpumap m;

	cpus_online(&m);
	for (int cpu = MAX_CPUS - 1; cpu >= 0; cpu--)
		if (cpumap_test(&m, cpu))
			return cpu;
	return -1;
}

bool cpu_is_online(int cpu)
{
	struct cpumap m;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return false;
	cpus_online(&m);
	return cpumap_test(&m, cpu);
}

/* ---- debugfs ---- */

bool sysinfo_mounted_at(const char *dir, const char *type)
{
	FILE *f = setmntent("/proc/mounts", "r");
	struct mntent ent, *m;
	char buf[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && (m = getmntent_r(f, &ent, buf, sizeof(buf))))
		found = !strcmp(m->mnt_dir, dir) && !strcmp(m->mnt_type, type);
	endmntent(f);
	return found;
}

/* "none [integrity] confidentiality" -> "integrity"; false when securityfs says nothing. */
static bool lockdown_mode(char *mode, size_t len)
{
	char buf[128], *open, *close;

	if (!read_text_file("/sys/kernel/security/lockdown", buf, sizeof(buf)))
		return false;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return false;
	*close = '\0';
	snprintf(mode, len, "%s", open + 1);
	return true;
}

/* Why a debugfs file could not be read; `absent` says why a missing one may be missing. */
static void debugfs_explain(const char *path, int err, const char *absent, char *why, size_t len)
{
	char lockdown[32];

	if (err == ENOENT && !sysinfo_mounted_at(debugfs_dir, "debugfs"))
		snprintf(why, len, "debugfs is not mounted at %s", debugfs_dir);
	else if (err == ENOENT)
		snprintf(why, len, "%s does not exist (%s)", path, absent);
	else if ((err == EPERM || err == EACCES) && lockdown_mode(lockdown, sizeof(lockdown)) &&
		 strcmp(lockdown, "none"))
		snprintf(why, len, "%s: %s (kernel lockdown: %s)", path, strerror(err), lockdown);
	else if (err == EPERM || err == EACCES)
		snprintf(why, len, "%s: %s (needs root; or kernel lockdown)", path, strerror(err));
	else
		snprintf(why, len, "%s: %s", path, strerror(err));
}

/*
 * Under lockdown the directory can be listed while opening its writable files fails with
 * EPERM, so only reading an actual file counts.
 */
static bool server_probe(const char *dir, const char *absent, int *cpu_out, int64_t *runtime_ns,
			 int64_t *period_ns, char *why, size_t len)
{
	char path[PATH_MAX], byte;
	struct cpumap online;
	int cpu = 0, fd;
	ssize_t got;

	cpus_online(&online);
	while (cpu < MAX_CPUS - 1 && !cpumap_test(&online, cpu))
		cpu++;
	if (access(dir, R_OK)) {
		debugfs_explain(dir, errno, absent, why, len);
		return false;
	}
	snprintf(path, sizeof(path), "%s/cpu%d/runtime", dir, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		debugfs_explain(path, errno, absent, why, len);
		return false;
	}
	got = read(fd, &byte, 1);
	if (got <= 0)
		debugfs_explain(path, got < 0 ? errno : EIO, absent, why, len);
	close(fd);
	if (got <= 0)
		return false;
	/* The values the kernel runs with (root can change them), for the expectation model. */
	*cpu_out = cpu;
	if (!read_i64_file(path, runtime_ns))
		*runtime_ns = -1;
	snprintf(path, sizeof(path), "%s/cpu%d/period", dir, cpu);
	if (!read_i64_file(path, period_ns))
		*period_ns = -1;
	return true;
}

static bool fair_server_probe(struct kernel_facts *out, char *why, size_t len)
{
	return server_probe(fair_server_dir, FAIR_SERVER_ABSENT, &out->fair_server_cpu, &out->fair_server_runtime_ns,
			    &out->fair_server_period_ns, why, len);
}

/* 7.0's server for sched_ext tasks: debugfs sched/ext_server/cpuN/{runtime,period}, like the fair server's. */
static bool ext_server_probe(struct kernel_facts *out, char *why, size_t len)
{
	return server_probe(ext_server_dir, EXT_SERVER_ABSENT, &out->ext_server_cpu, &out->ext_server_runtime_ns,
			    &out->ext_server_period_ns, why, len);
}

int sysinfo_sched_ext_enabled(void)
{
	char buf[64];

	if (!read_text_file(sched_ext_state, buf, sizeof(buf)))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, "enabled");
}

/* Reads one whole debugfs file; false with why (lockdown opens the file and fails the read). */
static bool debugfs_read(const char *path, const char *absent, char *buf, size_t size, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0) {
		debugfs_explain(path, errno, absent, why, len);
		return false;
	}
	got = read(fd, buf, size - 1);
	if (got <= 0)
		debugfs_explain(path, got < 0 ? errno : EIO, absent, why, len);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	return true;
}

static bool debugfs_i64(const char *path, int64_t *out, char *why, size_t len)
{
	char buf[64];

	if (!debugfs_read(path, FAIR_SERVER_ABSENT, buf, sizeof(buf), why, len))
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	if (!parse_i64(buf, INT64_MIN, INT64_MAX, out)) {
		snprintf(why, len, "%s: '%s' is not a number", path, buf);
		return false;
	}
	return true;
}

bool sysinfo_fair_server_read(int cpu, int64_t *runtime_ns, int64_t *period_ns, char *why, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/cpu%d/runtime", fair_server_dir, cpu);
	if (!debugfs_i64(path, runtime_ns, why, len))
		return false;
	snprintf(path, sizeof(path), "%s/cpu%d/period", fair_server_dir, cpu);
	return debugfs_i64(path, period_ns, why, len);
}

int sysinfo_sched_feature(const char *name, char *why, size_t len)
{
	char buf[4096], *save = NULL;

	if (!debugfs_read(features_path, "a kernel built without CONFIG_SCHED_DEBUG", buf, sizeof(buf), why, len))
		return -1;
	for (char *word = strtok_r(buf, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(word, name))
			return 1;
		if (!strncmp(word, "NO_", 3) && !strcmp(word + 3, name))
			return 0;
	}
	snprintf(why, len, "%s does not list %s", features_path, name);
	return -1;
}

/* ---- timer wake-ups ---- */

/*
 * PREEMPT_RT kernels that run timer softirqs in ktimers/N, a SCHED_FIFO kthread, wake every
 * SCHED_OTHER task whose sleep ends on a timer from there: its priority (the highest seen), 0
 * when no such thread runs (then a hard interrupt or a SCHED_OTHER ksoftirqd wakes them).
 */
static int timer_thread_priority(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int highest = 0;

	if (!proc)
		return 0;
	while ((e = readdir(proc))) {
		char path[300], comm[64];
		struct sched_param param;
		pid_t pid = (pid_t)atoi(e->d_name);
		int policy;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (!read_text_file(path, comm, sizeof(comm)) || strncmp(comm, "ktimers/", 8))
			continue;
		policy = sched_getscheduler(pid);
		if ((policy == SCHED_FIFO || policy == SCHED_RR) && !sched_getparam(pid, &param) &&
		    param.sched_priority > highest)
			highest = param.sched_priority;
	}
	closedir(proc);
	return highest;
}

/* ---- kernel facts ---- */

static bool kernel_facts_probe(struct kernel_facts *out, struct probe_notes *notes)
{
	struct utsname u;

	memset(out, 0, sizeof(*out));
	memset(notes, 0, sizeof(*notes));
	snprintf(out->preempt_model, sizeof(out->preempt_model), "unknown");
	out->rt_group_sched = -1;
	out->rt_group_sched_default_disabled = -1;
	out->no_hz_full = -1;
	out->sched_class_ext = -1;
	notes->preempt_source = "none";
	if (uname(&u))
		return false;
	snprintf(out->release, sizeof(out->release), "%s", u.release);
	snprintf(out->version, sizeof(out->version), "%s", u.version);
	snprintf(out->machine, sizeof(out->machine), "%s", u.machine);
	kernel_release_parse(out->release, &out->major, &out->minor, &out->patch);
	kernel_config_read(out);
	rt_group_boot_read(out);
	notes->preempt_source = preempt_runtime_read(out);
	out->timer_thread_priority = timer_thread_priority();
	out->fair_server_runtime_ns = out->fair_server_period_ns = -1;
	out->fair_server_readable = fair_server_probe(out, notes->fair_server_why,
						      sizeof(notes->fair_server_why));
	out->ext_server_runtime_ns = out->ext_server_period_ns = -1;
	out->ext_server_readable = ext_server_probe(out, notes->ext_server_why, sizeof(notes->ext_server_why));
	out->sched_ext_enabled = sysinfo_sched_ext_enabled();
	return true;
}

/* False only when uname fails; config_known says whether a config was found. */
bool kernel_facts_read(struct kernel_facts *out)
{
	struct probe_notes notes;

	return kernel_facts_probe(out, &notes);
}

static json_object *tristate_json(int value)
{
	return value < 0 ? NULL : json_object_new_boolean(value);
}

/* <name>_readable and, where readable, <name>_cpu, <name>_runtime_ns, <name>_period_ns (null: unparsed). */
static void server_json(json_object *obj, const char *name, bool readable, int cpu, int64_t runtime_ns,
			int64_t period_ns)
{
	char key[48];

	snprintf(key, sizeof(key), "%s_readable", name);
	json_add_bool(obj, key, readable);
	if (!readable)
		return;
	snprintf(key, sizeof(key), "%s_cpu", name);
	json_add_int(obj, key, cpu);
	snprintf(key, sizeof(key), "%s_runtime_ns", name);
	json_object_object_add(obj, key, runtime_ns < 0 ? NULL : json_object_new_int64(runtime_ns));
	snprintf(key, sizeof(key), "%s_period_ns", name);
	json_object_object_add(obj, key, period_ns < 0 ? NULL : json_object_new_int64(period_ns));
}

json_object *kernel_facts_to_json(const struct kernel_facts *k)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "release", k->release);
	json_add_str(obj, "version", k->version);
	json_add_str(obj, "machine", k->machine);
	json_add_int(obj, "major", k->major);
	json_add_int(obj, "minor", k->minor);
	json_add_int(obj, "patch", k->patch);
	json_add_bool(obj, "config_known", k->config_known);
	json_object_object_add(obj, "config_source",
			       k->config_known ? json_object_new_string(k->config_source) : NULL);
	json_object_object_add(obj, "hz", k->hz > 0 ? json_object_new_int(k->hz) : NULL);
	json_add_str(obj, "preempt_model", k->preempt_model);
	json_add_bool(obj, "preempt_dynamic", k->preempt_dynamic);
	json_object_object_add(obj, "rt_group_sched", tristate_json(k->rt_group_sched));
	/* At run time: the build's switched at boot (6.16+), and from what. */
	json_object_object_add(obj, "rt_group_sched_active", tristate_json(kernel_rt_groups_active(k)));
	json_object_object_add(obj, "rt_group_sched_basis", k->rt_group_sched_basis[0]
			       ? json_object_new_string(k->rt_group_sched_basis) : NULL);
	json_object_object_add(obj, "no_hz_full", tristate_json(k->no_hz_full));
	json_add_int(obj, "timer_thread_priority", k->timer_thread_priority);
	server_json(obj, "fair_server", k->fair_server_readable, k->fair_server_cpu, k->fair_server_runtime_ns,
		    k->fair_server_period_ns);
	json_object_object_add(obj, "sched_class_ext", tristate_json(k->sched_class_ext));
	json_object_object_add(obj, "sched_ext_enabled", tristate_json(k->sched_ext_enabled));
	server_json(obj, "ext_server", k->ext_server_readable, k->ext_server_cpu, k->ext_server_runtime_ns,
		    k->ext_server_period_ns);
	return obj;
}

static json_object *cpus_json(void)
{
	json_object *obj = json_object_new_object(), *list = json_object_new_array();
	struct cpumap m;
	int count = 0, last = -1;

	cpus_online(&m);	/* one snapshot, so count, list and last agree */
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!cpumap_test(&m, cpu))
			continue;
		json_object_array_add(list, json_object_new_int(cpu));
		count++;
		last = cpu;
	}
	json_add_int(obj, "online_count", count);
	json_object_object_add(obj, "online", list);
	json_add_int(obj, "last_online", last);
	return obj;
}

/* ---- NUMA ---- */

static json_object *numa_node_json(int node, struct bitmask *cpus)
{
	json_object *obj = json_object_new_object(), *list = json_object_new_array(),
		    *dist = json_object_new_array();

	json_add_int(obj, "node", node);
	if (numa_node_to_cpus(node, cpus) == 0)
		for (unsigned cpu = 0; cpu < cpus->size; cpu++)
			if (numa_bitmask_isbitset(cpus, cpu))
				json_object_array_add(list, json_object_new_int((int)cpu));
	/* distances[i] is the distance to the i-th entry of "nodes", so holes in ids do not matter. */
	for (int other = 0; other <= numa_max_node(); other++)
		if (numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)other))
			json_object_array_add(dist, json_object_new_int(numa_distance(node, other)));
	json_object_object_add(obj, "cpus", list);
	json_object_object_add(obj, "distances", dist);
	{
		long long free_bytes = -1, size = numa_node_size64(node, &free_bytes);

		json_object_object_add(obj, "memory_mb", size >= 0 ? json_object_new_int64(size >> 20) : NULL);
		json_object_object_add(obj, "memory_free_mb", size >= 0 ? json_object_new_int64(free_bytes >> 20) : NULL);
	}
	return obj;
}

static json_object *numa_json(void)
{
	json_object *obj = json_object_new_object(), *nodes = json_object_new_array();
	bool available = numa_available() >= 0;
	struct bitmask *cpus = available ? numa_allocate_cpumask() : NULL;

	json_add_bool(obj, "available", available);
	for (int node = 0; cpus && node <= numa_max_node(); node++)
		if (numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)node))
			json_object_array_add(nodes, numa_node_json(node, cpus));
	if (cpus)
		numa_free_cpumask(cpus);
	json_object_object_add(obj, "nodes", nodes);
	return obj;
}

/* ---- knobs, cgroups, privileges, host ---- */

static json_object *cgroup_json(void)
{
	json_object *obj = json_object_new_object();
	FILE *f = setmntent("/proc/mounts", "r");
	char buf[4096], cpu_path[PATH_MAX] = "";
	bool v1 = false, v2 = false;
	struct mntent ent, *m;
	const char *version;

	while (f && (m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (!strcmp(m->mnt_type, "cgroup2")) {
			v2 = true;
		} else if (!strcmp(m->mnt_type, "cgroup")) {
			v1 = true;
			/* hasmntopt matches whole options, so "cpuacct" and "cpuset" do not count. */
			if (!cpu_path[0] && hasmntopt(m, "cpu"))
				snprintf(cpu_path, sizeof(cpu_path), "%s", m->mnt_dir);
		}
	}
	if (f)
		endmntent(f);
	version = v1 && v2 ? "hybrid" : v1 ? "v1" : v2 ? "v2" : "none";
	json_add_str(obj, "version", version);
	json_add_bool(obj, "cpu_v1_mounted", cpu_path[0]);
	json_object_object_add(obj, "cpu_v1_path", cpu_path[0] ? json_object_new_string(cpu_path) : NULL);
	return obj;
}

static json_object *debugfs_json(const struct kernel_facts *k, const struct probe_notes *notes)
{
	json_object *obj = json_object_new_object();
	char lockdown[32];

	json_add_bool(obj, "mounted", sysinfo_mounted_at(debugfs_dir, "debugfs"));
	json_object_object_add(obj, "lockdown", lockdown_mode(lockdown, sizeof(lockdown))
							? json_object_new_string(lockdown) : NULL);
	json_add_bool(obj, "fair_server_readable", k->fair_server_readable);
	if (!k->fair_server_readable)
		json_add_str(obj, "reason", notes->fair_server_why);
	json_add_bool(obj, "ext_server_readable", k->ext_server_readable);
	if (!k->ext_server_readable)
		json_add_str(obj, "ext_server_reason", notes->ext_server_why);
	return obj;
}

uint64_t sysinfo_effective_caps(void)
{
	char buf[16384], *line;

	if (!read_text_file("/proc/self/status", buf, sizeof(buf)))
		return 0;
	line = strstr(buf, "\nCapEff:");
	return line ? strtoull(line + strlen("\nCapEff:"), NULL, 16) : 0;
}

static int64_t rlim_value(rlim_t value)
{
	return value == RLIM_INFINITY ? -1 : (int64_t)value;
}

static json_object *rlimit_json(int resource)
{
	json_object *obj = json_object_new_object();
	struct rlimit r;

	if (getrlimit(resource, &r)) {
		json_object_put(obj);
		return NULL;
	}
	json_add_int64(obj, "soft", rlim_value(r.rlim_cur));
	json_add_int64(obj, "hard", rlim_value(r.rlim_max));
	return obj;
}

static json_object *privileges_json(void)
{
	json_object *obj = json_object_new_object();
	uint64_t caps = sysinfo_effective_caps();
	uid_t euid = geteuid();

	json_add_int64(obj, "euid", euid);
	json_add_bool(obj, "root", euid == 0);
	json_add_bool(obj, "cap_sys_nice", (caps >> CAP_SYS_NICE_BIT) & 1);
	json_add_bool(obj, "cap_sys_admin", (caps >> CAP_SYS_ADMIN_BIT) & 1);
	json_object_object_add(obj, "rlimit_rtprio", rlimit_json(RLIMIT_RTPRIO));
	json_object_object_add(obj, "rlimit_rttime", rlimit_json(RLIMIT_RTTIME));
	return obj;
}

static json_object *host_json(void)
{
	struct utsname u;

	return uname(&u) ? NULL : json_object_new_string(u.nodename);
}

json_object *sysinfo_collect(json_object *knobs)
{
	json_object *obj = json_object_new_object(), *kernel;
	struct probe_notes notes;
	struct kernel_facts k;

	if (!obj)
		return NULL;
	kernel_facts_probe(&k, &notes);
	kernel = kernel_facts_to_json(&k);
	json_add_str(kernel, "preempt_model_source", notes.preempt_source);
	json_object_object_add(obj, "kernel", kernel);
	json_object_object_add(obj, "cpus", cpus_json());
	json_object_object_add(obj, "numa", numa_json());
	json_object_object_add(obj, "knobs", knobs);
	json_object_object_add(obj, "cgroup", cgroup_json());
	json_object_object_add(obj, "debugfs", debugfs_json(&k, &notes));
	json_object_object_add(obj, "privileges", privileges_json());
	json_object_object_add(obj, "host", host_json());
	return obj;
}
