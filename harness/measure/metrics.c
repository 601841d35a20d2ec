// SPDX-License-Identifier: GPL-2.0-only
/* Built-in roles' metrics: throttle events and whole periods from gap ends; each role's figures as JSON. */
#include "metrics.h"
#include "json_util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "latency.h"

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(double *values, int count)
{
	if (count <= 0)
		return 0;
	qsort(values, (size_t)count, sizeof(*values), compare_double);
	return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/*
 * A victim's whole periods. Its long gaps are the RT tasks' runs. Those start when the period
 * timer unthrottles RT, while they end when RT's runtime runs out, which in a window's first
 * period depends on what RT ran before it: so a victim's whole periods run from gap start to
 * gap start. It does not run in its gaps, so its CPU time at a gap's end is that at the gap's
 * start. A gap starts on the period grid only when the victim's run before it was a slot
 * (slot_min_ns): a few microseconds the fair server gave it mid-period split an RT run in two,
 * and the window's own start begins one off the grid. So runs of RT split by less than a slot
 * are one run, judged by its whole length against the threshold: the part after a split alone
 * could pass it (512 ms of 950, after 437 ms and 80 us of victim, at a threshold of 475 ms).
 * Gaps no longer than the machine's own (interruption_max_ns, below the threshold) are no runs
 * of RT: in a guest, kernel threads took 6 ms out of the victim's slot 4 ms before its end;
 * nor are stalls the kernel charged to the victim (victim_stall), nor, where the case has one
 * RT task on the victim's CPU (rt_witness), gaps that task spent wholly in a gap of its own: RT
 * did not run in them (a 9 ms gap stolen by the hypervisor 135 ms before RT's run at half,
 * uncharged and longer than the noise floor's, began a "period" there: 0.4145 of the CPU).
 */
static double charged_in_gap_ns(const struct cpu_samples *s, const struct gap_event *e);

/*
 * A throttled task's CPU clock stands still: a gap the kernel charged to a hog as run, for the
 * most part, was the machine's stall (63 ms under QEMU at -1, where sched_switch saw the hog
 * run throughout), not a slot.
 */
static bool hog_gap_charged(const struct task_record *rec, const struct gap_event *e)
{
	return (rec->config.role == ROLE_HOG || rec->config.role == ROLE_BURST_HOG) && rec->samples.every_ns &&
	       charged_in_gap_ns(&rec->samples, e) >= (double)e->len_ns / 2;
}
static bool witness_slept_through(const struct gap_stats *w, const struct gap_event *e);

/*
 * A gap shorter than the threshold that the kernel charged to the victim as its own CPU time,
 * for the most part, is the machine's stall, not a run of RT (which takes the CPU away): a
 * 14.5 ms stall mid-slot (the tick held back 10.5 ms with it) began a "period" there, and
 * the victim's share over whole periods read 0.413 at half.
 */
static bool victim_stall(const struct task_record *rec, const struct gap_event *e, double threshold_us)
{
	return rec->samples.every_ns && e->len_ns / 1000.0 < threshold_us &&
	       charged_in_gap_ns(&rec->samples, e) >= (double)e->len_ns / 2;
}

static void victim_whole_periods(const struct task_record *rec, double threshold_us, const struct gap_stats *rt_witness,
				 struct task_metrics *m)
{
	const struct gap_stats *g = &rec->gaps;
	const double slot_min_ns = rec->config.slot_min_ns ? (double)rec->config.slot_min_ns : threshold_us * 1000.0;
	const struct gap_event *run = NULL, *first = NULL, *last = NULL;
	uint64_t run_end_ns = 0, prev_end_ns = 0;
	bool run_after_slot = false;
	int cuts = 0;

	for (uint32_t i = 0; i <= g->long_stored; i++) {
		const struct gap_event *e = i < g->long_stored ? &g->long_gaps[i] : NULL;
		bool after_slot;

		/* A gap still open at the window end has no length of the kernel's: the run ends there. */
		if (e && rec->config.window_ns && e->start_ns + e->len_ns >= rec->config.window_ns)
			e = NULL;
		if (e && e->len_ns / 1000.0 < threshold_us &&
		    (e->len_ns <= rec->config.interruption_max_ns || victim_stall(rec, e, threshold_us) ||
		     witness_slept_through(rt_witness, e)))
			continue;
		after_slot = e && e->start_ns > 0 && (double)(e->start_ns - prev_end_ns) >= slot_min_ns;
		if (e && run && !after_slot) {
			run_end_ns = e->start_ns + e->len_ns;	/* the same run of RT, split */
			prev_end_ns = run_end_ns;
			continue;
		}
		if (run && run_after_slot && (double)(run_end_ns - run->start_ns) / 1000.0 >= threshold_us) {
			if (!first)
				first = run;
			last = run;
			cuts++;
		}
		if (!e)
			break;
		run = e;
		run_after_slot = after_slot;
		run_end_ns = prev_end_ns = e->start_ns + e->len_ns;
	}
	if (cuts >= 2) {
		uint64_t span = last->start_ns - first->start_ns;

		m->periods_span_s = span / 1e9;
		m->periods_from_s = first->start_ns / 1e9;
		m->cpu_share_periods = (double)(last->cpu_ns - first->cpu_ns) / (double)span;
	}
}

/*
 * Whether one of the witness's gaps holds all of e: the witness did not run during it. Not its
 * gap from the window's start: until it first ran it may not have been runnable (PREEMPT_RT
 * wakes a CFS task's timer through ktimers, FIFO 1, which RT starves: on 6.1-rt the victim
 * never runs, and every throttle of the hog beside it would read as a stall).
 */
static bool witness_slept_through(const struct gap_stats *w, const struct gap_event *e)
{
	for (uint32_t i = 0; w && i < w->long_stored; i++) {
		const struct gap_event *g = &w->long_gaps[i];

		if (g->start_ns > e->start_ns)
			break;
		if (g->start_ns > 0 && g->start_ns + g->len_ns >= e->start_ns + e->len_ns)
			return true;
	}
	return false;
}

static void throttle_stats(const struct task_record *rec, double threshold_us, const struct gap_stats *cfs_witness,
			   const struct gap_stats *rt_witness, struct task_metrics *m)
{
	const struct gap_stats *g = &rec->gaps;
	static double lens[LONG_GAPS_MAX], intervals[LONG_GAPS_MAX], cycles[LONG_GAPS_MAX];
	const struct gap_event *first = NULL, *last = NULL;
	int n = 0, k = 0, k_lens = 0;

	m->gaps_without_cfs = m->gaps_charged = 0;
	for (uint32_t i = 0; i < g->long_stored; i++) {
		const struct gap_event *e = &g->long_gaps[i];

		if (e->len_ns / 1000.0 < threshold_us)
			continue;
		/*
		 * A gap still open at the window end was ended by the window (its CFS tasks stopped
		 * there, and the CPU went back to RT): neither its length nor its end is the kernel's.
		 */
		if (rec->config.window_ns && e->start_ns + e->len_ns >= rec->config.window_ns)
			continue;
		/*
		 * CFS, given the CPU, runs its always-runnable spinner within a few of its slices:
		 * a gap that spinner slept through is the hypervisor's or an interrupt's (one of
		 * 28 ms at -1 shows in no sched_switch), not a slot.
		 */
		if (witness_slept_through(cfs_witness, e)) {
			m->gaps_without_cfs++;
			continue;
		}
		if (hog_gap_charged(rec, e)) {
			m->gaps_charged++;
			continue;
		}
		/* Ends, not starts: the kernel's period timer ends a throttle; a tick starts it. */
		if (last) {
			cycles[k] = (double)(e->cpu_ns - last->cpu_ns) / 1000.0;
			intervals[k++] = (double)(e->start_ns + e->len_ns - last->start_ns - last->len_ns) / 1000.0;
		}
		if (!first)
			first = e;
		last = e;
		/* A gap from the window's first instant was cut by the window: no length to judge. */
		if (e->start_ns > 0)
			lens[k_lens++] = (double)e->len_ns / 1000.0;
		n++;
	}
	m->throttle_events = (uint64_t)n;
	m->throttle_gap_median_us = median(lens, k_lens);
	m->throttle_interval_us = median(intervals, k);
	m->throttle_cycle_cpu_us = median(cycles, k);
	m->cpu_share_periods = m->periods_span_s = m->periods_from_s = 0;
	if (rec->config.role == ROLE_VICTIM) {
		victim_whole_periods(rec, threshold_us, rt_witness, m);
	} else if (n >= 2) {
		uint64_t span = last->start_ns + last->len_ns - first->start_ns - first->len_ns;

		m->periods_span_s = span / 1e9;
		m->periods_from_s = (first->start_ns + first->len_ns) / 1e9;
		m->cpu_share_periods = (double)(last->cpu_ns - first->cpu_ns) / (double)span;
	}
}

/*
 * The CPU time a gap charged: the CPU clock at its end less the clock at its start, taken
 * from the last sample before it as if the task ran on from there (an overestimate when it
 * was switched out in between: the charge found is then smaller, never larger).
 */
static double charged_in_gap_ns(const struct cpu_samples *s, const struct gap_event *e)
{
	int lo = 0, hi = (int)s->count - 1, at = -1;
	double start_cpu;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if ((uint64_t)s->at[mid].t_us * 1000 <= e->start_ns) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (at < 0)
		return 0;
	start_cpu = (double)s->at[at].cpu_us * 1000 + (double)(e->start_ns - (uint64_t)s->at[at].t_us * 1000);
	return fmin(fmax((double)e->cpu_ns - start_cpu, 0), (double)e->len_ns);
}

static double charged_stall_max_us(const struct task_record *rec)
{
	double longest = 0;

	if (!rec->samples.every_ns)
		return 0;
	for (uint32_t i = 0; i < rec->gaps.long_stored; i++)
		if (rec->gaps.long_gaps[i].start_ns > 0)
			longest = fmax(longest, charged_in_gap_ns(&rec->samples, &rec->gaps.long_gaps[i]));
	return longest / 1000.0;
}

void metrics_compute(const struct task_record *rec, double throttle_threshold_us, const struct gap_stats *witness,
		     struct task_metrics *m)
{
	const struct gap_stats *cfs_witness = NULL, *rt_witness = NULL;
	const struct gap_stats *g = &rec->gaps;
	uint64_t window_ns = rec->last_ns > rec->first_ns ? rec->last_ns - rec->first_ns : 1;

	m->window_s = (double)window_ns / 1e9;
	m->cpu_share = (double)rec->cpu_ns / (double)window_ns;
	m->loops = rec->iterations;
	m->gap_count = g->count;
	m->gap_total_us = (double)g->total_ns / 1000.0;
	m->gap_max_us = (double)g->max_ns / 1000.0;
	m->throttle_threshold_us = throttle_threshold_us;
	m->loop_ns = rec->iterations ? (double)rec->cpu_ns / (double)rec->iterations : 0;
	m->charged_stall_max_us = charged_stall_max_us(rec);
	/* A witness whose gaps were not all stored cannot say it slept through one. */
	if (witness && witness->long_total > witness->long_stored)
		witness = NULL;
	if (rec->config.role == ROLE_VICTIM)
		rt_witness = witness;
	else
		cfs_witness = witness;
	throttle_stats(rec, throttle_threshold_us, cfs_witness, rt_witness, m);
	m->job_gaps_without_cfs = 0;
	for (uint32_t i = 0; rec->config.role == ROLE_PERIODIC && cfs_witness && i < g->long_stored; i++)
		m->job_gaps_without_cfs += g->long_gaps[i].len_ns >= rec->config.throttle_gap_ns &&
					   witness_slept_through(cfs_witness, &g->long_gaps[i]);
}

json_object *gap_hist_to_json(const struct gap_stats *g)
{
	json_object *hist = json_object_new_object();

	for (int i = 0; i < GAP_HIST_BUCKETS; i++) {
		char key[24];

		if (!g->hist[i])
			continue;
		snprintf(key, sizeof(key), "%llu", 1ull << i);
		json_add_int64(hist, key, (int64_t)g->hist[i]);
	}
	return hist;
}

static json_object *events_to_json(const struct gap_event *events)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < LONGEST_GAPS && events[i].len_ns; i++) {
		json_object *e = json_object_new_object();

		json_add_double(e, "at_ms", events[i].start_ns / 1e6);
		json_add_double(e, "len_us", events[i].len_ns / 1e3);
		json_object_array_add(arr, e);
	}
	return arr;
}

