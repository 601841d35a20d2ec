// SPDX-License-Identifier: GPL-2.0-only
/* The groups, named after the run's pid so those of a run that died can be told apart and removed. */
#include "cgroups.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPU_CGROUP "/sys/fs/cgroup/cpu"

bool cgroups_rt_available(void)
{
	return access(CPU_CGROUP "/cpu.rt_runtime_us", F_OK) == 0;
}

void cgroups_dir_name(const char *group, char *out, size_t len)
{
	snprintf(out, len, "rtthrottle-%d-%s", (int)getpid(), group);
}

static int write_value(const char *dir, const char *file, int64_t value)
{
	char path[256], text[32];

	snprintf(path, sizeof(path), "%s/%s/%s", CPU_CGROUP, dir, file);
	snprintf(text, sizeof(text), "%" PRId64, value);
	return write_text_file(path, text);
}

bool cgroups_create(const struct scenario *s, char *why, size_t why_len)
{
	for (int i = 0; i < s->cgroup_count; i++) {
		const struct scenario_cgroup *g = &s->cgroups[i];
		char dir[64], path[160];
		int err;

		cgroups_dir_name(g->name, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/%s", CPU_CGROUP, dir);
		if (mkdir(path, 0755) && errno != EEXIST) {
			snprintf(why, why_len, "mkdir %s: %s", path, strerror(errno));
			cgroups_remove(s);
			return false;
		}
		/* Period first: the runtime must fit the period and the parent's remaining budget. */
		err = write_value(dir, "cpu.rt_period_us", g->rt_period_us);
		if (!err)
			err = write_value(dir, "cpu.rt_runtime_us", g->rt_runtime_us);
		if (err) {
			snprintf(why, why_len, "setting %s to %" PRId64 "/%" PRId64 " us: %s%s", path, g->rt_runtime_us,
				 g->rt_period_us, strerror(err),
				 err == EINVAL ? " (the groups' RT budgets exceed what the root group allows)" : "");
			cgroups_remove(s);
			return false;
		}
	}
	return true;
}

void cgroups_remove_stale(void)
{
	DIR *dir = opendir(CPU_CGROUP);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		int pid;

		if (sscanf(e->d_name, "rtthrottle-%d-", &pid) != 1 || (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		if (unlinkat(dirfd(dir), e->d_name, AT_REMOVEDIR) == 0)
			rtt_err("removed %s/%s, left by a run that died", CPU_CGROUP, e->d_name);
	}
	closedir(dir);
}

void cgroups_remove(const struct scenario *s)
{
	for (int i = 0; i < s->cgroup_count; i++) {
		char dir[64], path[160];

		cgroups_dir_name(s->cgroups[i].name, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/%s", CPU_CGROUP, dir);
		if (rmdir(path) && errno != ENOENT)
			rtt_warn("cannot remove %s: %s", path, strerror(errno));
	}
}
