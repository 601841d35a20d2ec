// SPDX-License-Identifier: GPL-2.0-only
/* The run's private folder: 0700, new files only, and the removal of dead runs' folders. */
#include "private_dir.h"
#include "util.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The pid of a child that has exited and been reaped: no process has it (for now). */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

TEST(private_dir_is_0700_and_its_files_are_new)
{
	char file[256];
	struct stat st;
	int fd;

	CHECK(private_dir_create() == 0, "private_dir_create failed");
	CHECK(lstat(private_dir_path(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 &&
	      st.st_uid == geteuid(), "%s: mode %o", private_dir_path(), st.st_mode & 0777);
	CHECK(!strncmp(strrchr(private_dir_path(), '/'), "/" PRIVATE_DIR_PREFIX, strlen(PRIVATE_DIR_PREFIX) + 1),
	      "named %s", private_dir_path());
	CHECK(private_dir_file(file, sizeof(file), "load-%d.out", 7), "path of a file");
	fd = open(file, PRIVATE_DIR_NEW_FILE, 0600);
	CHECK(fd >= 0, "create %s: %s", file, strerror(errno));
	close(fd);
	CHECK(open(file, PRIVATE_DIR_NEW_FILE, 0600) < 0 && errno == EEXIST, "a second create fails");
	CHECK(!private_dir_file(file, 16, "load-%d.out", 7), "a path that does not fit is refused");
	strcpy(file, private_dir_path());
	private_dir_remove(0);
	CHECK(access(file, F_OK) && errno == ENOENT, "%s removed with its file", file);
	CHECK(!private_dir_path()[0], "no path once removed");
	CHECK(!private_dir_file(file, sizeof(file), "x"), "no file path without the folder");
}

TEST(private_dir_removes_dead_runs_folders_only)
{
	char base[64], dead[128], alive[128], link[128], victim[128], kept[192];
	const char *saved = getenv("TMPDIR");
	pid_t gone = dead_pid();
	int fd;

	if (!make_temp_dir(base, sizeof(base)))
		return;
	snprintf(dead, sizeof(dead), "%s/" PRIVATE_DIR_PREFIX "%d.abcdef", base, (int)gone);
	snprintf(alive, sizeof(alive), "%s/" PRIVATE_DIR_PREFIX "%d.abcdef", base, (int)getppid());
	snprintf(link, sizeof(link), "%s/" PRIVATE_DIR_PREFIX "%d.ghijkl", base, (int)gone);
	snprintf(victim, sizeof(victim), "%s/victim", base);
	snprintf(kept, sizeof(kept), "%s/kept", victim);
	CHECK(!mkdir(dead, 0700) && !mkdir(alive, 0700) && !mkdir(victim, 0700), "folders");
	CHECK(!symlink(victim, link), "symlink");
	snprintf(kept, sizeof(kept), "%s/cyclictest-1.json", dead);
	fd = open(kept, PRIVATE_DIR_NEW_FILE, 0600);
	close(fd);
	snprintf(kept, sizeof(kept), "%s/kept", victim);
	fd = open(kept, PRIVATE_DIR_NEW_FILE, 0600);
	close(fd);

	setenv("TMPDIR", base, 1);
	private_dir_remove_stale();
	CHECK(access(dead, F_OK) && errno == ENOENT, "a dead run's folder is removed, with its file");
	CHECK(!access(alive, F_OK), "a live run's folder stays");
	CHECK(!access(link, F_OK) && !access(kept, F_OK), "a symlink named as a folder is not followed");

	unlink(kept);
	unlink(link);
	rmdir(victim);
	rmdir(alive);
	rmdir(base);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
}

TEST(folder_trusted_refuses_what_others_can_write)
{
	char dir[64];

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	CHECK(folder_trusted(dir, false), "0700, ours");
	chmod(dir, 0777);
	CHECK(!folder_trusted(dir, false) && !folder_trusted(dir, true), "0777");
	chmod(dir, 01777);
	CHECK(!folder_trusted(dir, false) && folder_trusted(dir, true), "01777: only where sticky will do");
	chmod(dir, 0775);
	CHECK(folder_trusted(dir, false), "writable by our own group");
	if (chown(dir, (uid_t)-1, 65534) == 0)	/* root only: another group */
		CHECK(!folder_trusted(dir, false), "writable by another group");
	CHECK(!folder_trusted("/dev/null", true), "not a folder");
	remove_temp_dir(dir);
}

TEST(write_file_atomic_never_writes_through_a_planted_temp_name)
{
	char dir[64], path[128], planted[160], target[128], text[64] = "";
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	/* The name the temp file had before: PATH.tmp.<pid>. */
	snprintf(planted, sizeof(planted), "%s.tmp.%d", path, (int)getpid());
	CHECK(!symlink(target, planted), "symlink");
	CHECK(write_file_atomic(path, "{}\n", 3) == 0, "written");
	CHECK(access(target, F_OK) && errno == ENOENT, "nothing written through the symlink");
	CHECK(read_text_file(path, text, sizeof(text)) && !strcmp(text, "{}"), "the file holds %s", text);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == (0644 & ~mask), "mode %o", st.st_mode & 0777);
	unlink(planted);
	unlink(path);
	remove_temp_dir(dir);
}
