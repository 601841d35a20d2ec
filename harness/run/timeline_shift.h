/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rewrites a spinner's record as if it had run in some spans and not in others: its CPU-clock
 * samples, gaps and CPU totals, consistently, so every metric and promise figure read from it
 * sees the changed run. Used to put a defect of known size into a recorded healthy window
 * (defects.c). A spinner runs at one CPU second a second while on the CPU; gaps shorter than
 * the record's long-gap threshold are known only as counts and stay as they were.
 */
#ifndef RTT_TIMELINE_SHIFT_H
#define RTT_TIMELINE_SHIFT_H

#include <stdbool.h>
#include <stdint.h>

#include "task_shm.h"

/* [from_ns, to_ns) from the window start. */
struct shift_span {
	uint64_t from_ns, to_ns;
};

#define SHIFT_SPANS_MAX 512

/*
 * The task runs in every span of `on` and not in any of `off` (spans sorted, not overlapping
 * within a list). False when the record is no spinner's (no samples) or the result would not
 * fit its arrays.
 */
bool timeline_shift(struct task_record *rec, const struct shift_span *on, int on_count, const struct shift_span *off,
		    int off_count);

#endif
