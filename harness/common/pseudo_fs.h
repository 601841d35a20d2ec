/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel pseudo filesystem (tracefs, debugfs) mounted for a run when it is not: a marker in the
 * state folder names the run first, so a run that dies leaves it for the guardian or `restore`
 * to unmount.
 */
#ifndef RTT_PSEUDO_FS_H
#define RTT_PSEUDO_FS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* debugfs, and its marker in the state folder: the fair server and the RT queue's debug file share it. */
#define DEBUGFS_MOUNT_DIR "/sys/kernel/debug"
#define DEBUGFS_MOUNT_MARKER "debugfs-mounted"

struct pseudo_fs {
	char type[16], dir[PATH_MAX], marker[64];
	bool mounted;	/* this run mounted it */
};

/*
 * Mounts `type` at dir unless it is mounted there (then only remembers where); marker is the
 * file name in the state folder. false, with why, when it can be neither found nor mounted.
 */
bool pseudo_fs_mount(struct pseudo_fs *fs, const char *type, const char *dir, const char *marker, char *why,
		     size_t len);
/* Unmounts it if this run mounted it. */
void pseudo_fs_unmount(struct pseudo_fs *fs);
/* A run's pid that no longer has its process (or is the one known dead). */
bool pseudo_fs_owner_gone(int pid, pid_t dead);
/* Unmounts what a dead run mounted (`dead`, or any run whose process is gone when 0). */
void pseudo_fs_remove_stale(const char *type, const char *marker, pid_t dead);

#endif
