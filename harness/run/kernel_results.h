/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run's results about the kernel itself, before the scenarios: `regime-probe` (the regime
 * the kernel showed against the one its version and config predict) and `kernel-defaults` (the
 * settings in force against the kernel's documented defaults, or the site's declared values).
 * Each is a KTAP result with its checks as subtests, an entry of `kernel_results` in the
 * results file, and counts in the exit status like a scenario's result.
 */
#ifndef RTT_KERNEL_RESULTS_H
#define RTT_KERNEL_RESULTS_H

#include "kernel_defaults.h"
#include "run_case.h"

/* KTAP results every run plans besides its scenarios' (run_planned_results). */
#define KERNEL_RESULTS 2

/*
 * regime-probe: with ctx->observed done, pass when it agrees with the prediction, else fail;
 * skip_why: SKIP with why (the probe was not asked for or may not run); error: the probe's
 * window failed (not ok, counted as an error).
 */
void kernel_results_regime(struct run_ctx *ctx, const char *skip_why, const char *error);
/* kernel-defaults: reads the settings in force and judges them; probe_why says why no probe ran. */
void kernel_results_defaults(struct run_ctx *ctx, const char *probe_why);
/* What the settings in force are, as far as they can be read (the knobs from ctx->before). */
void kernel_readings_collect(const struct run_ctx *ctx, struct kernel_readings *out);

#endif
