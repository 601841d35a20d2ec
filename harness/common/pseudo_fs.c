// SPDX-License-Identifier: GPL-2.0-only
/* Mounting tracefs or debugfs for one run, with a marker that lets a crashed run's mount be undone. */
#include "pseudo_fs.h"
#include "sysinfo.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static const char *marker_path(const char *marker, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", state_dir(), marker);
	return buf;
}

bool pseudo_fs_mount(struct pseudo_fs *fs, const char *type, const char *dir, const char *marker, char *why,
		     size_t len)
{
	char path[PATH_MAX], text[PATH_MAX + 16];
	int err;

	memset(fs, 0, sizeof(*fs));
	snprintf(fs->type, sizeof(fs->type), "%s", type);
	snprintf(fs->dir, sizeof(fs->dir), "%s", dir);
	snprintf(fs->marker, sizeof(fs->marker), "%s", marker);
	if (sysinfo_mounted_at(dir, type))
		return true;
	/* The marker before the mount: whoever finds it after a crash unmounts what it names. */
	snprintf(text, sizeof(text), "%d %s\n", (int)getpid(), dir);
	err = write_file_atomic(marker_path(marker, path, sizeof(path)), text, strlen(text));
	if (err) {
		snprintf(why, len, "cannot record the %s mount in %.200s: %s", type, path, strerror(err));
		return false;
	}
	if (mount(type, dir, type, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		snprintf(why, len, "%s is not mounted and mounting it at %s failed: %s", type, dir, strerror(errno));
		unlink(path);
		return false;
	}
	fs->mounted = true;
	return true;
}

void pseudo_fs_unmount(struct pseudo_fs *fs)
{
	char path[PATH_MAX];

	if (!fs->mounted)
		return;
	if (umount(fs->dir))
		rtt_warn("cannot unmount %s at %s (mounted by this run): %s", fs->type, fs->dir, strerror(errno));
	else
		unlink(marker_path(fs->marker, path, sizeof(path)));
	fs->mounted = false;
}

bool pseudo_fs_owner_gone(int pid, pid_t dead)
{
	return pid > 0 && (pid == dead || (kill(pid, 0) && errno == ESRCH));
}

void pseudo_fs_remove_stale(const char *type, const char *marker, pid_t dead)
{
	char path[PATH_MAX], text[PATH_MAX + 16], dir[PATH_MAX];
	int pid;

	if (!read_text_file(marker_path(marker, path, sizeof(path)), text, sizeof(text)) ||
	    sscanf(text, "%d %4095s", &pid, dir) != 2 || !pseudo_fs_owner_gone(pid, dead))
		return;
	if (sysinfo_mounted_at(dir, type) && umount(dir)) {
		rtt_warn("cannot unmount %s at %s, mounted by run %d that died: %s", type, dir, pid, strerror(errno));
		return;
	}
	unlink(path);
	rtt_err("unmounted %s at %s, mounted by run %d that died", type, dir, pid);
}
