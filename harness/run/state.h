/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a run leaves in the state folder (/run/rtthrottle, or $RTTHROTTLE_STATE_DIR):
 * `lock` (flock, holds the owner's pid) and `state.json` (the knobs as found, written before
 * the first write, removed once they are back).
 */
#ifndef RTT_STATE_H
#define RTT_STATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "knobs.h"

const char *state_file_path(void);

/*
 * Takes the exclusive run lock; returns its fd, or -1 after saying which pid holds it (or,
 * when flock fails otherwise, why).
 */
int state_lock(void);
/* Replaces flock(2) for the run lock, so tests can make it fail; NULL puts flock back. */
void state_set_flock(int (*call)(int fd, int operation));
/*
 * For a run that writes no knobs: takes an existing lock (opened read-only) so it does not
 * measure while another run changes them. -2 when there is no lock file, -1 when it is held.
 */
int state_lock_if_present(void);

bool state_save(const struct knobs *original, pid_t owner);
/* 1 loaded, 0 no state file, -1 unreadable or malformed (message printed). */
int state_load(struct knobs *original, pid_t *owner);
void state_remove(void);
/*
 * Removes state.json.tmp.* and tracefs-mounted.tmp.* (write_file_atomic temps of a writer
 * killed mid-write). Only the
 * lock's holders write there (a run, its guardian, restore), so call it holding the lock.
 */
void state_remove_stale_temps(void);

/*
 * Puts back the knobs saved in the state file and removes it. Returns true when there was
 * nothing to do or the knobs now equal the saved values.
 */
bool state_restore(void);

#endif
