/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where tasks not of the window ran on the measured CPU, from the sched_switch events: CFS
 * tasks and kernel threads (not idle; not RT, whose time comes out of RT's runtime). They
 * share CFS's rest with the window's CFS task, so a period's rest is judged with what they
 * took in that period, placed by the trace, instead of all they took in the window. Pure.
 */
#ifndef RTT_TRACE_OTHERS_H
#define RTT_TRACE_OTHERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "trace_gaps.h"

#define TRACE_OTHERS_LISTED 2048	/* spans listed; more: the list is incomplete and not used */
#define TRACE_OTHERS_JOIN_NS 100000ull	/* runs closer than this are one span */

struct trace_others_span {
	uint64_t from_ns, to_ns;	/* CLOCK_MONOTONIC */
	uint64_t ran_ns;		/* what they ran in it */
};

/*
 * Fills out[] (max spans, in time order, within the window), *total_ns and *rt_ns (what RT
 * tasks the scenario did not start ran: kernel threads at FIFO, out of RT's runtime); returns
 * how many spans, and *complete false when there were more than max.
 */
size_t trace_others_find(const struct trace_input *in, struct trace_others_span *out, size_t max, uint64_t *total_ns,
			 uint64_t *rt_ns, bool *complete);
/*
 * obj.others = {total_us, rt_total_us, spans: [[from_ms, to_ms, ran_us], ...]} (ms from the
 * window start; more_than instead of spans when incomplete).
 */
void trace_others_to_json(json_object *obj, const struct trace_input *in);

#endif
