/* SPDX-License-Identifier: GPL-2.0-only */
/* One result: a scenario under one policy (and sweep value, repetition): tasks, window, verdict. */
#ifndef RTT_RUN_CASE_H
#define RTT_RUN_CASE_H

#include <json-c/json.h>

#include "dl_floor.h"
#include "expect.h"
#include "kernel_model.h"
#include "knobs.h"
#include "privileges.h"
#include "rt_queue.h"
#include "trace.h"
#include "run.h"
#include "window.h"

struct run_ctx {
	const struct run_options *opt;
	struct window_shm *shm;
	struct kernel_facts facts;
	struct kernel_model model;
	struct dl_floor floor;	/* deadline bandwidth admitted: no knob write goes below it */
	struct regime_observation observed;
	struct noise_floor noise;
	struct knobs before;
	bool fair_server_mounted;	/* fair_server_mount held for the run: a policy sets it */
	char fair_server_why[420];	/* why the fair server cannot be set, "" when it can */
	json_object *root, *results;
	json_object *kernel_results;	/* regime-probe, kernel-defaults (kernel_results.h) */
	int ktap_number, passed, failed, skipped, errors;	/* failed counts errors too */
	char stop_reason[256];
	double last_steal_us;	/* VM steal on the measured CPU during the last window, -1 unknown */
	double last_timer_irqs;	/* local timer interrupts of the measured CPU in it, -1 unknown */
	double last_others_us;	/* CPU time tasks not of the window took on the measured CPU in it, -1 unknown */
	double loops_per_us;	/* calibration of the periodic task's loop, 0 until measured */
	int other_cpu;		/* an online CPU that is not measured, -1 if none */
	int64_t longest_period_us;	/* of any policy applied so far */
	int64_t settle_us;		/* waited between windows for the RT period timers */
	bool settle_pending;		/* the last window's RT time may not be forgiven yet */
	struct policy settle_policy;	/* that window's policy */
	uint64_t settle_left_ns;	/* a timer firing from then on forgives its RT time */
	struct privileges priv;
	int cases_runnable;	/* cases the privileges allow (all of them as root) */
	struct trace_session *trace;	/* sched_switch ground truth (harness/measure/trace.h) */
	bool rt_queue_readable;		/* the scheduler's debug file names the measured CPU's RT queue */
	char rt_queue_why[200];		/* why it cannot be read */
	bool rt_queue_read;		/* read as the last window began: */
	struct rt_queue_state rt_queue_at_start;
	int64_t rt_queue_waited_us;	/* waited before it for what that queue had run up */
	bool noise_remeasured;	/* the noise floor was measured again once, for a hollow check */
	double noise_s;		/* the noise floor's window: --noise-seconds, or the longest window planned */
};

/* Seconds a scenario's lead-in adds before the window under policy p (0 without one). */
double run_lead_in_s(const struct scenario *s, const struct policy *p);
/* Applies the policy (if any), runs the tasks for window_s, restores the knobs. */
enum window_status run_measure(struct run_ctx *ctx, const struct policy *p, const struct task_config *tasks,
			       int count, double window_s, char *why, size_t why_len);
/* A case's window: the scenario's or the run's, at least its min_periods, whole periods for a grid cell. */
double run_window_s(const struct run_options *opt, const struct scenario *s, const struct policy *p);
struct task_config run_task_config(enum task_role role, const char *name, int cpu, double window_s);
/* The limit a scenario's tasks meet under a policy (see run_case.c). */
void run_scenario_limiter(const struct kernel_model *m, const struct scenario *s, const struct policy *p,
			  struct limiter *out);
/*
 * Runs and judges one case; records it in ctx->results and prints its KTAP line. With
 * `may_retry`, a case left unjudged only because a tolerance (widened by the noise floor) is
 * as wide as what a check exists to catch is not recorded: it returns true, and the caller
 * measures the noise floor again and runs it once more.
 */
bool run_case(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int sweep, int rep,
	      bool may_retry);
/* A measured window, with what judging it needs beyond the run's context. */
struct window_taken {
	char name[192];		/* the case's name, as KTAP and the results call it */
	const struct scenario *scenario;
	const struct policy *policy;
	int sweep, count, traced;	/* traced: the task the trace followed, or -1 */
	double window_s;
	const struct window_align *align;
	json_object *res;	/* the result so far (case, policy, window figures) */
	json_object *trace;	/* the result's trace block */
};
/*
 * Judges a measured window, live or recorded (record.h): its tasks' metrics from ctx->shm, the
 * promise's periods, the checks. Records the result in ctx->results and prints its KTAP line;
 * takes w->res and w->trace. True (with may_retry) when the case is to run again instead.
 */
bool run_judge_window(struct run_ctx *ctx, struct window_taken *w, bool may_retry);
/* Records a skipped case. */
void run_skip_case(struct run_ctx *ctx, const struct scenario *s, const struct policy *p, int sweep, int rep,
		   const char *reason);

#endif
