/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run's private folder for the files of the programs its tasks start (cyclictest's JSON,
 * the loads' output): BASE/rtthrottle-<harness pid>.XXXXXX, made with mkdtemp (0700), BASE
 * being /run/rtthrottle when it can be used, else $TMPDIR, else /tmp. Nobody else can create a
 * name in it, so no file root writes there can be a planted symlink; files are still created
 * with O_EXCL|O_NOFOLLOW. The run removes it at its end, its guardian when the run dies, and
 * the next run (private_dir_create) removes those of dead runs.
 */
#ifndef RTT_PRIVATE_DIR_H
#define RTT_PRIVATE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PRIVATE_DIR_RUN_BASE "/run/rtthrottle"
#define PRIVATE_DIR_PREFIX "rtthrottle-"
/* The flags every file in it is created with. */
#define PRIVATE_DIR_NEW_FILE (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)

/*
 * Removes dead runs' folders, then makes this run's. 0, or the errno of the last base tried
 * (message printed). Forked children (tasks, the guardian) inherit the path.
 */
int private_dir_create(void);
/* The folder, "" before private_dir_create. */
const char *private_dir_path(void);
/* DIR/NAME in buf (NAME a printf format); false when it does not fit. */
bool private_dir_file(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * Removes the folder and its files; its programs may still be exiting (killed by the guardian),
 * so it tries again for up to wait_s. Only the process that made it (or its guardian) calls this.
 */
void private_dir_remove(double wait_s);
/* Removes the folders of runs no longer alive that this user owns, in every base. */
void private_dir_remove_stale(void);
/* A process that is gone, or a zombie nobody reaped yet. */
bool process_gone(pid_t pid);

#endif
