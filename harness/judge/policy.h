/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Throttling policies: a runtime/period pair with a name and where the idea comes from, and
 * optionally the deadline fair server (6.12+) every online CPU is to run with.
 */
#ifndef RTT_POLICY_H
#define RTT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define POLICY_NAME_MAX 48

/* Where a cell of a knob grid (harness/judge/grid.h) sits; cells is 0 for every other policy. */
struct policy_grid_place {
	int cell, cells;	/* 1-based place among the grid's cells, and how many there are */
	double ratio;		/* runtime/period asked for (above 1 when a runtime exceeds its period) */
	bool by_runtime;	/* the grid's rows are runtimes, not ratios */
};

/* The kernel's limits on a fair server's period (kernel/sched/debug.c, 6.12): 100 us to 2^22 us. */
#define FAIR_SERVER_PERIOD_MIN_US 100
#define FAIR_SERVER_PERIOD_MAX_US (1ll << 22)
#define FAIR_SERVER_DEFAULT_PERIOD_US 1000000	/* the kernel's: 50 ms of every second */

/* The fair server a policy sets on every online CPU; not set: left as the system has it. */
struct policy_fair_server {
	bool set;
	int64_t runtime_us;	/* 0: off */
	int64_t period_us;	/* 0: the period in force (with runtime 0: "off" alone) */
};

struct policy {
	char name[POLICY_NAME_MAX];
	int64_t runtime_us;	/* -1: no RT limit */
	int64_t period_us;
	const char *origin;	/* one line: who argued for it */
	struct policy_grid_place grid;
	struct policy_fair_server fair_server;
};

const struct policy *policy_builtins(size_t *count);
bool policy_find(const char *name, struct policy *out);
/*
 * Checks an ad-hoc pair as the kernel would; NULL when valid, else why (e.g. "runtime exceeds
 * period"). Period 1..INT_MAX us, runtime -1 or 0..period.
 */
const char *policy_pair_invalid(int64_t runtime_us, int64_t period_us);
/* "adhoc-<runtime>-<period>" */
void policy_make_adhoc(int64_t runtime_us, int64_t period_us, struct policy *out);
json_object *policy_to_json(const struct policy *p);

/*
 * "RUNTIME/PERIOD" with units as the grid takes them (50ms/1s, 1500us/100ms), or "0" alone
 * (off, the period kept). False with why on a negative or non-numeric value, a missing or
 * unknown unit, a runtime above the period or a period outside the kernel's limits.
 */
bool policy_fair_server_parse(const char *text, struct policy_fair_server *out, char *why, size_t len);
/* Why the kernel would refuse the setting (runtime above period, period limits), or NULL. */
const char *policy_fair_server_invalid(const struct policy_fair_server *fs);
/* "0" (off), "50ms/1s": how names and messages show a setting. */
void policy_fair_server_format(const struct policy_fair_server *fs, char *buf, size_t len);
/*
 * Gives p the fair server fs unless it sets its own, and says so in its name
 * ("default-fs50ms/1s" is too long for files: "default-fs50msp1s"; off is "default-fs0").
 */
void policy_with_fair_server(struct policy *p, const struct policy_fair_server *fs);

#endif
