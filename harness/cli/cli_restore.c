// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle restore`: puts back the knobs a dead run saved, if any. */
#include "commands.h"
#include "fair_server.h"
#include "knobs.h"
#include "state.h"
#include "rt_queue.h"
#include "trace.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "Usage: rtthrottle restore\n\n"
		     "Puts back the knobs saved in %s by a run that died with its guardian\n"
		     "(the RT sysctls, the root cgroup's pair and, where it saved it, the fair server of\n"
		     "every online CPU, mounting debugfs for that if needed), then removes the file;\n"
		     "removes its tracefs instance and unmounts tracefs (and debugfs) if it mounted them.\n"
		     "Refuses while a run is active (it restores itself).\n"
		     "Exit status: 0 restored or nothing to do, 1 restoring failed, 2 a run is active.\n",
		state_file_path());
}

int cmd_restore(int argc, char **argv)
{
	static const struct option options[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct knobs saved;
	pid_t owner;
	int c, fd, loaded;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_ALL_PASSED;
		}
		return usage_error("restore", "unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc)
		return usage_error("restore", "unexpected argument '%s'", argv[optind]);
	fd = state_lock();
	if (fd < 0)
		return EXIT_USAGE;
	trace_remove_stale(0);	/* a dead run's tracefs instance and mount */
	rt_queue_remove_stale(0);	/* and the debugfs it mounted */
	loaded = state_load(&saved, &owner);
	if (loaded == 0) {
		printf("nothing to restore: no %s\n", state_file_path());
		close(fd);
		return EXIT_ALL_PASSED;
	}
	if (loaded < 0 || !state_restore()) {
		close(fd);
		return EXIT_CHECK_FAILED;
	}
	printf("restored the knobs saved by pid %d: sched_rt_runtime_us %lld, sched_rt_period_us %lld",
	       (int)owner, (long long)saved.value[KNOB_SYSCTL_RUNTIME], (long long)saved.value[KNOB_SYSCTL_PERIOD]);
	if (saved.has_fair_server)
		printf(", fair server %lld/%lld ns on %s", (long long)saved.value[KNOB_FAIR_SERVER_RUNTIME],
		       (long long)saved.value[KNOB_FAIR_SERVER_PERIOD], fair_server_cpus_described());
	printf("\n");
	close(fd);
	return EXIT_ALL_PASSED;
}
