/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers several unit tests share: temp folders and hand-made knob states. */
#ifndef RTT_UNIT_FIXTURES_H
#define RTT_UNIT_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>

#include <json-c/json.h>

#include "kernel_model.h"
#include "knobs.h"

/* A fresh folder /tmp/rtt-unit-XXXXXX in buf; NULL (after a failed check) when it cannot be made. */
char *make_temp_dir(char *buf, size_t len);
/* Removes a temp folder and what is in it, folders too. */
void remove_temp_dir(const char *dir);
/* tests/fixtures/NAME, found from the binary's folder (or $RTT_FIXTURES). */
const char *fixture_path(const char *name);
/* fd 2 into a file of the temp folder while a call runs; end gives what was written. */
struct stderr_capture {
	int saved, fd;
	char path[PATH_MAX];
};
bool stderr_capture_begin(struct stderr_capture *c, const char *dir);
void stderr_capture_end(struct stderr_capture *c, char *buf, size_t len);

/* Sets an environment variable; returns its old value (NULL: unset) for env_restore. */
char *env_set(const char *name, const char *value);
/* Puts back what env_set saved, and frees it. */
void env_restore(const char *name, char *saved);

/* A kernel of that version and config (rt_group_sched -1: config unknown), debugfs unreadable. */
struct kernel_facts make_kernel_facts(int major, int minor, int rt_group_sched, int hz);
/* Debian's 7.2.13 amd64 as its guest reads it: RT_GROUP_SCHED off, SCHED_CLASS_EXT=y, HZ=250, both
 * servers 50 ms / 1 s in debugfs, no BPF scheduler loaded. */
struct kernel_facts make_kernel_facts_debian_7_2(void);
/*
 * The regime probe as this VM sees it, judged against m: a lone hog throttled (0.9501, longest
 * gap 51.5 ms), the CFS task at -1 getting victim_share, 2 s windows.
 */
struct regime_observation make_regime_probe(const struct kernel_model *m, double victim_share);
/* The regime probe with every figure given, its third window as `running` says, judged against m. */
struct regime_observation make_regime_probe_seen(const struct kernel_model *m, double hog_alone_share,
						 double hog_alone_gap_max_us, double victim_share,
						 enum running_window running, double victim_running_share);

/* A number of a JSON object by key; *found says whether it was there (0 when not). */
double json_number(json_object *obj, const char *key, bool *found);

struct knobs make_knobs(int64_t srt, int64_t sper, int64_t crt, int64_t cper, bool has_cgroup);

#endif
