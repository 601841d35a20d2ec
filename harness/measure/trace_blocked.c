// SPDX-License-Identifier: GPL-2.0-only
/* Where the CFS spinner slept and its CPU idled (trace_blocked.h). */
#include "trace_blocked.h"
#include "json_util.h"

#include <stdlib.h>

size_t trace_blocked_find(const struct trace_input *in, int pid, struct trace_others_span *out, size_t max,
			  uint64_t *total_ns, bool *complete)
{
	/* Unknown before the first switch: not asleep, so nothing is excused on a guess. */
	bool asleep = false, idle = false;
	uint64_t since = in->start_ns;
	size_t n = 0;

	*total_ns = 0;
	*complete = true;
	for (size_t i = 0; i < in->count; i++) {
		const struct trace_switch *e = &in->ev[i];
		uint64_t at = e->ts_ns < in->start_ns ? in->start_ns : e->ts_ns > in->end_ns ? in->end_ns : e->ts_ns;

		if (e->cpu != in->cpu)
			continue;
		if (asleep && idle && at > since) {
			trace_others_span_add(out, max, &n, since, at, complete);
			*total_ns += at - since;
		}
		if (e->prev_pid == pid)
			asleep = !trace_state_runnable(e->prev_state);
		if (e->next_pid == pid)
			asleep = false;
		idle = e->next_kind == TRACE_IDLE;
		since = at;
	}
	if (asleep && idle && in->end_ns > since) {
		trace_others_span_add(out, max, &n, since, in->end_ns, complete);
		*total_ns += in->end_ns - since;
	}
	return n;
}

void trace_blocked_to_json(json_object *obj, const struct trace_input *in, int pid, const char *task)
{
	struct trace_others_span *spans = malloc(sizeof(*spans) * TRACE_BLOCKED_LISTED);
	json_object *o;
	uint64_t total;
	bool complete;
	size_t n;

	if (!spans)
		return;
	n = trace_blocked_find(in, pid, spans, TRACE_BLOCKED_LISTED, &total, &complete);
	o = json_object_new_object();
	json_add_str(o, "task", task);
	json_add_double(o, "idle_us", total / 1e3);
	if (complete) {
		json_object_object_add(o, "spans", trace_others_spans_json(in, spans, n, false));
	} else {
		json_add_int(o, "more_than", TRACE_BLOCKED_LISTED);
	}
	json_object_object_add(obj, "cfs_blocked", o);
	free(spans);
}
