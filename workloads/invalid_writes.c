// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's promise on its own knobs: a value that would break runtime <= period (or -1),
 * a period of 0 or a runtime below -1 is refused with EINVAL and the old values stay. At
 * act_at_ms this task tries such values one at a time, each derived from the values in force,
 * and reads the file back after each. A write the kernel took is put back at once; the
 * harness's saved state puts every knob back anyway if this task dies in between.
 */
#include "roles.h"
#include "spin_measure.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#define SYSCTL_DIR "/proc/sys/kernel/"
#define CGROUP_DIR "/sys/fs/cgroup/cpu/"

/* 0 when the kernel took the value, else the errno of the write. */
static int write_value(const char *path, int64_t v)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRId64, v);
	return write_text_file(path, text);
}

static void try_write(struct invalid_write_stats *st, const char *dir, const char *file, int64_t value,
		      const char *why)
{
	struct invalid_write *w;
	char path[96];

	if (st->tried >= INVALID_WRITES_MAX)
		return;
	w = &st->write[st->tried++];
	snprintf(path, sizeof(path), "%s%s", dir, file);
	snprintf(w->file, sizeof(w->file), "%s", file);
	snprintf(w->why, sizeof(w->why), "%s", why);
	w->value = value;
	if (!read_i64_file(path, &w->before)) {
		w->error = errno ? errno : EIO;
		w->after = w->before = 0;
		return;
	}
	w->error = write_value(path, value);
	if (!read_i64_file(path, &w->after))
		w->after = value;	/* unreadable now: assume the worst, and put the old value back */
	if (!w->error || w->after != w->before)
		w->undone = write_value(path, w->before) ? -1 : 1;
}

/* The invalid values for the pair in dir: each breaks one rule the kernel enforces. */
static void try_pair(struct invalid_write_stats *st, const char *dir, const char *runtime_file,
		     const char *period_file, bool below_minus_one)
{
	char path[96];
	int64_t runtime, period;

	snprintf(path, sizeof(path), "%s%s", dir, runtime_file);
	if (!read_i64_file(path, &runtime))
		return;
	snprintf(path, sizeof(path), "%s%s", dir, period_file);
	if (!read_i64_file(path, &period))
		return;
	try_write(st, dir, runtime_file, period + 1, "runtime above the period");
	if (below_minus_one)
		try_write(st, dir, runtime_file, -2, "runtime below -1");
	try_write(st, dir, period_file, 0, "period 0");
	/* Kernels before 6.6 took this one: the period was parsed as int into an unsigned. */
	try_write(st, dir, period_file, -1, "negative period");
	if (runtime > 1)
		try_write(st, dir, period_file, runtime / 2, "period below the runtime");
}

void role_invalid_writes(struct window_shm *shm, struct task_record *rec)
{
	struct invalid_write_stats *st = &rec->u.invalid;

	rec->first_ns = shm->start_ns;
	sleep_until_ns(shm->start_ns + rec->config.act_at_ns);
	try_pair(st, SYSCTL_DIR, "sched_rt_runtime_us", "sched_rt_period_us", true);
	/*
	 * With RT group scheduling the root group's pair is what throttles (no file without it).
	 * Its runtime takes any negative value as -1 (no limit), so -2 is not invalid there.
	 */
	if (access(CGROUP_DIR "cpu.rt_runtime_us", F_OK) == 0)
		try_pair(st, CGROUP_DIR, "cpu.rt_runtime_us", "cpu.rt_period_us", false);
	rec->last_ns = mono_ns();
	sleep_until_ns(shm->end_ns);
}
