/* SPDX-License-Identifier: GPL-2.0-only */
/* The scenario's cgroup v1 cpu groups with their own RT budgets: created for a window, then removed. */
#ifndef RTT_CGROUPS_H
#define RTT_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"

/* True when the cgroup v1 cpu controller with RT group scheduling is mounted. */
bool cgroups_rt_available(void);
/* Creates every group of the scenario (named rtthrottle-<pid>-<name>); false with why. */
bool cgroups_create(const struct scenario *s, char *why, size_t why_len);
/* The directory name (under the cpu controller) of a scenario group. */
void cgroups_dir_name(const char *group, char *out, size_t len);
/* Removes the groups created; safe to call when none were. */
void cgroups_remove(const struct scenario *s);
/* Removes groups left by runs whose harness is gone (the guardian, and each new run, call it). */
void cgroups_remove_stale(void);

#endif