/*
 * Throttle events of a burst hog inside and outside its bursts (see workloads/burst_hog.c). A
 * burst's own: one that starts in it or within the limit's interval after it, while the period
 * it ended in has its budget spent (measured under QEMU: a throttle 22 ms before a burst's end
 * held the light load's first job 29 ms past it). Outside: the light load alone was throttled.
 * Also the longest gap outside (gaps under long_gap_ns are not stored: 0), a time the machine's
 * witnessed stalls can be held against where a count cannot (a timer interrupt held back 30 ms
 * under QEMU made one light job's wake-up a "throttle").
 */
static void burst_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	const uint64_t every = rec->config.burst_every_ns, burst = rec->config.burst_ns;
	const uint64_t window = rec->config.window_ns, after = rec->config.interval_ns;
	uint64_t inside = 0, outside = 0, bursts = 0, outside_max_ns = 0;

	if (!every)
		return;
	for (uint64_t t = every / 2; t < window; t += every)
		bursts++;
	for (uint32_t i = 0; i < rec->gaps.long_stored; i++) {
		const struct gap_event *e = &rec->gaps.long_gaps[i];
		/* Time since the last burst began (bursts begin at every * k + every / 2). */
		bool before_first = e->start_ns < every / 2;
		uint64_t since = before_first ? 0 : (e->start_ns - every / 2) % every;
		bool in_burst = !before_first && since < burst + after;

		if (!in_burst && e->len_ns > outside_max_ns)
			outside_max_ns = e->len_ns;
		if (e->len_ns / 1000.0 < m->throttle_threshold_us || hog_gap_charged(rec, e))
			continue;
		if (in_burst)
			inside++;
		else
			outside++;
	}
	json_add_int64(obj, "bursts", bursts);
	json_add_int64(obj, "throttle_events_in_bursts", inside);
	json_add_int64(obj, "throttle_events_outside_bursts", outside);
	/* Gaps beyond the store were not seen: their longest is unknown. */
	if (rec->gaps.long_total <= rec->gaps.long_stored)
		json_add_double(obj, "gap_max_outside_bursts_us", outside_max_ns / 1000.0);
}

