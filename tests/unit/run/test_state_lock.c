// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run lock: only EWOULDBLOCK means another run holds it; any other flock failure (ENOSYS
 * on a kernel without CONFIG_FILE_LOCKING, ENOLCK, EINVAL) is said as what it is.
 */
#include "state.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int failing_errno;

static int failing_flock(int fd, int operation)
{
	(void)fd;
	(void)operation;
	errno = failing_errno;
	return -1;
}

/* state_lock() with flock failing as `err`: its fd (or -1) and what it said. */
static int lock_failing_with(int err, const char *dir, char *said, size_t len)
{
	struct stderr_capture cap;
	int fd;

	failing_errno = err;
	state_set_flock(failing_flock);
	if (!stderr_capture_begin(&cap, dir)) {
		state_set_flock(NULL);
		return -1;
	}
	fd = state_lock();
	stderr_capture_end(&cap, said, len);
	state_set_flock(NULL);
	return fd;
}

TEST(state_lock_tells_a_held_lock_from_a_broken_one)
{
	static const struct {
		int err;
		const char *named;
	} broken[] = {
		{ ENOSYS, "CONFIG_FILE_LOCKING" },
		{ ENOLCK, "lock records" },
		{ EINVAL, "does not support flock" },
		{ EIO, "unexpected" },
	};
	char *saved_env, dir[64], said[1024];
	int fd;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	saved_env = env_set("RTTHROTTLE_STATE_DIR", dir);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		fd = lock_failing_with(broken[i].err, dir, said, sizeof(said));
		CHECK(fd == -1, "errno %d: state_lock gave fd %d", broken[i].err, fd);
		if (fd >= 0)
			close(fd);
		CHECK(strstr(said, "cannot lock") && strstr(said, strerror(broken[i].err)) && strstr(said, broken[i].named),
		      "errno %d: '%s'", broken[i].err, said);
		CHECK(!strstr(said, "another run holds"), "errno %d blamed on another run: '%s'", broken[i].err, said);
	}
	/* EWOULDBLOCK is another run, named by the pid in the file. */
	fd = lock_failing_with(EWOULDBLOCK, dir, said, sizeof(said));
	CHECK(fd == -1 && strstr(said, "another run holds"), "EWOULDBLOCK: fd %d, '%s'", fd, said);
	/* And flock is back for everyone else. */
	fd = state_lock();
	CHECK(fd >= 0, "the real flock did not come back");
	if (fd >= 0)
		close(fd);

	env_restore("RTTHROTTLE_STATE_DIR", saved_env);
	remove_temp_dir(dir);
}

/* A writer killed mid-write leaves write_file_atomic's temp: the next lock holder removes it. */
TEST(state_lock_removes_stale_temps_of_killed_writers)
{
	static const char *const stale[] = { "state.json.tmp.123.abcdef", "tracefs-mounted.tmp.19479",
					     "tracefs-mounted.tmp.13326.vG2o43", "debugfs-mounted.tmp.10092.KiqWnt" };
	char *saved_env, dir[64], path[128], said[1024];
	struct stderr_capture cap;
	int fd = -1;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	saved_env = env_set("RTTHROTTLE_STATE_DIR", dir);
	for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, stale[i]);
		close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	snprintf(path, sizeof(path), "%s/tracefs-mounted", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	if (stderr_capture_begin(&cap, dir)) {
		fd = state_lock();
		stderr_capture_end(&cap, said, sizeof(said));
	}
	CHECK(fd >= 0, "state_lock failed");
	for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, stale[i]);
		CHECK(access(path, F_OK) != 0, "%s left", stale[i]);
	}
	snprintf(path, sizeof(path), "%s/tracefs-mounted", dir);
	CHECK(access(path, F_OK) == 0, "the marker itself was removed");
	unlink(path);
	if (fd >= 0)
		close(fd);
	env_restore("RTTHROTTLE_STATE_DIR", saved_env);
	remove_temp_dir(dir);
}
