// SPDX-License-Identifier: GPL-2.0-only
/* Synthetic schedules and the records spinners would write of them (unit_schedule.h). */
#include "unit_schedule.h"

#include <string.h>

void runs(struct schedule *s, uint64_t from, uint64_t to, enum owner who)
{
	if (to > s->end_ns)
		to = s->end_ns;
	if (from >= to)
		return;
	s->run[s->count].from = from;
	s->run[s->count].to = to;
	s->run[s->count].who = who;
	s->count++;
}

uint64_t unit_sample_step = CPU_SAMPLE_MIN_NS;

/* The samples `who` takes while it runs [from, to), its CPU time at `from` being `cpu`. */
static void samples_of(struct task_record *rec, uint64_t from, uint64_t to, uint64_t cpu, uint64_t *next)
{
	struct cpu_samples *s = &rec->samples;

	s->every_ns = unit_sample_step;
	for (uint64_t t = *next > from ? *next : from; unit_sample_step && t < to && s->count < CPU_SAMPLES_MAX;
	     t += unit_sample_step) {
		s->at[s->count++] = (struct cpu_sample){ (uint32_t)(t / 1000), (uint32_t)((cpu + (t - from)) / 1000) };
		*next = t + unit_sample_step;
	}
}

/* The record `who` would have written: a gap wherever it did not run. */
void record_of(const struct schedule *s, enum owner who, struct task_record *rec)
{
	uint64_t cpu = 0, idle_from = 0, next_sample = 0;

	memset(rec, 0, sizeof(*rec));
	rec->config.long_gap_ns = UNIT_LONG_GAP;
	rec->config.window_ns = s->end_ns;
	rec->first_ns = 1000 * UNIT_MS;
	rec->last_ns = rec->first_ns + s->end_ns;
	for (int i = 0; i <= s->count; i++) {
		bool mine = i < s->count && s->run[i].who == who;
		uint64_t at = i < s->count ? s->run[i].from : s->end_ns;

		if (!mine && i < s->count)
			continue;
		if (at - idle_from >= UNIT_LONG_GAP) {
			struct gap_event *g = &rec->gaps.long_gaps[rec->gaps.long_stored++];

			*g = (struct gap_event){ idle_from, at - idle_from, cpu };
			rec->gaps.long_total++;
			if (g->len_ns > rec->gaps.max_ns)
				rec->gaps.max_ns = g->len_ns;
		}
		if (i < s->count) {
			samples_of(rec, s->run[i].from, s->run[i].to, cpu, &next_sample);
			cpu += s->run[i].to - s->run[i].from;
			idle_from = s->run[i].to;
		}
	}
	rec->cpu_ns = cpu;
}

