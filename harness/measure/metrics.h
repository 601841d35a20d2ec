/* SPDX-License-Identifier: GPL-2.0-only */
/* Turns a task's raw record into the named metrics of results/README.md. */
#ifndef RTT_METRICS_H
#define RTT_METRICS_H

#include <stdint.h>

#include <json-c/json.h>

#include "task_shm.h"

struct task_metrics {
	double window_s;
	double cpu_share;	/* the kernel's CPU time for the task / window */
	uint64_t loops;
	uint64_t gap_count;
	double gap_total_us;
	double gap_max_us;
	uint64_t throttle_events;	/* gaps >= the throttle threshold */
	uint64_t gaps_without_cfs;	/* gaps >= the threshold the CFS witness slept through: no throttles */
	uint64_t gaps_charged;		/* a hog's gaps >= the threshold the kernel charged it as run: no throttles */
	/* A periodic task's gaps >= its throttle_gap_ns the witness slept through: a stall, no throttle. */
	uint64_t job_gaps_without_cfs;
	double throttle_interval_us;	/* median end-to-end of those gaps, 0 if fewer than 2 */
	/*
	 * The kernel's CPU time between the ends of the first and last throttle gaps, over that
	 * span: whole periods, so the window's phase does not bias it. 0 when fewer than 2 gaps.
	 */
	double cpu_share_periods;
	/* Median CPU time between consecutive throttle gap ends: the runtime RT got per cycle. */
	double throttle_cycle_cpu_us;
	double periods_span_s;
	double periods_from_s;	/* where that span starts, from the window start */
	double throttle_gap_median_us;
	double throttle_threshold_us;
	double loop_ns;		/* mean cost of one measuring step */
	/*
	 * The longest stretch of a gap the kernel charged to the task as CPU time: it was on the
	 * CPU by the scheduler's account, so the hypervisor (steal this one does not report) or an
	 * interrupt took it, not a throttle. Known within a sampling step; 0 without samples.
	 */
	double charged_stall_max_us;
};

/*
 * witness, or NULL. For an RT task: the gaps of a CFS spinner always runnable on the same CPU;
 * a gap of the RT task that the witness spent wholly in a gap of its own gave CFS nothing (the
 * CPU went to the hypervisor or an interrupt), so it is no throttle. For a victim: the gaps of
 * the one RT task on its CPU, always runnable; a short gap of the victim that the RT task spent
 * wholly in a gap of its own was no run of RT, so it starts no period.
 */
void metrics_compute(const struct task_record *rec, double throttle_threshold_us, const struct gap_stats *witness,
		     struct task_metrics *m);
/*
 * A role whose metrics its own file writes (cyclictest.c, load.c). metrics_to_json is given the
 * table (run/role_metrics.c) rather than calling those files: they sit beside it and use it.
 */
typedef void role_metrics_writer(json_object *obj, const struct task_record *rec);
struct role_metrics {
	enum task_role role;
	role_metrics_writer *write;	/* NULL ends a table */
};

/*
 * The metrics of one task by its role: the writer `roles` names for it, else the built-in ones.
 * Spinning victims name their longest gap starvation_max_us, hogs gap_max_us. Metrics that could
 * not be measured are left out.
 */
json_object *metrics_to_json(const struct task_record *rec, const struct task_metrics *m,
			     const struct role_metrics *roles);
json_object *gap_hist_to_json(const struct gap_stats *g);
json_object *latency_to_json(const struct latency_stats *s);
/*
 * latency_us of another tool's histogram (cyclictest, rtla timerlat): without `worst` (no times
 * kept), and without the percentiles that fall among its `overflows` (samples past its range).
 */
json_object *tool_latency_to_json(const struct latency_stats *s, uint64_t overflows);
double median(double *values, int count);

#endif
