/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Settling between windows, so that no window inherits RT time another ran up (the kernel
 * forgives it only when its RT period timer fires) nor a period the timer has not taken yet.
 */
#ifndef RTT_SETTLE_H
#define RTT_SETTLE_H

#include "run_case.h"

/* After a window, its knobs still in force: see settle.c. */
void run_settle_before_restore(struct run_ctx *ctx, const struct policy *p);
/*
 * Before a window, or at the run's end: waits, if it must, until the RT time the last window
 * ran up is forgiven.
 */
void run_settle_due(struct run_ctx *ctx);
/* After a window, with the knobs put back. */
void run_settle_after(struct run_ctx *ctx, const struct policy *p);
/* After a window run under the knobs in force (the calibration): its RT time waits as a policy's. */
void run_settle_after_knobs(struct run_ctx *ctx);
/* Right after policy p's knobs are written, before its window. */
void run_settle_before(struct run_ctx *ctx, const struct policy *p);

/*
 * Right before policy p's window, after run_settle_before: reads the measured CPU's RT queue
 * (ctx->rt_queue_at_start) and, under a limited policy, waits until the kernel has forgiven what
 * it ran up (see settle.c).
 */
void run_settle_queue(struct run_ctx *ctx, const struct policy *p);

#endif
