/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which throttling mechanisms this kernel has, predicted from its version and config and then
 * confirmed by behaviour (the regime probe). The expectation model works from the prediction, so
 * a kernel that does not behave as documented fails its checks instead of redefining them.
 */
#ifndef RTT_KERNEL_MODEL_H
#define RTT_KERNEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "policy.h"
#include "sysinfo.h"

enum regime {
	REGIME_CLASSIC,		/* RT throttling: RT gets runtime/period, the rest is idle or CFS */
	REGIME_RUNTIME_SHARE,	/* RT_RUNTIME_SHARE: a CPU's RT may borrow other CPUs' runtime */
	REGIME_FAIR_SERVER_ONLY,	/* no RT limit, but the deadline fair server reserves CFS time */
	REGIME_NO_LIMIT,	/* nothing stops a FIFO task: CFS on its CPU starves */
	REGIME_TIMERS_STARVED,	/* RT throttled, but CFS tasks wake from timer sleeps only via the
				   RT thread ktimers, throttled and starved with RT: CFS starves */
};
#define REGIME_COUNT (REGIME_TIMERS_STARVED + 1)

/* Sets of regimes, as a scenario's checks name the ones they apply in. */
enum regime_mask {
	REGIMES_ANY = (1 << REGIME_COUNT) - 1,	/* every regime: a check without "regimes" */
	REGIMES_LIMITED = 1 << REGIME_CLASSIC | 1 << REGIME_FAIR_SERVER_ONLY,
};

struct kernel_model {
	bool fair_server;	/* 6.12+: deadline server for CFS, and on */
	bool fair_server_kernel;	/* 6.12+: the kernel has one, on or off */
	bool rt_bandwidth;	/* classic RT throttling is enforced when runtime != -1 */
	bool rt_runtime_share;	/* the RT_RUNTIME_SHARE sched feature is on by default */
	int timer_thread_priority;	/* CFS timer wake-ups run in an RT thread of this priority (0: not) */
	int64_t fs_runtime_us, fs_period_us;	/* fair server: debugfs's values, else the defaults */
	bool fs_from_debugfs;
	/*
	 * 7.0+ with CONFIG_SCHED_CLASS_EXT: a second deadline server, for sched_ext tasks. It serves
	 * only tasks of a loaded BPF scheduler, so it changes no regime of FIFO against SCHED_OTHER
	 * without one; its bandwidth is admitted beside the fair server's on 7.0 and 7.1, and from
	 * 7.2 only while a BPF scheduler is loaded (the class in use).
	 */
	bool ext_server;	/* the kernel has one */
	bool ext_server_reserved;	/* its bandwidth counts in deadline admission (the dl floor) */
	int64_t es_runtime_us, es_period_us;	/* debugfs's values, else the defaults (50 ms / 1 s) */
	bool es_from_debugfs;
	double tick_us;
	char basis[1024];	/* what the prediction rests on */
};

/*
 * What tells the regimes apart in the probe: throttling idles the CPU for the whole 50 ms slot
 * of 950000/1000000 every period, and half of it separates it from noise; a CFS task beside a
 * hog at -1 gets a fair server's 0.05 or nothing, and the midpoint separates the two.
 */
#define REGIME_THROTTLE_GAP_US 25000.0
#define REGIME_FAIR_SERVER_SHARE_MIN 0.025
/* The most checks regime_probe_checks writes. */
#define REGIME_PROBE_CHECKS_MAX 3

/*
 * What the regime probe saw: a hog alone at 950000/1000000, a hog + CFS task at -1 (the CFS
 * task wakes from a timer sleep when the hog starts) and, where CFS timer wake-ups run in an
 * RT thread (PREEMPT_RT), a hog + CFS task at -1 with the CFS task already running.
 */
/* The third probe window: not run, run but its CFS task woken only after the hog started, run as meant. */
enum running_window { RUNNING_NOT_RUN, RUNNING_MISSED, RUNNING_PROBED };

struct regime_observation {
	bool done;
	double window_s;	/* each probe window */
	double hog_alone_share;
	double hog_alone_gap_max_us;
	double victim_share_unlimited;
	enum running_window running;	/* the third window (regime_probe_running_cfs) */
	double victim_running_share_unlimited;	/* its CFS task's share, running before the hog */
	bool throttle_seen;	/* the lone hog lost ~5% in long idle gaps */
	bool fair_server_seen;	/* CFS got time at runtime -1 (the running one, where measured) */
	bool timer_wakeup_served;	/* the CFS task woken by a timer beside the hog got time at -1 */
	bool agrees;		/* with the prediction */
	char evidence[480];
};

void kernel_model_predict(const struct kernel_facts *k, struct kernel_model *m);
/*
 * The model a policy's cases are judged by: where it sets the fair server, its runtime and
 * period in place of the system's (runtime 0: no fair server, nothing it promises), on a kernel
 * that has one. RT throttling stays as the kernel builds it.
 */
void kernel_model_for_policy(const struct kernel_model *m, const struct policy *p, struct kernel_model *out);
enum regime regime_for(const struct kernel_model *m, int64_t runtime_us, int64_t period_us);
const char *regime_name(enum regime r);
/* "classic,fair-server-only", or "any" for REGIMES_ANY. */
const char *regime_mask_names(unsigned mask, char *buf, size_t len);
/* Whether the probe also runs a CFS task already running when the hog starts (PREEMPT_RT). */
bool regime_probe_running_cfs(const struct kernel_model *m);
/*
 * Judges the probe's figures against the model; fills throttle_seen, fair_server_seen,
 * timer_wakeup_served, agrees.
 */
void regime_observation_judge(const struct kernel_model *m, struct regime_observation *o);
struct check;
/*
 * The regime-probe result's checks, predicted against observed: the lone hog's longest gap
 * (at least REGIME_THROTTLE_GAP_US where throttling is predicted at 950000/1000000, below it
 * elsewhere), the timer-woken CFS task's share at -1 (at least REGIME_FAIR_SERVER_SHARE_MIN
 * where it is predicted to be served, below it elsewhere) and, where the third window ran, the
 * running CFS task's share (at least the midpoint iff a fair server is predicted). They pass
 * together exactly when `o->agrees`. Returns the number of checks (2 or 3); out needs room for
 * REGIME_PROBE_CHECKS_MAX.
 */
int regime_probe_checks(const struct kernel_model *m, const struct regime_observation *o, struct check *out);
json_object *kernel_model_to_json(const struct kernel_model *m, const struct regime_observation *o);

#endif
