#include "results.h"
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RTT_GIT_COMMIT
#define RTT_GIT_COMMIT "unknown"
#endif

static json_object *utc_now(void)
{
	char buf[32];

	format_utc(realtime_ns(), buf, sizeof(buf), false);
	return json_object_new_string(buf);
}

json_object *results_new(const char *run_id, const char *cmdline)
{
	json_object *root = json_object_new_object(), *tool = json_object_new_object(),
		    *run = json_object_new_object();

	json_object_object_add(root, "schema_version", json_object_new_int(RESULTS_SCHEMA_VERSION));
	json_object_object_add(tool, "name", json_object_new_string("rtthrottle"));
	json_object_object_add(tool, "version", json_object_new_string(RTT_VERSION));
	json_object_object_add(tool, "git_commit", json_object_new_string(RTT_GIT_COMMIT));
	json_object_object_add(root, "tool", tool);
	json_object_object_add(run, "id", json_object_new_string(run_id));
	json_object_object_add(run, "start", utc_now());
	json_object_object_add(run, "cmdline", json_object_new_string(cmdline));
	json_object_object_add(run, "complete", json_object_new_boolean(false));
	json_object_object_add(root, "run", run);
	json_object_object_add(root, "results", json_object_new_array());
	return root;
}

void results_finish(json_object *root, bool complete, const char *stop_reason)
{
	json_object *run;

	if (!json_object_object_get_ex(root, "run", &run))
		return;
	json_object_object_add(run, "end", utc_now());
	json_object_object_add(run, "complete", json_object_new_boolean(complete));
	if (stop_reason)
		json_object_object_add(run, "stop_reason", json_object_new_string(stop_reason));
}

bool results_write(json_object *root, const char *path)
{
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	char *with_newline = malloc(len + 2);
	int err;

	if (!with_newline)
		return false;
	memcpy(with_newline, text, len);
	with_newline[len] = '\n';
	err = write_file_atomic(path, with_newline, len + 1);
	free(with_newline);
	if (err)
		fprintf(stderr, "rtthrottle: cannot write results to %s: %s\n", path, strerror(err));
	return !err;
}

bool results_path_writable(const char *path, char *why, size_t why_len)
{
	char copy[PATH_MAX], probe[PATH_MAX];
	const char *dir;
	int fd;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (snprintf(probe, sizeof(probe), "%s/.rtthrottle-probe.%d", dir, (int)getpid()) >= (int)sizeof(probe)) {
		snprintf(why, why_len, "path too long");
		return false;
	}
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, why_len, "folder %s: %s", dir, strerror(errno));
		return false;
	}
	close(fd);
	unlink(probe);
	return true;
}
