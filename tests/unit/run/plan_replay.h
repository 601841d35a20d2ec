/* SPDX-License-Identifier: GPL-2.0-only */
/* Checks knob plans step by step, as the kernel would see the writes. */
#ifndef RTT_PLAN_REPLAY_H
#define RTT_PLAN_REPLAY_H

#include "knob_plan.h"

/* The fair server of a 6.12+ kernel by default: 50 ms every 1 s per CPU. */
extern const struct dl_floor fair_server_default;

/*
 * Applies the plan's steps one at a time from `from`; every intermediate state must be valid
 * under `floor`, each step must change a knob, and the end state must equal `to`. Returns the
 * failures found (each one a failed CHECK).
 */
int plan_replay(const char *label, const struct knobs *from, const struct knobs *to, const struct dl_floor *floor,
		const struct knob_plan *plan);

#endif