/* Spinners (hog, victim, noise, burst hog): CPU share, gaps, throttle or starvation events. */
static void spinner_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	bool hog = rec->config.role == ROLE_HOG || rec->config.role == ROLE_BURST_HOG;

	json_add_double(obj, "cpu_share", m->cpu_share);
	/* The same window by the scheduler's own accounting (/proc/thread-self/schedstat). */
	if (rec->schedstat_end_ns > rec->schedstat_begin_ns && rec->schedstat_begin_ns && m->window_s > 0)
		json_add_double(obj, "schedstat_share",
			   (double)(rec->schedstat_end_ns - rec->schedstat_begin_ns) / (m->window_s * 1e9));
	/* Metrics that were not measurable are left out, so no check judges a placeholder. */
	if (m->periods_span_s > 0) {
		json_add_double(obj, "cpu_share_periods", m->cpu_share_periods);
		json_add_double(obj, "periods_span_s", m->periods_span_s);
		json_add_double(obj, "periods_from_s", m->periods_from_s);
	}
	json_add_int64(obj, "loops", m->loops);
	json_add_double(obj, "loop_ns", m->loop_ns);
	json_add_double(obj, "gap_threshold_us", rec->config.gap_threshold_ns / 1e3);
	json_add_int64(obj, "gap_count", m->gap_count);
	json_add_double(obj, "gap_total_us", m->gap_total_us);
	json_add_double(obj, hog ? "gap_max_us" : "starvation_max_us", m->gap_max_us);
	if (rec->samples.every_ns)
		json_add_double(obj, "charged_stall_max_us", m->charged_stall_max_us);
	json_object_object_add(obj, "gap_hist_us", gap_hist_to_json(&rec->gaps));
	json_object_object_add(obj, "longest_gaps", events_to_json(rec->gaps.longest));
	json_add_double(obj, hog ? "throttle_threshold_us" : "starvation_threshold_us", m->throttle_threshold_us);
	json_add_int64(obj, hog ? "throttle_events" : "starvation_events", m->throttle_events);
	if (hog && m->gaps_without_cfs)
		json_add_int64(obj, "gaps_without_cfs", m->gaps_without_cfs);
	if (hog && m->gaps_charged)
		json_add_int64(obj, "gaps_charged", m->gaps_charged);
	if (m->throttle_gap_median_us > 0)
		json_add_double(obj, hog ? "throttle_gap_median_us" : "starvation_median_us", m->throttle_gap_median_us);
	if (hog && m->throttle_interval_us > 0)
		json_add_double(obj, "throttle_interval_us", m->throttle_interval_us);
	if (hog && m->throttle_cycle_cpu_us > 0)
		json_add_double(obj, "throttle_cycle_cpu_us", m->throttle_cycle_cpu_us);
	if (hog)
		json_add_int64(obj, "long_gaps_dropped", rec->gaps.long_total - rec->gaps.long_stored);
	if (rec->config.role == ROLE_BURST_HOG)
		burst_json(obj, rec, m);
}

