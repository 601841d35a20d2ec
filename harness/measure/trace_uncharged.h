/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The time a hog was on its CPU by sched_switch that its CPU clock did not count: what the
 * kernel took from the task without switching it out. On a VM that is steal, which the
 * kernel keeps out of the task's clock (paravirt steal accounting) but /proc/stat reports in
 * whole USER_HZ steps (10 ms): a 4 ms stall there reads 0 or 10 ms. Where interrupt time is
 * accounted apart (IRQ_TIME_ACCOUNTING) it is in here too: both are stalls no switch shows.
 */
#ifndef RTT_TRACE_UNCHARGED_H
#define RTT_TRACE_UNCHARGED_H

#include <stddef.h>

#include <json-c/json.h>

#include "task_shm.h"
#include "trace_gaps.h"

/*
 * Over the window: its length less the followed task's switched-out time (every gap, clipped
 * to the window) less its CPU time there (cpu_timeline: within two sampling steps). For a
 * task that never sleeps, so that every time off the CPU is a gap of the trace. -1 when the
 * task's CPU timeline is unusable.
 */
double trace_uncharged_us(const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			  const struct task_record *rec);
/*
 * The most of it in any span of `within_ns` (a period of the limit: a slot is stolen whole
 * only when that much of it falls in one period). -1 when unusable.
 */
double trace_uncharged_max_us(const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			      const struct task_record *rec, uint64_t within_ns);
/* uncharged_us, and uncharged_max_us over uncharged_span_us (span_ns), where they can be told. */
void trace_uncharged_to_json(json_object *obj, const struct trace_input *in, const struct trace_gap *gaps,
			     size_t count, const struct task_record *rec, uint64_t span_ns);

#endif
