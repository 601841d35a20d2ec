// SPDX-License-Identifier: GPL-2.0-only
/* Every role has a row: a name, a body, its parameters with their defaults. */
#include "role_table.h"
#include "scenario_task.h"
#include "unit.h"

#include <string.h>

TEST(role_table_has_every_role)
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct role_info *ri = role_info((enum task_role)r);

		CHECK(ri && ri->name && ri->body && ri->doc && strlen(ri->doc) > 10, "role %d has no whole row", r);
		if (!ri)
			continue;
		CHECK(!strcmp(role_name((enum task_role)r), ri->name), "role_name(%d)", r);
		CHECK(!ri->in_scenarios || role_by_name(ri->name) == (enum task_role)r, "%s is not found by name",
		      ri->name);
		for (int i = 0; ri->params[i].name; i++)
			CHECK(role_param_find((enum task_role)r, ri->params[i].name) == &ri->params[i] &&
				      strlen(ri->params[i].doc) > 5,
			      "%s.%s: a duplicate name or no doc", ri->name, ri->params[i].name);
	}
	CHECK(role_info(ROLE_COUNT) == NULL && !strcmp(role_name(ROLE_COUNT), "unknown"), "a row past the enum");
	/* The harness's own tasks are no scenario's. */
	CHECK(role_by_name("noise") == ROLE_COUNT && role_by_name("calibrate") == ROLE_COUNT &&
		      role_by_name("load") == ROLE_COUNT && role_by_name("spinner") == ROLE_COUNT,
	      "a harness role or an unknown name taken for a scenario's");
}

TEST(role_defaults_fill_what_a_scenario_leaves_out)
{
	struct scenario_task probe = { .role = ROLE_PROBE }, work = { .role = ROLE_KERNEL_WORK };
	char list[128];

	CHECK(task_param(&probe, "interval_us") == 1000 && task_param(&work, "interval_us") == 100000,
	      "defaults: probe %g, kernel-work %g", task_param(&probe, "interval_us"), task_param(&work, "interval_us"));
	probe.params = json_tokener_parse("{\"interval_us\": 250}");
	CHECK(task_param(&probe, "interval_us") == 250, "the scenario's value: %g", task_param(&probe, "interval_us"));
	CHECK(task_param(&probe, "burst_ms") == 0, "a parameter the role does not take: %g", task_param(&probe, "burst_ms"));
	json_object_put(probe.params);
	role_params_list(ROLE_HOG, list, sizeof(list));
	CHECK(!strcmp(list, "rttime_soft_us,rttime_hard_us"), "hog takes %s", list);
	role_params_list(ROLE_NOISE, list, sizeof(list));
	CHECK(!strcmp(list, "none"), "noise takes %s", list);
}
