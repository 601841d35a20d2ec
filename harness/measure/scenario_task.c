// SPDX-License-Identifier: GPL-2.0-only
/* A task found by name, and its numeric params: one absent or given as a string takes the fallback. */
#include "scenario_task.h"

#include <string.h>

int scenario_task_index(const struct scenario *s, const char *name)
{
	for (int i = 0; i < s->task_count; i++)
		if (!strcmp(s->tasks[i].name, name))
			return i;
	return -1;
}

double scenario_param(const struct scenario_task *t, const char *name, double fallback)
{
	json_object *v;

	if (!t->params || !json_object_object_get_ex(t->params, name, &v) || json_object_is_type(v, json_type_string))
		return fallback;
	return json_object_get_double(v);
}

double task_param(const struct scenario_task *t, const char *name)
{
	const struct role_param *p = role_param_find(t->role, name);

	return scenario_param(t, name, p ? p->fallback : 0);
}
