// SPDX-License-Identifier: GPL-2.0-only
/*
 * A task's gaps followed switch by switch (the hog's, or a periodic RT task's waits from its
 * wake-ups): who ran in each, by kind and by task, and the JSON block.
 */
#include "trace_gaps.h"
#include "json_util.h"

#include <stdlib.h>
#include <string.h>

#define TASK_REPORT_BITS 0xffu	/* S D T t X Z P I: set when the task left the CPU not runnable */
#define PER_GAP_TASKS 16	/* distinct tasks tracked inside one gap before the rest is "other" */

bool trace_state_runnable(int64_t prev_state)
{
	return (prev_state & TASK_REPORT_BITS) == 0;
}

const char *trace_kind_name(enum trace_kind kind)
{
	static const char *const names[TRACE_KINDS] = { "cfs", "idle", "kthread", "rt" };

	return kind < TRACE_KINDS ? names[kind] : "?";
}

/* What runs on the followed task's CPU now, and since when. */
struct running {
	bool known;
	struct trace_ran who;
	uint64_t since_ns;
};

/* Adds ns of `who` to a table of at most max entries; false when full (the caller counts it as other). */
static bool add_ran(struct trace_ran *table, int *count, int max, const struct trace_ran *who, uint64_t ns)
{
	for (int i = 0; i < *count; i++)
		if (table[i].pid == who->pid && !strcmp(table[i].comm, who->comm)) {
			table[i].ns += ns;
			return true;
		}
	if (*count == max)
		return false;
	table[*count] = *who;
	table[(*count)++].ns = ns;
	return true;
}

