// SPDX-License-Identifier: GPL-2.0-only
/* Lock and saved knobs only in a folder nobody else can write: a planted file would be restored as root. */
#include "state.h"
#include "json_util.h"
#include "dl_floor.h"
#include "fair_server.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static const char *path_in_state_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", state_dir(), name);
	return buf;
}

const char *state_file_path(void)
{
	static char path[PATH_MAX];

	return path_in_state_dir(path, sizeof(path), "state.json");
}

void state_remove_stale_temps(void)
{
	/* The files written there with write_file_atomic: the state and the tracefs and debugfs mount markers. */
	static const char *const prefixes[] = { "state.json.tmp.", "tracefs-mounted.tmp.", "debugfs-mounted.tmp." };
	DIR *dir = opendir(state_dir());
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)))
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (!strncmp(e->d_name, prefixes[i], strlen(prefixes[i])) && unlinkat(dirfd(dir), e->d_name, 0) == 0)
				rtt_err("removed %s/%s, left by a run killed while writing it", state_dir(), e->d_name);
	closedir(dir);
}

static int (*lock_call)(int fd, int operation) = flock;

void state_set_flock(int (*call)(int fd, int operation))
{
	lock_call = call ? call : flock;
}

/* What a flock(2) failure other than "held by another" means for the run lock. */
static const char *lock_failure_meaning(int err)
{
	switch (err) {
	case ENOSYS:
		return "this kernel has no file locking (built without CONFIG_FILE_LOCKING)";
	case ENOLCK:
		return "the kernel is out of lock records, or the file system cannot lock";
	case EINVAL:
		return "the file system holding it does not support flock";
	case EINTR:
		return "a signal interrupted the call";
	default:
		return "an unexpected error";
	}
}

/* Takes the lock on fd, or says who holds it (or why locking failed) and closes fd. */
static bool lock_or_name_holder(int fd, const char *path)
{
	char text[32];
	ssize_t got;
	int err;

	if (lock_call(fd, LOCK_EX | LOCK_NB) == 0)
		return true;
	err = errno;
	if (err != EWOULDBLOCK) {
		rtt_err("cannot lock %s: %s (%s); without the lock another run could change the "
			"knobs at the same time, so this one does not start",
			path, strerror(err), lock_failure_meaning(err));
		close(fd);
		return false;
	}
	got = pread(fd, text, sizeof(text) - 1, 0);
	text[got > 0 ? got : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	rtt_err("another run holds %s (pid %s); runs must not overlap", path, *text ? text : "unknown");
	close(fd);
	return false;
}

int state_lock_if_present(void)
{
	char path[PATH_MAX];
	int fd;

	path_in_state_dir(path, sizeof(path), "lock");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -2;
	return lock_or_name_holder(fd, path) ? fd : -1;
}

int state_lock(void)
{
	char path[PATH_MAX], text[32];
	int fd, err;

	err = make_dirs(state_dir(), 0755);
	if (err) {
		rtt_err("cannot create state folder %s: %s", state_dir(), strerror(err));
		return -1;
	}
	/* Whoever can write there can plant the knobs a later run restores as root. */
	if (!folder_trusted(state_dir(), false)) {
		rtt_err("state folder %s is not a folder only root (or this user) can write to; "
			"not using it", state_dir());
		return -1;
	}
	path_in_state_dir(path, sizeof(path), "lock");
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rtt_err("cannot open lock %s: %s", path, strerror(errno));
		return -1;
	}
	if (!lock_or_name_holder(fd, path))
		return -1;
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, text, strlen(text), 0) < 0)
		rtt_warn("cannot record pid in %s: %s", path, strerror(errno));
	state_remove_stale_temps();
	return fd;
}

bool state_save(const struct knobs *original, pid_t owner)
{
	json_object *root = json_object_new_object();
	const char *text;
	int err;

	int cpus[FAIR_SERVER_CPUS_MAX], count = fair_server_cpus(cpus);

	json_add_int(root, "pid", owner);
	json_object_object_add(root, "knobs", knobs_to_json(original));
	/* A fair server on named CPUs only: the others were never touched and are not restored. */
	if (original->has_fair_server && count) {
		json_object *list = json_object_new_array();

		for (int i = 0; i < count; i++)
			json_object_array_add(list, json_object_new_int(cpus[i]));
		json_object_object_add(root, "fair_server_cpus", list);
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	err = write_file_atomic(state_file_path(), text, strlen(text));
	json_object_put(root);
	if (err)
		rtt_err("cannot save the knobs to %s: %s", state_file_path(), strerror(err));
	return !err;
}

int state_load(struct knobs *original, pid_t *owner)
{
	json_object *root, *pid, *knobs, *list;
	int ok;

	if (access(state_file_path(), F_OK))
		return 0;
	root = json_object_from_file(state_file_path());
	ok = root && json_object_object_get_ex(root, "pid", &pid) &&
	     json_object_object_get_ex(root, "knobs", &knobs) && knobs_from_json(knobs, original);
	/* The saved fair server is put back on the CPUs it was saved from (absent: every online CPU). */
	if (ok && json_object_object_get_ex(root, "fair_server_cpus", &list)) {
		int cpus[FAIR_SERVER_CPUS_MAX], count = 0;

		ok = json_object_is_type(list, json_type_array) && json_object_array_length(list) > 0 &&
		     json_object_array_length(list) <= FAIR_SERVER_CPUS_MAX;
		for (size_t i = 0; ok && i < json_object_array_length(list); i++) {
			json_object *cpu = json_object_array_get_idx(list, i);

			ok = json_object_is_type(cpu, json_type_int);
			if (ok)
				cpus[count++] = json_object_get_int(cpu);
		}
		ok = ok && fair_server_set_cpus(cpus, count);
	}
	if (ok)
		*owner = json_object_get_int(pid);
	else
		rtt_err("state file %s is unreadable or malformed; check the knobs by hand", state_file_path());
	json_object_put(root);
	return ok ? 1 : -1;
}

void state_remove(void)
{
	if (unlink(state_file_path()) && errno != ENOENT)
		rtt_err("cannot remove %s: %s", state_file_path(), strerror(errno));
}

bool state_restore(void)
{
	struct knobs original, now;
	pid_t owner;
	int loaded = state_load(&original, &owner);
	char why[PATH_MAX + 100];
	bool ok, mounted = false;

	if (loaded <= 0)
		return loaded == 0;
	/* The dead run's debugfs may be gone already (its mount is undone before this). */
	if (original.has_fair_server && !(mounted = fair_server_mount(why, sizeof(why))))
		rtt_err("the fair server saved in %s cannot be restored: %s", state_file_path(), why);
	ok = knobs_apply(&original, dl_floor_of_system());
	if (!ok && original.has_fair_server) {
		/* The RT knobs back at least; the state file stays for the fair server. */
		struct knobs rt_only = original;

		rt_only.has_fair_server = false;
		if (knobs_apply(&rt_only, dl_floor_of_system()))
			rtt_err("the RT knobs are back, the fair server is not");
	}
	if (!ok)
		rtt_err("could not restore the knobs saved in %s", state_file_path());
	else
		ok = knobs_read(&now) && knobs_equal(&now, &original) &&
		     (!original.has_fair_server || now.has_fair_server);
	if (mounted)
		fair_server_unmount();
	if (ok)
		state_remove();
	return ok;
}
