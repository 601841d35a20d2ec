// SPDX-License-Identifier: GPL-2.0-only
/* The knobs read, kept as JSON, written only by a plan with a way back; a failed write names its cause. */
#include "knobs.h"
#include "fair_server.h"
#include "json_util.h"
#include "knob_explain.h"
#include "knob_plan.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char sysctl_root[PATH_MAX / 2] = "/proc/sys/kernel";
static char cgroup_root[PATH_MAX / 2] = "/sys/fs/cgroup/cpu";
static char paths[KNOB_COUNT][PATH_MAX];
static char fair_server_why[400] = "not read yet";

static const char *const names[KNOB_COUNT] = {
	[KNOB_SYSCTL_RUNTIME] = "sched_rt_runtime_us",
	[KNOB_SYSCTL_PERIOD] = "sched_rt_period_us",
	[KNOB_CGROUP_RUNTIME] = "cgroup_rt_runtime_us",
	[KNOB_CGROUP_PERIOD] = "cgroup_rt_period_us",
	[KNOB_FAIR_SERVER_RUNTIME] = "fair_server_runtime_ns",
	[KNOB_FAIR_SERVER_PERIOD] = "fair_server_period_ns",
};

/* Which knobs a state holds: the sysctls always, the others where present. */
static bool knob_present(const struct knobs *k, int id)
{
	if (id >= KNOB_FAIR_SERVER_RUNTIME)
		return k->has_fair_server;
	return id < KNOB_CGROUP_RUNTIME || k->has_cgroup;
}

void knobs_set_roots(const char *proc_sys_kernel, const char *cgroup_cpu)
{
	if (proc_sys_kernel)
		snprintf(sysctl_root, sizeof(sysctl_root), "%s", proc_sys_kernel);
	if (cgroup_cpu)
		snprintf(cgroup_root, sizeof(cgroup_root), "%s", cgroup_cpu);
}

const char *knob_name(enum knob_id id)
{
	return names[id];
}

const char *knob_path(enum knob_id id)
{
	static const char *const files[KNOB_COUNT] = {
		"sched_rt_runtime_us", "sched_rt_period_us", "cpu.rt_runtime_us", "cpu.rt_period_us",
	};
	const char *root = id <= KNOB_SYSCTL_PERIOD ? sysctl_root : cgroup_root;

	if (id >= KNOB_FAIR_SERVER_RUNTIME)
		return fair_server_path_shown(id == KNOB_FAIR_SERVER_PERIOD);
	snprintf(paths[id], sizeof(paths[id]), "%s/%s", root, files[id]);
	return paths[id];
}

bool knobs_read(struct knobs *out)
{
	memset(out, 0, sizeof(*out));
	for (int id = KNOB_SYSCTL_RUNTIME; id <= KNOB_SYSCTL_PERIOD; id++) {
		if (!read_i64_file(knob_path(id), &out->value[id])) {
			rtt_err("cannot read %s: %s", knob_path(id), strerror(errno ? errno : EINVAL));
			return false;
		}
	}
	out->has_cgroup = read_i64_file(knob_path(KNOB_CGROUP_RUNTIME), &out->value[KNOB_CGROUP_RUNTIME]) &&
			  read_i64_file(knob_path(KNOB_CGROUP_PERIOD), &out->value[KNOB_CGROUP_PERIOD]);
	if (!out->has_cgroup)
		out->value[KNOB_CGROUP_RUNTIME] = out->value[KNOB_CGROUP_PERIOD] = 0;
	out->has_fair_server = fair_server_read(&out->value[KNOB_FAIR_SERVER_RUNTIME],
						&out->value[KNOB_FAIR_SERVER_PERIOD], fair_server_why,
						sizeof(fair_server_why));
	/* A server that reads as no state the kernel would accept (0/0: never started) is left alone. */
	if (out->has_fair_server) {
		const int64_t runtime = out->value[KNOB_FAIR_SERVER_RUNTIME], period = out->value[KNOB_FAIR_SERVER_PERIOD];
		const char *invalid = knobs_fair_server_invalid(runtime, period);

		if (invalid) {
			snprintf(fair_server_why, sizeof(fair_server_why),
				 "the fair server reads %" PRId64 "/%" PRId64 " ns, which the kernel would not accept (%s): left alone",
				 runtime, period, invalid);
			out->has_fair_server = false;
		}
	}
	if (!out->has_fair_server)
		out->value[KNOB_FAIR_SERVER_RUNTIME] = out->value[KNOB_FAIR_SERVER_PERIOD] = 0;
	return true;
}

const char *knobs_fair_server_why(void)
{
	return fair_server_why;
}