json_object *latency_to_json(const struct latency_stats *s)
{
	json_object *obj = json_object_new_object(), *hist = json_object_new_object();

	json_add_int64(obj, "samples", s->count);
	if (!s->count)
		return json_object_put(hist), obj;
	json_add_double(obj, "min", s->min_ns / 1e3);
	json_add_double(obj, "avg", (double)s->sum_ns / (double)s->count / 1e3);
	json_add_double(obj, "p50", latency_percentile_us(s, 0.50));
	json_add_double(obj, "p99", latency_percentile_us(s, 0.99));
	json_add_double(obj, "p999", latency_percentile_us(s, 0.999));
	json_add_double(obj, "max", s->max_ns / 1e3);
	/* Non-empty buckets keyed by their lower bound in us. */
	for (int us = 0; us < LATENCY_LINEAR_US; us++)
		if (s->linear[us]) {
			char key[16];

			snprintf(key, sizeof(key), "%d", us);
			json_add_int64(hist, key, s->linear[us]);
		}
	for (int b = 0; b < LATENCY_LOG_BUCKETS; b++)
		if (s->log[b]) {
			char key[24];

			snprintf(key, sizeof(key), "%llu", (unsigned long long)LATENCY_LINEAR_US << b);
			json_add_int64(hist, key, s->log[b]);
		}
	json_object_object_add(obj, "hist", hist);
	json_object_object_add(obj, "worst", events_to_json(s->worst));
	return obj;
}

