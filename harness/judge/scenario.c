// SPDX-License-Identifier: GPL-2.0-only
/* The catalogue: every scenario file of a folder others cannot change, and those added by name. */
#include "scenario.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct scenario catalogue[SCENARIOS_MAX];
static size_t catalogue_count;

const char *scenario_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	const char *env = getenv("RTTHROTTLE_SCENARIO_DIR");
	ssize_t n;

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	/* Next to the binary: build/../workloads/scenarios, or PREFIX/bin/../share/rtthrottle/scenarios. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		static const char *const relative[] = { "../workloads/scenarios", "../share/rtthrottle/scenarios" };
		const char *bin_dir;

		exe[n] = '\0';
		bin_dir = dirname(exe);	/* once: dirname cuts exe in place */
		for (size_t i = 0; i < 2; i++) {
			char found[PATH_MAX];

			snprintf(found, sizeof(found), "%.3000s/%s", bin_dir, relative[i]);
			/* Named without "..": /usr/share/rtthrottle/scenarios, as list and results show it. */
			if (!access(found, R_OK) && realpath(found, dir))
				return dir;
		}
	}
	snprintf(dir, sizeof(dir), "workloads/scenarios");
	return dir;
}

static int compare_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool json_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

static int json_filter(const struct dirent *d)
{
	return json_file(d);
}

const struct scenario *scenario_add_file(const char *path)
{
	struct scenario s;

	if (catalogue_count == SCENARIOS_MAX) {
		rtt_err("%s: more than %d scenarios", path, SCENARIOS_MAX);
		return NULL;
	}
	if (!scenario_parse_file(path, &s))
		return NULL;
	if (scenario_find(s.name)) {
		rtt_err("%s: name: scenario \"%s\" is already defined by %s", path, s.name,
			scenario_find(s.name)->source);
		scenario_release(&s);
		return NULL;
	}
	catalogue[catalogue_count] = s;
	return &catalogue[catalogue_count++];
}

/*
 * The catalogue is as trusted as the binary: owned by root, the caller or the binary's owner (a
 * checkout built by a user and run with sudo), and not writable by everyone. This refuses a
 * ./workloads/scenarios (the last place looked) that another user made in a shared folder.
 */
static bool catalogue_trusted(const char *dir)
{
	struct stat st, exe;

	if (stat(dir, &st) || (st.st_mode & S_IWOTH))
		return false;
	return st.st_uid == 0 || st.st_uid == geteuid() || (!stat("/proc/self/exe", &exe) && exe.st_uid == st.st_uid);
}

bool scenario_read_catalogue(void)
{
	struct dirent **names;
	const char *dir = scenario_dir();
	int n = scandir(dir, &names, json_filter, compare_names);
	bool ok = true;

	if (n < 0) {
		rtt_err("scenario folder %s: %s (set RTTHROTTLE_SCENARIO_DIR)", dir, strerror(errno));
		return false;
	}
	/* Scenarios pick the tasks root starts and the knobs it writes: only from a folder others cannot change. */
	if (!catalogue_trusted(dir)) {
		rtt_err("scenario folder %s: anyone can write to it, or it belongs to another user "
			"than root, you or the binary's owner; not loading scenarios from it (set "
			"RTTHROTTLE_SCENARIO_DIR)", dir);
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return false;
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%.3000s/%s", dir, names[i]->d_name);
		if (ok)
			ok = scenario_add_file(path) != NULL;
		free(names[i]);
	}
	free(names);
	return ok;
}

const struct scenario *scenario_catalogue(size_t *count)
{
	*count = catalogue_count;
	return catalogue;
}

const struct scenario *scenario_find(const char *name)
{
	for (size_t i = 0; i < catalogue_count; i++)
		if (!strcmp(catalogue[i].name, name))
			return &catalogue[i];
	return NULL;
}
