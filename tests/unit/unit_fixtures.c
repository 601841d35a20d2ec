// SPDX-License-Identifier: GPL-2.0-only
/* Shared test helpers: temp folders, captured stderr, saved environment, made-up kernels, probes, knobs. */
#include "unit_fixtures.h"
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *make_temp_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/rtt-unit-XXXXXX");
	if (!mkdtemp(buf)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return NULL;
	}
	return buf;
}

void remove_temp_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%.2000s/%.1000s", dir, e->d_name);
		if (unlink(path) && errno == EISDIR)
			remove_temp_dir(path);	/* a fixture's folders (fair_server/cpuN) */
	}
	closedir(d);
	CHECK(rmdir(dir) == 0, "cannot remove %s: %s", dir, strerror(errno));
}

struct knobs make_knobs(int64_t srt, int64_t sper, int64_t crt, int64_t cper, bool has_cgroup)
{
	struct knobs k;

	memset(&k, 0, sizeof(k));
	k.value[KNOB_SYSCTL_RUNTIME] = srt;
	k.value[KNOB_SYSCTL_PERIOD] = sper;
	k.value[KNOB_CGROUP_RUNTIME] = crt;
	k.value[KNOB_CGROUP_PERIOD] = cper;
	k.has_cgroup = has_cgroup;
	return k;
}

const char *fixture_path(const char *name)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX];
	const char *env = getenv("RTT_FIXTURES");
	ssize_t n;

	if (env && *env) {
		snprintf(path, sizeof(path), "%.3000s/%s", env, name);
		return path;
	}
	/* build/unit-tests -> tests/fixtures */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(path, sizeof(path), "%.3000s/../tests/fixtures/%s", dirname(exe), name);
		if (!access(path, R_OK))
			return path;
	}
	snprintf(path, sizeof(path), "tests/fixtures/%s", name);
	return path;
}

bool stderr_capture_begin(struct stderr_capture *c, const char *dir)
{
	snprintf(c->path, sizeof(c->path), "%.3000s/stderr.txt", dir);
	fflush(stderr);
	c->fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->fd < 0) {
		CHECK(0, "cannot create %s: %s", c->path, strerror(errno));
		return false;
	}
	c->saved = dup(2);
	if (c->saved < 0 || dup2(c->fd, 2) < 0) {
		CHECK(0, "cannot redirect stderr: %s", strerror(errno));
		if (c->saved >= 0)
			close(c->saved);
		close(c->fd);
		return false;
	}
	return true;
}

void stderr_capture_end(struct stderr_capture *c, char *buf, size_t len)
{
	ssize_t n;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = pread(c->fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(c->fd);
	unlink(c->path);
}

char *env_set(const char *name, const char *value)
{
	const char *old = getenv(name);
	char *saved = old ? strdup(old) : NULL;

	setenv(name, value, 1);
	return saved;
}

void env_restore(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

struct kernel_facts make_kernel_facts(int major, int minor, int rt_group_sched, int hz)
{
	struct kernel_facts k;

	memset(&k, 0, sizeof(k));
	snprintf(k.release, sizeof(k.release), "%d.%d.0", major, minor);
	k.major = major;
	k.minor = minor;
	k.rt_group_sched = rt_group_sched;
	k.rt_group_sched_default_disabled = -1;
	k.no_hz_full = -1;
	k.hz = hz;
	k.config_known = rt_group_sched >= 0;
	k.fair_server_runtime_ns = k.fair_server_period_ns = -1;
	k.sched_class_ext = k.sched_ext_enabled = -1;
	k.ext_server_runtime_ns = k.ext_server_period_ns = -1;
	return k;
}

/* Debian's 7.2.13 amd64 as its guest reads it: both servers 50 ms / 1 s in debugfs, no BPF scheduler. */
struct kernel_facts make_kernel_facts_debian_7_2(void)
{
	struct kernel_facts k = make_kernel_facts(7, 2, 0, 250);

	k.patch = 13;
	snprintf(k.release, sizeof(k.release), "7.2.13+deb14-amd64");
	k.sched_class_ext = 1;
	k.sched_ext_enabled = 0;
	k.fair_server_readable = k.ext_server_readable = true;
	k.fair_server_runtime_ns = k.ext_server_runtime_ns = 50000000;
	k.fair_server_period_ns = k.ext_server_period_ns = 1000000000;
	return k;
}

struct regime_observation make_regime_probe_seen(const struct kernel_model *m, double hog_alone_share,
						 double hog_alone_gap_max_us, double victim_share,
						 enum running_window running, double victim_running_share)
{
	struct regime_observation o = {
		.done = true, .window_s = 2.0, .hog_alone_share = hog_alone_share,
		.hog_alone_gap_max_us = hog_alone_gap_max_us, .victim_share_unlimited = victim_share,
		.running = running, .victim_running_share_unlimited = victim_running_share,
	};

	regime_observation_judge(m, &o);
	return o;
}

struct regime_observation make_regime_probe(const struct kernel_model *m, double victim_share)
{
	return make_regime_probe_seen(m, 0.9501, 51500, victim_share, RUNNING_NOT_RUN, 0);
}

double json_number(json_object *obj, const char *key, bool *found)
{
	json_object *v;

	*found = json_object_object_get_ex(obj, key, &v);
	return *found ? json_object_get_double(v) : 0;
}