json_object *tool_latency_to_json(const struct latency_stats *s, uint64_t overflows)
{
	static const struct { const char *key; double fraction; } percentiles[] = {
		{ "p50", 0.50 }, { "p99", 0.99 }, { "p999", 0.999 },
	};
	json_object *obj = latency_to_json(s);
	uint64_t in_hist = s->count - overflows;

	/* The tools keep no times of their worst wake-ups. */
	json_object_object_del(obj, "worst");
	/* A percentile among the overflows is only known to be at least the range: leave it out. */
	for (size_t i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++)
		if ((uint64_t)(percentiles[i].fraction * (double)s->count + 0.5) > in_hist)
			json_object_object_del(obj, percentiles[i].key);
	return obj;
}

static void periodic_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	const struct periodic_stats *p = &rec->u.periodic;
	json_object *cpus = json_object_new_array();

	json_add_int64(obj, "jobs", p->jobs);
	json_add_int64(obj, "deadline_misses", p->deadline_misses);
	json_add_int64(obj, "throttled_misses", p->throttled_misses);
	/* Of the gaps that could make a miss "throttled", those CFS did not run in: stalls. */
	json_add_int64(obj, "gaps_without_cfs", m->job_gaps_without_cfs);
	json_add_int64(obj, "overrun_misses", p->overrun_misses);
	json_add_int64(obj, "inherited_misses", p->inherited_misses);
	json_add_double(obj, "throttle_gap_us", rec->config.throttle_gap_ns / 1e3);
	json_add_int64(obj, "preempted_jobs", p->preempted_jobs);
	json_add_int64(obj, "preemptions", p->preemptions);
	json_add_double(obj, "max_response_us", p->max_response_ns / 1e3);
	json_add_int64(obj, "work_loops", rec->config.work_loops);
	json_add_double(obj, "job_cpu_requested_us", rec->config.work_cpu_ns / 1e3);
	if (p->jobs) {
		json_add_double(obj, "job_cpu_us", p->work_cpu_ns / 1e3 / (double)p->jobs);
		/* What of it stalls charged as CPU time, and the longest overshoot they do not explain. */
		json_add_double(obj, "job_cpu_in_gaps_us", p->over_in_gaps_ns / 1e3 / (double)p->jobs);
		json_add_double(obj, "job_cpu_over_unexplained_max_us", p->over_unexplained_max_ns / 1e3);
	}
	/* The loop's speed in this window, beside the calibration's: the machine's drift. */
	if (p->work_cpu_ns)
		json_add_double(obj, "loops_per_cpu_us", (double)rec->iterations / (p->work_cpu_ns / 1e3));
	json_object_object_add(obj, "response_us", latency_to_json(&p->response));
	for (int c = 0; c < 32; c++)
		if (p->cpus_seen & 1u << c)
			json_object_array_add(cpus, json_object_new_int(c));
	json_object_object_add(obj, "cpus", cpus);
}