static int longer_first(const void *a, const void *b)
{
	const struct trace_ran *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

struct gap_builder {
	struct trace_gap gap;
	struct trace_ran tasks[PER_GAP_TASKS];
	int task_count;
	bool open;
};

/* Who ran in the open gap from cur's start (or the gap's) until `until`. */
static void account(struct gap_builder *b, const struct running *cur, uint64_t until)
{
	uint64_t from = cur->since_ns > b->gap.start_ns ? cur->since_ns : b->gap.start_ns, ns;

	if (!b->open || until <= from)
		return;
	ns = until - from;
	if (!cur->known) {
		b->gap.unrecorded_ns += ns;
		return;
	}
	b->gap.by_kind_ns[cur->who.kind] += ns;
	if (!add_ran(b->tasks, &b->task_count, PER_GAP_TASKS, &cur->who, ns))
		b->gap.other_ns += ns;
}

static void open_gap(struct gap_builder *b, uint64_t at, bool cut)
{
	memset(b, 0, sizeof(*b));
	b->gap.start_ns = at;
	b->gap.cut_at_start = cut;
	b->open = true;
}

/* Closes the gap into the array; false when out of memory. */
static bool close_gap(struct gap_builder *b, const struct trace_input *in, uint64_t at, bool never_back,
		      struct trace_gap **gaps, size_t *count, size_t *cap, struct trace_summary *sum)
{
	struct trace_gap *g = &b->gap;
	uint64_t len;

	b->open = false;
	g->end_ns = at;
	g->open_at_end = never_back || at > in->end_ns;
	qsort(b->tasks, (size_t)b->task_count, sizeof(b->tasks[0]), longer_first);
	g->ran_count = b->task_count < TRACE_RAN_MAX ? b->task_count : TRACE_RAN_MAX;
	memcpy(g->ran, b->tasks, sizeof(g->ran[0]) * (size_t)g->ran_count);
	for (int i = g->ran_count; i < b->task_count; i++)
		g->other_ns += b->tasks[i].ns;
	for (int i = 0; i < b->task_count; i++)
		if (!add_ran(sum->top, &sum->top_count, TRACE_TOP_MAX, &b->tasks[i], b->tasks[i].ns))
			sum->other_ns += b->tasks[i].ns;
	for (int k = 0; k < TRACE_KINDS; k++)
		sum->by_kind_ns[k] += g->by_kind_ns[k];
	sum->unrecorded_ns += g->unrecorded_ns;
	if (*count == *cap) {
		size_t bigger = *cap ? *cap * 2 : 16;
		struct trace_gap *p = realloc(*gaps, bigger * sizeof(*p));

		if (!p)
			return false;
		*gaps = p;
		*cap = bigger;
	}
	(*gaps)[(*count)++] = *g;
	len = g->end_ns - g->start_ns;
	sum->gap_count++;
	sum->total_ns += len;
	if (len > sum->max_ns)
		sum->max_ns = len;
	/* As the hog counts them: a gap the window end cut short is no throttle event. */
	if (!g->open_at_end && len / 1000.0 >= in->throttle_threshold_us)
		sum->throttle_events++;
	return true;
}

size_t trace_gaps_find(const struct trace_input *in, struct trace_gap **gaps, struct trace_summary *sum)
{
	struct running cur = { 0 };
	struct gap_builder b = { 0 };
	size_t count = 0, cap = 0;
	bool task_running = false, started = false;
	size_t w = 0;

	memset(sum, 0, sizeof(*sum));
	*gaps = NULL;
	for (size_t i = 0; i <= in->count; i++) {
		const struct trace_switch *e = i < in->count ? &in->ev[i] : NULL;
		/* The last step closes what is still open at the window end (or the last event after it). */
		uint64_t ts = e ? e->ts_ns : (in->count && in->ev[in->count - 1].ts_ns > in->end_ns
						      ? in->ev[in->count - 1].ts_ns : in->end_ns);

		if (e && e->ts_ns >= in->start_ns && e->ts_ns <= in->end_ns)
			sum->events++;
		/*
		 * The task sleeps at the start barrier until the window opens (a periodic one: its
		 * first release): off the CPU then is a gap.
		 */
		if (!started && ts >= in->start_ns) {
			started = true;
			if (!task_running)
				open_gap(&b, in->start_ns, true);
		}
		/*
		 * Made runnable while off the CPU: a wait begins (a periodic task's release). A
		 * wake-up while it runs is a race with its going to sleep: no wait.
		 */
		for (; w < in->woken_count && in->woken_ns[w] <= ts; w++) {
			if (!started || task_running || b.open || in->woken_ns[w] > in->end_ns)
				continue;
			open_gap(&b, in->woken_ns[w], false);
		}
		if (e && e->cpu != in->cpu)
			continue;
		if (!e) {
			if (b.open) {
				account(&b, &cur, ts);
				/* The task never got the CPU back before the recording stopped. */
				if (!close_gap(&b, in, ts, true, gaps, &count, &cap, sum))
					goto oom;
			}
			break;
		}
		/*
		 * The task leaving is not the one the last event put on the CPU: a switch in between
		 * was not recorded. Who ran since is unsure; a gap the task left that way has no end.
		 */
		if (cur.known && e->prev_pid != cur.who.pid)
			cur.known = false;
		if (b.open && e->prev_pid == in->task_pid) {
			b.open = false;
			sum->unresolved++;
		}
		account(&b, &cur, e->ts_ns);
		if (e->prev_pid == in->task_pid) {
			sum->task_seen = true;
			task_running = false;
			if (started && !b.open && e->ts_ns <= in->end_ns && trace_state_runnable(e->prev_state))
				open_gap(&b, e->ts_ns, false);
		}
		if (e->next_pid == in->task_pid) {
			sum->task_seen = true;
			task_running = true;
			if (b.open && !close_gap(&b, in, e->ts_ns, false, gaps, &count, &cap, sum))
				goto oom;
		}
		cur = (struct running){ .known = true, .since_ns = e->ts_ns,
					.who = { .pid = e->next_pid, .kind = e->next_kind } };
		memcpy(cur.who.comm, e->next_comm, sizeof(cur.who.comm));
		cur.who.comm[TRACE_COMM_LEN - 1] = '\0';
		memcpy(cur.who.task, e->next_task, sizeof(cur.who.task));
		cur.who.task[sizeof(cur.who.task) - 1] = '\0';
	}
	qsort(sum->top, (size_t)sum->top_count, sizeof(sum->top[0]), longer_first);
	if (!sum->task_seen) {
		/* Without one event of the hog the window-start gap is a guess: report none. */
		free(*gaps);
		*gaps = NULL;
		count = 0;
		memset(sum->by_kind_ns, 0, sizeof(sum->by_kind_ns));
		sum->gap_count = sum->total_ns = sum->max_ns = sum->throttle_events = sum->other_ns = 0;
		sum->unresolved = sum->unrecorded_ns = 0;
		sum->top_count = 0;
	}
	return count;
oom:
	free(*gaps);
	*gaps = NULL;
	return (size_t)-1;
}

static json_object *ran_json(const struct trace_ran *r)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "comm", r->comm);
	json_add_int(obj, "pid", r->pid);
	json_add_str(obj, "kind", trace_kind_name(r->kind));
	if (r->task[0])
		json_add_str(obj, "task", r->task);
	json_add_double(obj, "us", r->ns / 1e3);
	return obj;
}

