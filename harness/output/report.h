/* SPDX-License-Identifier: GPL-2.0-only */
/* What a run prints: KTAP on stdout, progress with ETA on stderr. */
#ifndef RTT_REPORT_H
#define RTT_REPORT_H

#include <stdbool.h>

#include "expect.h"

void ktap_plan(int count);
/*
 * The checks of one result as an indented KTAP subtest named as the result's line will be
 * ("# Subtest: NAME", as the kernel's KTAP parser reads it), then nothing else.
 */
void ktap_checks(const char *name, const struct check *checks, int count);
void ktap_result(int number, bool ok, const char *name, const char *skip_reason);
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Progress: total seconds of windows planned, then one line per step. */
void progress_begin(bool quiet, double planned_s);
void progress_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_advance(double window_s);

#endif