static void admin_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	(void)m;
	const struct admin_stats *a = &rec->u.admin;

	json_add_double(obj, "decided_ms", a->decided_ns / 1e6);
	json_add_int64(obj, "recovered", a->gone_ns > 0);
	if (a->gone_ns > 0)
		json_add_double(obj, "recovery_ms", (a->gone_ns - a->decided_ns) / 1e6);
	json_add_int64(obj, "kill_exit_status", WIFEXITED(a->kill_status) ? (uint64_t)WEXITSTATUS(a->kill_status) : 255);
}

/* Each invalid write with what the kernel did; refused = EINVAL with the value unchanged. */
static void invalid_writes_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	(void)m;
	const struct invalid_write_stats *st = &rec->u.invalid;
	json_object *writes = json_object_new_array();
	uint64_t refused = 0, accepted = 0, other = 0;

	for (int i = 0; i < st->tried && i < INVALID_WRITES_MAX; i++) {
		const struct invalid_write *w = &st->write[i];
		json_object *o = json_object_new_object();
		bool taken = !w->error || w->after != w->before;
		const char *name = w->error ? strerrorname_np(w->error) : NULL;

		accepted += taken;
		refused += !taken && w->error == EINVAL;
		other += !taken && w->error != EINVAL;
		json_add_str(o, "file", w->file);
		json_add_int64(o, "value", w->value);
		json_add_str(o, "invalid_because", w->why);
		json_add_int64(o, "before", w->before);
		json_add_int64(o, "after", w->after);
		json_add_str(o, "result", !w->error ? "accepted" : name ? name : "error");
		if (w->undone)
			json_add_bool(o, "put_back", w->undone > 0);
		json_object_array_add(writes, o);
	}
	json_add_int64(obj, "tried", (uint64_t)st->tried);
	json_add_int64(obj, "refused", refused);
	json_add_int64(obj, "accepted", accepted);
	json_add_int64(obj, "other_errors", other);
	json_object_object_add(obj, "writes", writes);
}

