// SPDX-License-Identifier: GPL-2.0-only
/* Where tasks not of the window ran on the measured CPU (trace_others.h). */
#include "trace_others.h"
#include "json_util.h"

#include <stdlib.h>

/* A CFS task or kernel thread the scenario did not start. */
static bool is_other(const struct trace_switch *e)
{
	return !e->next_task[0] && e->next_pid != 0 && e->next_kind != TRACE_IDLE && e->next_kind != TRACE_RT;
}

void trace_others_span_add(struct trace_others_span *out, size_t max, size_t *n, uint64_t from, uint64_t to,
			   bool *complete)
{
	if (to <= from)
		return;
	if (*n && from < out[*n - 1].to_ns + TRACE_OTHERS_JOIN_NS) {
		out[*n - 1].to_ns = to;
		out[*n - 1].ran_ns += to - from;
		return;
	}
	if (*n == max) {
		*complete = false;
		return;
	}
	out[(*n)++] = (struct trace_others_span){ from, to, to - from };
}

/* An RT task the scenario did not start (a kernel thread at FIFO): its time is RT's runtime. */
static bool is_other_rt(const struct trace_switch *e)
{
	return !e->next_task[0] && e->next_pid != 0 && e->next_kind == TRACE_RT;
}

/* A span after a lost switch: nobody's. */
static void add_lost(struct trace_unrecorded *lost, uint64_t from, uint64_t to)
{
	if (!lost || to <= from)
		return;
	lost->total_ns += to - from;
	trace_others_span_add(lost->spans, lost->max, &lost->count, from, to, &lost->complete);
}

size_t trace_others_find(const struct trace_input *in, struct trace_others_span *out, size_t max, uint64_t *total_ns,
			 uint64_t *rt_ns, bool *complete, struct trace_unrecorded *lost)
{
	bool other = false, other_rt = false, seen = false;
	uint64_t since = in->start_ns;
	int on_cpu = -1;	/* who the last switch put on the CPU */
	size_t n = 0;

	*total_ns = *rt_ns = 0;
	*complete = true;
	if (lost) {
		lost->count = 0;
		lost->total_ns = 0;
		lost->complete = true;
	}
	for (size_t i = 0; i < in->count; i++) {
		const struct trace_switch *e = &in->ev[i];
		uint64_t at = e->ts_ns < in->start_ns ? in->start_ns : e->ts_ns > in->end_ns ? in->end_ns : e->ts_ns;

		if (e->cpu != in->cpu)
			continue;
		if (seen && e->prev_pid != on_cpu) {
			add_lost(lost, since, at);
		} else {
			if (other && at > since) {
				trace_others_span_add(out, max, &n, since, at, complete);
				*total_ns += at - since;
			}
			if (other_rt)
				*rt_ns += at - since;
		}
		other = is_other(e);
		other_rt = is_other_rt(e);
		on_cpu = e->next_pid;
		seen = true;
		since = at;
	}
	if (other && in->end_ns > since) {
		trace_others_span_add(out, max, &n, since, in->end_ns, complete);
		*total_ns += in->end_ns - since;
	}
	if (other_rt)
		*rt_ns += in->end_ns - since;
	return n;
}

json_object *trace_others_spans_json(const struct trace_input *in, const struct trace_others_span *spans, size_t n,
				     bool with_ran)
{
	json_object *list = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_new_array();

		json_object_array_add(s, json_object_new_double((double)(spans[i].from_ns - in->start_ns) / 1e6));
		json_object_array_add(s, json_object_new_double((double)(spans[i].to_ns - in->start_ns) / 1e6));
		if (with_ran)
			json_object_array_add(s, json_object_new_double(spans[i].ran_ns / 1e3));
		json_object_array_add(list, s);
	}
	return list;
}

void trace_others_to_json(json_object *obj, const struct trace_input *in)
{
	struct trace_others_span *spans = malloc(sizeof(*spans) * TRACE_OTHERS_LISTED);
	struct trace_unrecorded lost = { .spans = malloc(sizeof(*spans) * TRACE_OTHERS_LISTED),
					 .max = TRACE_OTHERS_LISTED };
	json_object *o;
	uint64_t total, rt;
	bool complete;
	size_t n;

	if (!spans || !lost.spans) {
		free(spans);
		free(lost.spans);
		return;
	}
	n = trace_others_find(in, spans, TRACE_OTHERS_LISTED, &total, &rt, &complete, &lost);
	o = json_object_new_object();
	json_add_double(o, "total_us", total / 1e3);
	json_add_double(o, "rt_total_us", rt / 1e3);
	if (complete)
		json_object_object_add(o, "spans", trace_others_spans_json(in, spans, n, true));
	else
		json_add_int(o, "more_than", TRACE_OTHERS_LISTED);
	json_add_double(o, "unrecorded_us", lost.total_ns / 1e3);
	if (lost.complete)
		json_object_object_add(o, "unrecorded", trace_others_spans_json(in, lost.spans, lost.count, false));
	else
		json_add_int(o, "unrecorded_more_than", TRACE_OTHERS_LISTED);
	json_object_object_add(obj, "others", o);
	free(spans);
	free(lost.spans);
}
