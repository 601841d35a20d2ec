/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The throttling knobs: the global sysctls and, with RT group scheduling, the root cgroup v1
 * cpu controller's pair. A policy sets both pairs to the same runtime/period. On 6.12+ where
 * debugfs lets them be read, the deadline fair server's runtime and period (ns, every online CPU
 * alike: fair_server.h) are knobs too; a policy that sets no fair server leaves them alone.
 */
#ifndef RTT_KNOBS_H
#define RTT_KNOBS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "policy.h"

enum knob_id {
	KNOB_SYSCTL_RUNTIME,
	KNOB_SYSCTL_PERIOD,
	KNOB_CGROUP_RUNTIME,
	KNOB_CGROUP_PERIOD,
	KNOB_FAIR_SERVER_RUNTIME,	/* ns; 0: off */
	KNOB_FAIR_SERVER_PERIOD,	/* ns */
	KNOB_COUNT,
};

struct knobs {
	int64_t value[KNOB_COUNT];
	bool has_cgroup;	/* root cgroup v1 cpu.rt_* present */
	bool has_fair_server;	/* the fair server read (alike on every online CPU) */
};

/* Where the knobs live; tests may point these elsewhere (the fair server's: fair_server_set_root). */
void knobs_set_roots(const char *proc_sys_kernel, const char *cgroup_cpu);
const char *knob_name(enum knob_id id);
const char *knob_path(enum knob_id id);

/*
 * Reads every knob; false (with errno-style message on stderr) when the sysctls are unreadable.
 * A fair server that cannot be read leaves has_fair_server false; knobs_fair_server_why says why.
 */
bool knobs_read(struct knobs *out);
const char *knobs_fair_server_why(void);
/* The same values; the fair server compared where both know it (debugfs may come and go). */
bool knobs_equal(const struct knobs *a, const struct knobs *b);
json_object *knobs_to_json(const struct knobs *k);
/* Parses what knobs_to_json wrote; false on a missing or mistyped field. */
bool knobs_from_json(json_object *obj, struct knobs *out);
/* The knobs in force, as knobs_to_json writes them; NULL after knobs_read said why on stderr. */
json_object *knobs_read_json(void);

/* The state that applying runtime/period gives, starting from `from`. */
struct knobs knobs_target(const struct knobs *from, int64_t runtime_us, int64_t period_us);
/* The state the policy gives from `from`: its pair, and its fair server when it sets one. */
struct knobs knobs_for_policy(const struct knobs *from, const struct policy *p);

struct dl_floor;

/*
 * Moves the kernel from its current values to `target`, one write at a time in an order that
 * keeps every intermediate state valid (see knob_plan.h), given the deadline bandwidth `floor`
 * the kernel has admitted. Writes nothing unless a plan there and a plan back both exist. A
 * target without the fair server leaves it as it is; one with it fails, writing nothing, where
 * the fair server cannot be read. On failure prints the step, file, value, error and likely
 * cause, and returns false; the caller restores.
 */
bool knobs_apply(const struct knobs *target, const struct dl_floor *floor);

#endif