bool knobs_equal(const struct knobs *a, const struct knobs *b)
{
	struct knobs both = *b;

	if (a->has_cgroup != b->has_cgroup)
		return false;
	both.has_fair_server = a->has_fair_server && b->has_fair_server;
	for (int id = 0; id < KNOB_COUNT; id++)
		if (knob_present(&both, id) && a->value[id] != b->value[id])
			return false;
	return true;
}

json_object *knobs_to_json(const struct knobs *k)
{
	json_object *obj = json_object_new_object();

	for (int id = 0; id < KNOB_COUNT; id++)
		if (knob_present(k, id))
			json_add_int64(obj, names[id], k->value[id]);
	return obj;
}

bool knobs_from_json(json_object *obj, struct knobs *out)
{
	json_object *v;

	memset(out, 0, sizeof(*out));
	if (!json_object_is_type(obj, json_type_object))
		return false;
	out->has_cgroup = json_object_object_get_ex(obj, names[KNOB_CGROUP_RUNTIME], NULL);
	out->has_fair_server = json_object_object_get_ex(obj, names[KNOB_FAIR_SERVER_RUNTIME], NULL);
	for (int id = 0; id < KNOB_COUNT; id++) {
		if (!knob_present(out, id))
			continue;
		if (!json_object_object_get_ex(obj, names[id], &v) || !json_object_is_type(v, json_type_int))
			return false;
		out->value[id] = json_object_get_int64(v);
	}
	return true;
}

json_object *knobs_read_json(void)
{
	struct knobs k;

	return knobs_read(&k) ? knobs_to_json(&k) : NULL;
}

struct knobs knobs_target(const struct knobs *from, int64_t runtime_us, int64_t period_us)
{
	struct knobs to = *from;

	to.value[KNOB_SYSCTL_RUNTIME] = runtime_us;
	to.value[KNOB_SYSCTL_PERIOD] = period_us;
	if (to.has_cgroup) {
		to.value[KNOB_CGROUP_RUNTIME] = runtime_us;
		to.value[KNOB_CGROUP_PERIOD] = period_us;
	}
	return to;
}

struct knobs knobs_for_policy(const struct knobs *from, const struct policy *p)
{
	struct knobs to = knobs_target(from, p->runtime_us, p->period_us);
	const struct policy_fair_server *fs = &p->fair_server;

	if (!fs->set)
		return to;
	/* Without a period of its own the setting keeps the one in force (the kernel's 1 s if unknown). */
	if (!from->has_fair_server)
		to.value[KNOB_FAIR_SERVER_PERIOD] = FAIR_SERVER_DEFAULT_PERIOD_US * 1000;
	to.has_fair_server = true;
	to.value[KNOB_FAIR_SERVER_RUNTIME] = fs->runtime_us * 1000;
	if (fs->period_us)
		to.value[KNOB_FAIR_SERVER_PERIOD] = fs->period_us * 1000;
	return to;
}

static const char *fair_server_cause(int err)
{
	switch (err) {
	case EINVAL:
		return "the fair server's runtime must be <= its period, and the period 100 us to 4.19 s";
	case EBUSY:
		return "the fair servers' bandwidth would exceed what the global RT ratio admits, or a CPU went offline";
	case EACCES:
	case EPERM:
		return "debugfs refuses the write: it needs root, or kernel lockdown forbids it";
	default:
		return "unexpected error from the kernel";
	}
}

static const char *likely_cause(int err, enum knob_id id, const struct dl_floor *floor, char *buf, size_t len)
{
	char admitted[160];

	if (id >= KNOB_FAIR_SERVER_RUNTIME)
		return fair_server_cause(err);
	switch (err) {
	case EINVAL:
		return id >= KNOB_CGROUP_RUNTIME
			       ? "the root cgroup's ratio must stay at or below the global ratio and at or above its "
				 "child groups' sum, and runtime <= period"
			       : "runtime must be <= period, and the global ratio at or above every cgroup's";
	case EBUSY:
		if (id >= KNOB_CGROUP_RUNTIME)
			return "runtime 0 while the root group has RT tasks";
		dl_floor_describe(floor, admitted, sizeof(admitted));
		snprintf(buf, len, "the global ratio would fall below the deadline bandwidth already admitted (%s; "
				   "plus any SCHED_DEADLINE tasks)", admitted);
		return buf;
	case EACCES:
	case EPERM:
		return "writing the knobs needs root (CAP_SYS_ADMIN)";
	case EROFS:
		return "the file system holding the knob is read-only";
	default:
		return "unexpected error from the kernel";
	}
}

/* Both ways or not at all: a state the planner cannot lead back from is never entered. */
static bool plan_both_ways(const struct knobs *now, const struct knobs *target, const struct dl_floor *floor,
			   struct knob_plan *plan)
{
	struct knob_plan back;
	char why[400], from_text[160], to_text[160];

