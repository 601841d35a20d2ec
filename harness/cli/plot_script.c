// SPDX-License-Identifier: GPL-2.0-only
/* Finds rtthrottle_plot.py and the Python that runs it. */
#include "plot_script.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void self_dir(char *dir, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	snprintf(dir, len, "%s", n > 0 ? dirname(exe) : ".");
}

/* harness/output/rtthrottle_plot.py beside the binary's build folder, or under PREFIX/share. */
bool plot_script_find(char *path, size_t len)
{
	static const char *const relative[] = { "../harness/output/rtthrottle_plot.py", "../share/rtthrottle/rtthrottle_plot.py" };
	const char *env = getenv("RTTHROTTLE_PLOT_SCRIPT");
	char dir[PATH_MAX];

	if (env && *env) {
		snprintf(path, len, "%s", env);
		if (access(path, R_OK))
			rtt_err("RTTHROTTLE_PLOT_SCRIPT=%s: %s", env, strerror(errno));
		return !access(path, R_OK);
	}
	self_dir(dir, sizeof(dir));
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, len, "%.3000s/%s", dir, relative[i]);
		if (!access(path, R_OK))
			return true;
	}
	rtt_err("cannot find rtthrottle_plot.py in %s/../harness/output or %s/../share/rtthrottle; "
		"set RTTHROTTLE_PLOT_SCRIPT", dir, dir);
	return false;
}

const char *plot_python(void)
{
	const char *env = getenv("RTTHROTTLE_PYTHON");

	return env && *env ? env : PYTHON_DEFAULT;
}
