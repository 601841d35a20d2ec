// SPDX-License-Identifier: GPL-2.0-only
/* The document's skeleton and ending, its atomic write, and a check beforehand that the folder has room. */
#include "results.h"
#include "json_util.h"
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

/* Room a results file needs at least (one of the quick suite is ~25 KB): a folder without it
 * is refused before anything changes, instead of losing the results after the run. */
#define RESULTS_ROOM_BYTES (32 * 1024)

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

	json_add_int(root, "schema_version", RESULTS_SCHEMA_VERSION);
	json_add_str(tool, "name", "rtthrottle");
	json_add_str(tool, "version", RTT_VERSION);
	json_add_str(tool, "git_commit", RTT_GIT_COMMIT);
	json_object_object_add(root, "tool", tool);
	json_add_str(run, "id", run_id);
	json_object_object_add(run, "start", utc_now());
	json_add_str(run, "cmdline", cmdline);
	json_add_bool(run, "complete", false);
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
	json_add_bool(run, "complete", complete);
	if (stop_reason)
		json_add_str(run, "stop_reason", stop_reason);
}

bool results_write(json_object *root, const char *path)
{
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = text ? strlen(text) : 0;
	char *with_newline = text ? malloc(len + 2) : NULL;
	int err;

	if (!with_newline) {
		rtt_err("cannot write results to %s: out of memory", path);
		return false;
	}
	memcpy(with_newline, text, len);
	with_newline[len] = '\n';
	err = write_file_atomic(path, with_newline, len + 1);
	free(with_newline);
	if (err)
		rtt_err("cannot write results to %s: %s", path, strerror(err));
	return !err;
}

bool results_path_writable(const char *path, char *why, size_t why_len)
{
	char copy[PATH_MAX], probe[PATH_MAX];
	const char *dir;
	int fd, err;

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
	/* Creating an empty file succeeds in a full folder: reserve the room for real. */
	err = posix_fallocate(fd, 0, RESULTS_ROOM_BYTES);
	close(fd);
	unlink(probe);
	if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
		snprintf(why, why_len, "folder %s: %s (no room for %d KiB of results)", dir, strerror(err),
			 RESULTS_ROOM_BYTES / 1024);
		return false;
	}
	return true;
}
