/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic schedules for unit tests: who ran when on the measured CPU, and the record a
 * spinner would have written of it (its long gaps, with its CPU time at each gap's end, and
 * its CPU clock read every sampling step while it ran).
 */
#ifndef RTT_UNIT_SCHEDULE_H
#define RTT_UNIT_SCHEDULE_H

#include <stdint.h>

#include "task_shm.h"

#define UNIT_MS 1000000ull
#define UNIT_LONG_GAP 200000ull

enum owner { NOBODY, RT, CFS };

struct schedule {
	uint64_t end_ns;
	int count;
	struct {
		uint64_t from, to;
		enum owner who;
	} run[4096];
};

/* The spinners' sampling step; 0 records the gaps' ends only. */
extern uint64_t unit_sample_step;

/* `who` runs [from, to) (cut at the schedule's end), after the runs added before. */
void runs(struct schedule *s, uint64_t from, uint64_t to, enum owner who);
/* The record `who` would have written: a gap wherever it did not run. */
void record_of(const struct schedule *s, enum owner who, struct task_record *rec);

#endif
