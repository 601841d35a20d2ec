// SPDX-License-Identifier: GPL-2.0-only
/* A hog's time on the CPU by the trace less its CPU clock: the kernel's uncharged stalls. */
#include "trace_uncharged.h"
#include "cpu_timeline.h"

double trace_uncharged_us(const struct trace_input *in, const struct trace_gap *gaps, size_t count,
			  const struct task_record *rec)
{
	static struct cpu_timeline tl;	/* large: the merged samples */
	uint64_t span, off = 0;

	if (in->end_ns <= in->start_ns || rec->first_ns != in->start_ns || !cpu_timeline_build(rec, &tl))
		return -1;
	span = in->end_ns - in->start_ns < tl.end_ns ? in->end_ns - in->start_ns : tl.end_ns;
	for (size_t i = 0; i < count; i++) {
		uint64_t from = gaps[i].start_ns > in->start_ns ? gaps[i].start_ns - in->start_ns : 0;
		uint64_t to = gaps[i].end_ns > in->start_ns ? gaps[i].end_ns - in->start_ns : 0;

		if (to > span)
			to = span;
		if (to > from)
			off += to - from;
	}
	if (off > span)
		return -1;
	return ((double)(span - off) - cpu_timeline_between(&tl, 0, span)) / 1e3;
}
