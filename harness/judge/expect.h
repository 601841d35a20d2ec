/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The expectation model: from the kernel's regime and the policy, what each metric should be,
 * with a tolerance derived from the physics (tick, period, window, measured noise floor) and the
 * rule that produced it.
 */
#ifndef RTT_EXPECT_H
#define RTT_EXPECT_H

#include <stdbool.h>

#include <json-c/json.h>

#include "kernel_model.h"
#include "metrics.h"
#include "policy.h"
#include "verdict.h"

enum check_kind {
	CHECK_APPROX,	/* |measured - expected| <= tolerance */
	CHECK_AT_LEAST,	/* measured >= expected - tolerance */
	CHECK_AT_MOST,	/* measured <= expected + tolerance */
};

/*
 * Room for the longest rule any writer composes, so none is cut: judge.c's (the hollow prefix,
 * 200; the scenario's why, 160; the limiter's why, 200; expect and tolerance, EXPR_MAX each;
 * the regimes, 96; its own words and the regime name) and kernel_defaults.c's and
 * kernel_model.c's (fixed words around a few short fields). judge.c asserts its bound.
 */
#define CHECK_RULE_MAX 1536

struct check {
	char task[16];
	char metric[40];
	const char *unit;
	double measured, expected, tolerance;
	enum check_kind kind;
	char label[24];		/* the scenario check's "name", or empty */
	char rule[CHECK_RULE_MAX];
	bool was_measured;	/* false: not judged (not measurable in this window, or hollow) */
	bool hollow;		/* measured, but the tolerance is at least the regression it exists to catch */
	bool no_trace;		/* a cross-check on the sched_switch trace in a result without one */
	/*
	 * Its condition ("if") does not hold in this window: recorded with why, verdict not
	 * applicable, and counted apart; it neither passes nor leaves the result unjudged.
	 */
	bool not_applicable;
	bool skipped;		/* not measured for a stated reason that is no fault of the run (a
				   setting this system does not let anyone read): verdict skip,
				   not not measured; the rule starts "not measured: <why>" */
	double detects;		/* that regression; 0: none declared */
	const char *detects_why;	/* that regression in words: the scenario's or the metric default's */
	const char *tolerance_why;	/* the scenario's reason for a tolerance over half the expected value, or "" */
	bool passed;
};

struct noise_floor {
	double window_s;
	double gap_max_us;
	double loss_share;	/* wall time a lone SCHED_OTHER spinner lost in gaps (interrupts included) */
	/*
	 * CPU time it lost: the share of the window its CPU clock did not count. Interrupts on its
	 * CPU are charged to it, so this, not the gaps, is the noise in what the kernel's CPU clock
	 * measures (shares, time per period); ~0.1% here against ~2.8% of the wall in gaps.
	 */
	double cpu_loss_share;
	double loop_ns;		/* one step of the measuring loop on this CPU */
};

/* What limits a FIFO hog that has a CFS task beside it, under one policy. */
struct limiter {
	enum regime regime;
	bool limited;		/* false: nothing gives CFS time */
	bool at_least_only;	/* runtime sharing: the hog may borrow beyond its share */
	double hog_share;
	double gap_us;		/* the CFS slot each interval */
	double interval_us;
	double max_slot_us;	/* the longest CFS slot, when two mechanisms give slots */
	double share_band;	/* how far the hog's share may sit below hog_share + band, both ways */
	char why[200];
};

void limiter_for(const struct kernel_model *km, const struct policy *p, struct limiter *out);
/* The gap length above which a hog's gap counts as a throttle event. */
double throttle_threshold_us(const struct limiter *l, const struct noise_floor *noise, double tick_us);
/*
 * The gap inside a job of a periodic RT task at `utilisation` above which the limit cut in:
 * demand above the RT share runs the budget out early, and RT then waits the rest of the
 * interval, interval x (1 - share / utilisation): half of that, at most half the slot.
 */
double periodic_throttle_gap_us(const struct limiter *l, const struct noise_floor *noise, double tick_us,
				double utilisation);
/*
 * The longest a CFS task waits under a limit giving it `slot_us` every `interval_us`: two RT
 * runs back to back across a boundary, and where a tick outlasts the slot, a whole period
 * without one for each slot it outlasts (until the carried overrun is paid).
 */
double throttle_wait_bound_us(double interval_us, double slot_us, double tick_us);
/* The gap length above which a CFS victim's gap counts as a starvation event. */
double starvation_threshold_us(const struct limiter *l, const struct noise_floor *noise, double tick_us);

/* Its verdict: not applicable, unjudged (hollow), skip, not measured, pass or fail, the first that holds. */
enum verdict check_verdict(const struct check *c);
json_object *check_to_json(const struct check *c);
/* A tolerance over half the expected value: the check carries its reason (`tolerance_why`). */
bool check_tolerance_wide(const struct check *c);
const char *check_kind_name(enum check_kind k);

#endif
