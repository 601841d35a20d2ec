// SPDX-License-Identifier: GPL-2.0-only
/* The debate table from a run's results: each column the worst figure of its scenario and task. */
#include "kernel_model.h"
#include "tables.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <string.h>

TEST(tables_debate_rows_from_the_results)
{
	json_object *root = json_object_from_file(fixture_path("quick-1rep.json")), *results, *stored, *doc, *rows;
	struct kernel_model km = { 0 };

	CHECK(root && json_object_object_get_ex(root, "results", &results) &&
		      json_object_object_get_ex(root, "debate", &stored),
	      "quick-1rep.json has no results or no debate table");
	if (!root || !results || !stored)
		return;
	doc = json_object_new_object();
	tables_add(doc, results, &km);
	/* The table the run wrote when the fixture was made: every column, every policy. */
	CHECK(json_object_object_get_ex(doc, "debate", &rows) && json_object_equal(rows, stored),
	      "debate recomputed:\n%s\nstored:\n%s", rows ? json_object_to_json_string(rows) : "none",
	      json_object_to_json_string(stored));
	json_object_put(doc);
	/* One debate scenario alone answers nothing: no table. */
	doc = json_object_new_object();
	{
		json_object *one = json_object_new_array();

		for (size_t i = 0; i < json_object_array_length(results); i++) {
			json_object *r = json_object_array_get_idx(results, i), *s;

			if (json_object_object_get_ex(r, "scenario", &s) &&
			    !strcmp(json_object_get_string(s), "fifo-hog-share"))
				json_object_array_add(one, json_object_get(r));
		}
		tables_add(doc, one, &km);
		CHECK(!json_object_object_get_ex(doc, "debate", NULL), "a debate table from fifo-hog-share alone");
		json_object_put(one);
	}
	json_object_put(doc);
	json_object_put(root);
}
