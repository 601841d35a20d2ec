/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the window's CFS spinner slept and its CPU idled: a rest of the RT period nobody asked
 * for. A spinner sleeps only when something it waits for did not run (on PREEMPT_RT a lock or
 * a timer of an RT kernel thread, held back with the throttled RT class), and the kernel owes
 * CFS its rest only while CFS wants it. A spinner switched out runnable (preempted) is not
 * asleep: a kernel that idles the CPU then is at fault, and nothing here excuses it. Pure.
 */
#ifndef RTT_TRACE_BLOCKED_H
#define RTT_TRACE_BLOCKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "trace_gaps.h"
#include "trace_others.h"

#define TRACE_BLOCKED_LISTED 256	/* spans listed; more: the list is incomplete and not used */

/*
 * The spans (in time order, within the window) in which task `pid` had last left the CPU
 * asleep and the CPU ran idle, into out[] (max of them; ran_ns: the span's length); returns how
 * many, *total_ns their sum, *complete false when there were more than max.
 */
size_t trace_blocked_find(const struct trace_input *in, int pid, struct trace_others_span *out, size_t max,
			  uint64_t *total_ns, bool *complete);
/*
 * obj.cfs_blocked = {task, idle_us, spans: [[from_ms, to_ms], ...]} (ms from the window start;
 * more_than instead of spans when incomplete).
 */
void trace_blocked_to_json(json_object *obj, const struct trace_input *in, int pid, const char *task);

#endif
