// SPDX-License-Identifier: GPL-2.0-only
/* The run's private 0700 folder for its programs' files, and the removal of dead runs' folders. */
#include "private_dir.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Short enough that a file's path fits the task records (external_stats.output). */
#define PRIVATE_DIR_MAX 160

static char dir_path[PRIVATE_DIR_MAX];

/* The bases in order of preference, each once; returns how many. */
static int bases(const char *out[3])
{
	const char *tmpdir = getenv("TMPDIR");
	int n = 0;

	out[n++] = PRIVATE_DIR_RUN_BASE;
	/* Only an absolute $TMPDIR: a relative one would depend on the folder the run started in. */
	if (tmpdir && tmpdir[0] == '/' && strcmp(tmpdir, "/tmp") && strcmp(tmpdir, PRIVATE_DIR_RUN_BASE))
		out[n++] = tmpdir;
	out[n++] = "/tmp";
	return n;
}

const char *private_dir_path(void)
{
	return dir_path;
}

bool private_dir_file(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int used = snprintf(buf, len, "%s/", dir_path), n;

	if (!dir_path[0] || used < 0 || (size_t)used >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - (size_t)used, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len - (size_t)used;
}

bool process_gone(pid_t pid)
{
	char path[32], buf[256], *state;
	FILE *f;
	bool gone;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	gone = fgets(buf, sizeof(buf), f) && (state = strrchr(buf, ')')) && (state[1] == ' ') &&
	       (state[2] == 'Z' || state[2] == 'X');
	fclose(f);
	return gone;
}

/* Unlinks what the folder open as fd holds (unlinkat never follows a symlink). */
static void remove_contents(int fd)
{
	int copy = dup(fd);
	DIR *dir = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;

	if (!dir) {
		if (copy >= 0)
			close(copy);
		return;
	}
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(fd, e->d_name, 0) && errno == EISDIR)
			unlinkat(fd, e->d_name, AT_REMOVEDIR);
	closedir(dir);
}

/* The pid in a folder name PREFIX<pid>.XXXXXX, or 0 when the name is not one of ours. */
static pid_t owner_pid(const char *name)
{
	size_t n = strlen(PRIVATE_DIR_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, PRIVATE_DIR_PREFIX, n) || name[n] < '1' || name[n] > '9')
		return 0;
	pid = strtol(name + n, &end, 10);
	return *end == '.' && strlen(end + 1) == 6 && pid > 0 && pid <= 0x3fffffff ? (pid_t)pid : 0;
}

/* Removes base/name when it is a dead run's folder of ours (checked again once open). */
static void remove_if_stale(int base_fd, const char *base, const char *name)
{
	pid_t pid = owner_pid(name);
	struct stat named, opened;
	int fd;

	if (!pid || pid == getpid() || fstatat(base_fd, name, &named, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(named.st_mode) || named.st_uid != geteuid() || !process_gone(pid))
		return;
	fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!fstat(fd, &opened) && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino) {
		remove_contents(fd);
		if (!unlinkat(base_fd, name, AT_REMOVEDIR))
			rtt_err("removed %s/%s, left by a run that died", base, name);
	}
	close(fd);
}

void private_dir_remove_stale(void)
{
	const char *list[3];
	int n = bases(list);

	for (int i = 0; i < n; i++) {
		DIR *dir = folder_trusted(list[i], true) ? opendir(list[i]) : NULL;
		struct dirent *e;

		if (!dir)
			continue;
		while ((e = readdir(dir)))
			remove_if_stale(dirfd(dir), list[i], e->d_name);
		closedir(dir);
	}
}

int private_dir_create(void)
{
	const char *list[3];
	int n = bases(list), err = ENOENT;

	private_dir_remove_stale();
	/* Root makes /run/rtthrottle (as the run lock does); others fall through to $TMPDIR or /tmp. */
	if (mkdir(PRIVATE_DIR_RUN_BASE, 0755) && errno != EEXIST)
		err = errno;
	for (int i = 0; i < n; i++) {
		if (!folder_trusted(list[i], true))
			continue;
		if (snprintf(dir_path, sizeof(dir_path), "%s/" PRIVATE_DIR_PREFIX "%d.XXXXXX", list[i], (int)getpid()) >=
		    (int)sizeof(dir_path)) {
			err = ENAMETOOLONG;
			continue;
		}
		if (mkdtemp(dir_path))
			return 0;
		err = errno;
	}
	dir_path[0] = '\0';
	rtt_err("cannot make a private folder for the programs' files in %s, $TMPDIR or /tmp: %s",
		PRIVATE_DIR_RUN_BASE, strerror(err));
	return err;
}

void private_dir_remove(double wait_s)
{
	const uint64_t until = now_ns() + (uint64_t)(wait_s * 1e9);
	const struct timespec pause = { .tv_nsec = 20000000 };

	while (dir_path[0]) {
		int fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0) {
			remove_contents(fd);
			close(fd);
		}
		if (fd < 0 || !rmdir(dir_path) || errno == ENOENT) {
			dir_path[0] = '\0';
			return;
		}
		/* A program killed a moment ago may still be writing its last file. */
		if (now_ns() >= until)
			break;
		nanosleep(&pause, NULL);
	}
	rtt_err("cannot remove %s: %s", dir_path, strerror(errno));
}