/* How a task ended, when the harness reaped it: killed tasks keep their partial figures. */
static void exit_json(json_object *obj, const struct task_record *rec)
{
	/* The kernel never let this RT task run again after the window: the harness moved it to CFS. */
	if (rec->demoted_ns)
		json_add_double(obj, "demoted_after_end_ms", rec->demoted_ns / 1e6);
	if (WIFSIGNALED(rec->exit_status)) {
		json_add_str(obj, "killed_by", strsignal(WTERMSIG(rec->exit_status)));
		json_add_int64(obj, "killed_by_signal", (uint64_t)WTERMSIG(rec->exit_status));
		json_add_double(obj, "cpu_at_exit_ms", rec->rusage_cpu_ns / 1e6);
	} else if (rec->config.may_be_killed && WIFEXITED(rec->exit_status)) {
		/*
		 * Its hard RLIMIT_RTTIME should have killed it, and it outlived its window: that
		 * is measured too (no signal, and the CPU time it had when it left on its own).
		 */
		json_add_int64(obj, "killed_by_signal", 0);
		json_add_double(obj, "cpu_at_exit_ms", rec->rusage_cpu_ns / 1e6);
	}
	if (rec->config.rttime_soft_us) {
		json_add_double(obj, "rttime_soft_ms", rec->config.rttime_soft_us / 1e3);
		json_add_double(obj, "rttime_hard_ms", rec->config.rttime_hard_us / 1e3);
		if (rec->u.rlimit.sigxcpu_cpu_ns)
			json_add_double(obj, "sigxcpu_cpu_ms", rec->u.rlimit.sigxcpu_cpu_ns / 1e6);
	}
}

/* The writer the table names for this role, or NULL. */
static role_metrics_writer *writer_for(enum task_role role, const struct role_metrics *roles)
{
	for (; roles && roles->write; roles++)
		if (roles->role == role)
			return roles->write;
	return NULL;
}

static void probe_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	json_add_double(obj, "cpu_share", m->cpu_share);
	json_add_int64(obj, "wakeups", rec->iterations);
	json_object_object_add(obj, "latency_us", latency_to_json(&rec->u.latency));
}

static void kernel_work_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	(void)m;
	json_add_int64(obj, "completions", rec->iterations);
	json_object_object_add(obj, "latency_us", latency_to_json(&rec->u.latency));
}

/* Jobs and what the kernel charged in between (wake-ups): the RT demand. */
static void periodic_role_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	json_add_double(obj, "cpu_share", m->cpu_share);
	periodic_json(obj, rec, m);
}

/* The metrics of the roles metrics.c knows itself; a role not listed is a spinner. */
static void builtin_role_json(json_object *obj, const struct task_record *rec, const struct task_metrics *m)
{
	static const struct {
		enum task_role role;
		void (*json)(json_object *obj, const struct task_record *rec, const struct task_metrics *m);
	} writers[] = {
		{ ROLE_PROBE, probe_json },
		{ ROLE_KERNEL_WORK, kernel_work_json },
		{ ROLE_PERIODIC, periodic_role_json },
		{ ROLE_ADMIN, admin_json },
		{ ROLE_INVALID_WRITES, invalid_writes_json },
	};

	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (writers[i].role == rec->config.role) {
			writers[i].json(obj, rec, m);
			return;
		}
	spinner_json(obj, rec, m);
}

json_object *metrics_to_json(const struct task_record *rec, const struct task_metrics *m,
			     const struct role_metrics *roles)
{
	json_object *obj = json_object_new_object();
	role_metrics_writer *write = writer_for(rec->config.role, roles);

	json_add_double(obj, "window_s", m->window_s);
	if (write)
		write(obj, rec);
	else
		builtin_role_json(obj, rec, m);
	exit_json(obj, rec);
	return obj;
}
