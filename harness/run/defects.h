/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Defects of known size put into a recorded healthy window (`rtthrottle judge --inject`,
 * `make power`): each moves CPU time between the FIFO hog and the CFS task on the measured
 * CPU, period by period on the kernel's own period grid (the trace's RT timer firings), as a
 * kernel with that bug would have; a timer on a wrong period moves the traced firings too.
 * Each names the checks that exist to catch it.
 */
#ifndef RTT_DEFECTS_H
#define RTT_DEFECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "record.h"

enum defect_kind {
	DEFECT_RT_SHORT,	/* RT throttled `size` of the period early, every period */
	DEFECT_LATE,		/* the throttle `size` ticks late, every period (RT gets runtime + size ticks) */
	DEFECT_LATE_CARRIED,	/* `size` ticks late, the overrun charged to the next period: late, early, ... */
	DEFECT_MISSED,		/* no throttle in one period: RT runs through the slot */
	DEFECT_SLOT_WITHHELD,	/* one period's CFS slot `size` ms short: RT runs into it */
	DEFECT_SLOT_HALVED,	/* CFS's slot (the hog's longest gap) in every period half as long */
	DEFECT_WRONG_PERIOD,	/* RT refilled every (1 + size) periods: the timer on a wrong period */
	DEFECT_FS_SHORT,	/* RT unthrottled: the fair server's slots `size` as long */
};

struct defect {
	const char *name;
	enum defect_kind kind;
	double size;
	const char *catches;	/* the checks that exist for it: task.metric, comma-separated */
	const char *doc;
};

const struct defect *defect_table(size_t *count);
const struct defect *defect_find(const char *name);
void defect_names(char *buf, size_t len);
void defect_list(FILE *out);
/* record_change_fn: arg is the struct defect. */
bool defect_apply(struct record_window_view *w, const void *arg, char *why, size_t why_len);

#endif