	knobs_describe(now, from_text, sizeof(from_text));
	knobs_describe(target, to_text, sizeof(to_text));
	if (!knob_plan_make(now, target, floor, plan)) {
		knob_plan_refusal(now, target, floor, why, sizeof(why));
		rtt_err("no valid order of writes leads from %s to %s: %s; nothing written", from_text, to_text, why);
		return false;
	}
	if (!knob_plan_make(target, now, floor, &back)) {
		knob_plan_refusal(target, now, floor, why, sizeof(why));
		rtt_err("%s could not be put back to %s (%s); nothing written", to_text, from_text, why);
		return false;
	}
	return true;
}

/* One step of a plan; the fair server's on every online CPU (`old`: what they hold). Returns errno. */
static int write_knob(const struct knob_write *w, int64_t old, char *file, size_t len)
{
	char text[32];

	if (w->knob >= KNOB_FAIR_SERVER_RUNTIME)
		return fair_server_write(w->knob == KNOB_FAIR_SERVER_PERIOD, w->value, old, file, len);
	snprintf(text, sizeof(text), "%" PRId64, w->value);
	snprintf(file, len, "%s", knob_path(w->knob));
	return write_text_file(file, text);
}

/* The state to plan for: a target silent on the fair server leaves it as it is now. */
static bool goal_of(const struct knobs *target, const struct knobs *now, struct knobs *goal)
{
	*goal = *target;
	if (!target->has_fair_server) {
		goal->has_fair_server = now->has_fair_server;
		goal->value[KNOB_FAIR_SERVER_RUNTIME] = now->value[KNOB_FAIR_SERVER_RUNTIME];
		goal->value[KNOB_FAIR_SERVER_PERIOD] = now->value[KNOB_FAIR_SERVER_PERIOD];
	} else if (!now->has_fair_server) {
		rtt_err("the fair server cannot be set to %" PRId64 "/%" PRId64 " ns: %s; nothing written",
			target->value[KNOB_FAIR_SERVER_RUNTIME], target->value[KNOB_FAIR_SERVER_PERIOD],
			knobs_fair_server_why());
		return false;
	}
	return true;
}

/*
 * A SCHED_DEADLINE task that exited keeps its bandwidth admitted until its 0-lag time, at most
 * its deadline later (the kernel's inactive timer): a global ratio written just after a window
 * that ran one is refused with EBUSY though the planned state is above the servers' floor. The
 * write is made again every 10 ms for up to a second (the suite's deadline tasks have periods
 * of 100 ms); a bandwidth still held then is another's, and the write fails as before.
 */
#define DL_RELEASE_WAIT_US 1000000
#define DL_RELEASE_STEP_US 10000

static int write_knob_after_dl_release(const struct knob_write *w, int64_t old, char *file, size_t len)
{
	int err = write_knob(w, old, file, len);

	if (err != EBUSY || w->knob >= KNOB_CGROUP_RUNTIME)
		return err;
	for (int waited = 0; err == EBUSY && waited < DL_RELEASE_WAIT_US; waited += DL_RELEASE_STEP_US) {
		usleep(DL_RELEASE_STEP_US);
		err = write_knob(w, old, file, len);
		if (!err)
			rtt_warn("%s took %" PRId64 " after %d ms: the deadline bandwidth of an exited SCHED_DEADLINE "
				 "task was still admitted", file, w->value, (waited + DL_RELEASE_STEP_US) / 1000);
	}
	return err;
}

bool knobs_apply(const struct knobs *target, const struct dl_floor *floor)
{
	struct knobs now, expected, goal;
	struct knob_plan plan;

	if (!knobs_read(&now) || !goal_of(target, &now, &goal) || !plan_both_ways(&now, &goal, floor, &plan))
		return false;
	expected = now;
	for (int i = 0; i < plan.count; i++) {
		const struct knob_write *w = &plan.step[i];
		char file[PATH_MAX], cause[320];
		int err = write_knob_after_dl_release(w, expected.value[w->knob], file, sizeof(file));

		if (err) {
			rtt_err("step %d of %d towards %" PRId64 "/%" PRId64 ": writing %" PRId64 " to %s failed: %s (%s)",
				i + 1, plan.count, target->value[KNOB_SYSCTL_RUNTIME], target->value[KNOB_SYSCTL_PERIOD],
				w->value, file, strerror(err), likely_cause(err, w->knob, floor, cause, sizeof(cause)));
			return false;
		}
		expected.value[w->knob] = w->value;
	}
	/* Read back: the kernel may round, refuse silently or couple the knobs. */
	if (!knobs_read(&now) || !knobs_equal(&now, &expected)) {
		rtt_err("the knobs did not take the values written (runtime %" PRId64 " period %" PRId64 ")",
			target->value[KNOB_SYSCTL_RUNTIME], target->value[KNOB_SYSCTL_PERIOD]);
		return false;
	}
	return true;
}
