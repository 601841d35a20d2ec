/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One row per task role: its name in scenario files, the body its process runs and the
 * parameters it takes, each with its default and meaning. The parser, the tasks and the run
 * read it; adding a role touches the role's own file and this table, and, when the role needs
 * more than the common task fields or writes metrics of its own, one row in the harness's
 * set-up table (harness/run/role_setup.c) and in metrics.c's or run/role_metrics.c's writers.
 */
#ifndef RTT_ROLE_TABLE_H
#define RTT_ROLE_TABLE_H

#include <stdbool.h>

#include "task_shm.h"

#define ROLE_PARAMS_MAX 4

struct role_param {
	const char *name;	/* NULL ends the list */
	double fallback;	/* its value when a scenario does not give it */
	const char *doc;
	const char *shown;	/* the default in words where it is not that number (NULL: the number) */
};

struct role_info {
	const char *name;
	void (*body)(struct window_shm *shm, struct task_record *rec);
	bool in_scenarios;	/* a scenario may name it (the others are the harness's own tasks) */
	const char *doc;
	struct role_param params[ROLE_PARAMS_MAX + 1];
	/* What the task does before the start barrier, while no hog spins yet (NULL: nothing). */
	void (*prepare)(struct task_record *rec);
};

/* The role's row; NULL outside the enum. */
const struct role_info *role_info(enum task_role role);
/* "hog", ...; "unknown" outside the enum. */
const char *role_name(enum task_role role);
/* The role a scenario may name so, or ROLE_COUNT. */
enum task_role role_by_name(const char *name);
/* The parameter of that name the role takes, or NULL. */
const struct role_param *role_param_find(enum task_role role, const char *name);
/* The names of the roles a scenario may use, or of a role's parameters, comma-separated. */
void role_names_list(char *buf, size_t len);
void role_params_list(enum task_role role, char *buf, size_t len);

#endif