static json_object *gap_json(const struct trace_input *in, const struct trace_gap *g)
{
	json_object *obj = json_object_new_object(), *ran = json_object_new_array(), *kinds = json_object_new_object();

	json_add_double(obj, "start_ms", (double)(g->start_ns - in->start_ns) / 1e6);
	json_add_double(obj, "end_ms", (double)(g->end_ns - in->start_ns) / 1e6);
	json_add_double(obj, "len_us", (double)(g->end_ns - g->start_ns) / 1e3);
	if (g->cut_at_start)
		json_add_bool(obj, "cut_at_start", true);
	if (g->open_at_end)
		json_add_bool(obj, "open_at_end", true);
	for (int k = 0; k < TRACE_KINDS; k++)
		if (g->by_kind_ns[k])
			json_add_double(kinds, trace_kind_name(k), g->by_kind_ns[k] / 1e3);
	json_object_object_add(obj, "by_kind_us", kinds);
	for (int i = 0; i < g->ran_count; i++)
		json_object_array_add(ran, ran_json(&g->ran[i]));
	json_object_object_add(obj, "ran", ran);
	if (g->other_ns)
		json_add_double(obj, "other_us", g->other_ns / 1e3);
	if (g->unrecorded_ns)
		json_add_double(obj, "unrecorded_us", g->unrecorded_ns / 1e3);
	return obj;
}

static int longer_gap_first(const void *a, const void *b)
{
	const struct trace_gap *x = *(const struct trace_gap *const *)a, *y = *(const struct trace_gap *const *)b;
	uint64_t lx = x->end_ns - x->start_ns, ly = y->end_ns - y->start_ns;

	return (lx < ly) - (lx > ly);
}

static int earlier_first(const void *a, const void *b)
{
	const struct trace_gap *x = *(const struct trace_gap *const *)a, *y = *(const struct trace_gap *const *)b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The longest TRACE_GAPS_LISTED gaps, in time order. */
static json_object *gaps_json(const struct trace_input *in, const struct trace_gap *gaps, size_t count)
{
	const struct trace_gap *order[TRACE_GAPS_LISTED + 1];
	json_object *arr = json_object_new_array();
	size_t n = 0;

	for (size_t i = 0; i < count; i++) {
		order[n++] = &gaps[i];
		if (n > TRACE_GAPS_LISTED) {
			qsort(order, n, sizeof(order[0]), longer_gap_first);
			n = TRACE_GAPS_LISTED;
		}
	}
	qsort(order, n, sizeof(order[0]), earlier_first);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, gap_json(in, order[i]));
	return arr;
}

void trace_gaps_to_json(json_object *obj, const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			const struct trace_summary *sum)
{
	json_object *share = json_object_new_object(), *top = json_object_new_array();

	json_add_int64(obj, "events", (int64_t)sum->events);
	json_add_bool(obj, "task_seen", sum->task_seen);
	json_add_double(obj, "throttle_threshold_us", in->throttle_threshold_us);
	json_add_int64(obj, "gap_count", (int64_t)sum->gap_count);
	json_add_double(obj, "gap_total_us", sum->total_ns / 1e3);
	json_add_double(obj, "gap_max_us", sum->max_ns / 1e3);
	json_add_int64(obj, "throttle_events", (int64_t)sum->throttle_events);
	json_add_int64(obj, "gaps_unresolved", (int64_t)sum->unresolved);
	for (int k = 0; k < TRACE_KINDS; k++)
		json_add_double(share, trace_kind_name(k),
				sum->total_ns ? (double)sum->by_kind_ns[k] / (double)sum->total_ns : 0);
	json_add_double(share, "unrecorded", sum->total_ns ? (double)sum->unrecorded_ns / (double)sum->total_ns : 0);
	json_object_object_add(obj, "gap_share", share);
	for (int i = 0; i < sum->top_count; i++)
		json_object_array_add(top, ran_json(&sum->top[i]));
	json_object_object_add(obj, "ran", top);
	json_add_int64(obj, "gaps_listed", (int64_t)(count < TRACE_GAPS_LISTED ? count : TRACE_GAPS_LISTED));
	json_object_object_add(obj, "gaps", gaps_json(in, gaps, count));
}
