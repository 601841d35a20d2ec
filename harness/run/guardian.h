/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process that outlives the harness: if the harness dies before saying it is done (even by
 * SIGKILL), the guardian kills every task the run started and restores the saved knobs.
 */
#ifndef RTT_GUARDIAN_H
#define RTT_GUARDIAN_H

#include <stdbool.h>
#include <sys/types.h>

/* realtime: the guardian runs at SCHED_FIFO 99, above any hog (when the harness's CPU is hogged). */
bool guardian_start(bool realtime);
/* Tells the guardian which process group holds the current window's tasks. */
void guardian_watch_group(pid_t pgid);
/* The harness restored everything itself: the guardian leaves without acting. */
void guardian_release(void);

#endif
