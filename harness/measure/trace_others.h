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
 * Where the trace does not say who ran: a switch was not recorded (the task leaving is not the
 * one the last switch put on the CPU), so the time since that last switch may be anybody's,
 * the window's own tasks' too. It counts as nobody's here; the judge leaves its periods out.
 */
struct trace_unrecorded {
	struct trace_others_span *spans;	/* ran_ns: the span's length */
	size_t max, count;
	uint64_t total_ns;
	bool complete;
};

/*
 * Fills out[] (max spans, in time order, within the window), *total_ns and *rt_ns (what RT
 * tasks the scenario did not start ran: kernel threads at FIFO, out of RT's runtime); returns
 * how many spans, and *complete false when there were more than max. `lost` (may be NULL)
 * gets the spans after a switch that was not recorded, which count in neither.
 */
size_t trace_others_find(const struct trace_input *in, struct trace_others_span *out, size_t max, uint64_t *total_ns,
			 uint64_t *rt_ns, bool *complete, struct trace_unrecorded *lost);
/* Appends [from, to) to out[] (n of max), joined to the last span when closer than JOIN_NS. */
void trace_others_span_add(struct trace_others_span *out, size_t max, size_t *n, uint64_t from, uint64_t to,
			   bool *complete);
/* [[from_ms, to_ms(, ran_us)], ...] from the window start. */
json_object *trace_others_spans_json(const struct trace_input *in, const struct trace_others_span *spans, size_t n,
				     bool with_ran);
/*
 * obj.others = {total_us, rt_total_us, spans: [[from_ms, to_ms, ran_us], ...], unrecorded_us,
 * unrecorded: [[from_ms, to_ms], ...]} (ms from the window start; more_than instead of spans,
 * unrecorded_more_than instead of unrecorded, when incomplete).
 */
void trace_others_to_json(json_object *obj, const struct trace_input *in);

#endif
