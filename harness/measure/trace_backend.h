/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sched_switch recorder behind harness/measure/trace.c: one tracefs instance, its CPU mask, clock and
 * buffer. harness/measure/trace_tracefs.c implements it with libtracefs and libtraceevent;
 * harness/measure/trace_none.c (make WITH_TRACEFS=0) only says why there is none.
 */
#ifndef RTT_TRACE_BACKEND_H
#define RTT_TRACE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_gaps.h"

struct recorder;

/*
 * Creates instance `name` under tracing_dir recording sched:sched_switch, with the wake-up
 * interrupts sent to the ncpus `cpus`, on the CLOCK_MONOTONIC trace clock, tracing off. NULL
 * with why.
 */
struct recorder *recorder_open(const char *tracing_dir, const char *name, const int *cpus, int ncpus, char *why,
			       size_t len);
/* Per traced CPU buffer of at least kb KiB, emptied, then tracing on. */
bool recorder_start(struct recorder *r, const int *cpus, int ncpus, size_t kb, char *why, size_t len);
void recorder_stop(struct recorder *r);
/*
 * Hands every recorded sched_switch to fn, in time order per CPU; *lost gets the events the
 * kernel overwrote or dropped on the traced CPUs since recorder_start. False with why.
 */
bool recorder_read(struct recorder *r, const int *cpus, int ncpus,
		   void (*fn)(void *ctx, const struct trace_switch *ev), void *ctx, uint64_t *lost, char *why, size_t len);
/* What the tick events handed to fn are (the tick's handler, or the timer interrupt); NULL: none. */
const char *recorder_tick_source(const struct recorder *r);
/* Whether the tasks made runnable on the traced CPUs are handed to fn (woken). */
bool recorder_wakeups_traced(const struct recorder *r);
/* Whether the wake-up interrupts sent to the traced CPUs are recorded (none may be sent). */
bool recorder_ipi_traced(const struct recorder *r);
/*
 * Whether every timer interrupt of the traced CPUs that woke a sleeper is handed to fn (as
 * wake_timer, or as the tick where every timer interrupt is one).
 */
bool recorder_wake_timer_traced(const struct recorder *r);
/* Removes the instance. */
void recorder_close(struct recorder *r);
/* Whether this build can record at all; why when not. */
bool recorder_built_in(char *why, size_t len);

#endif
