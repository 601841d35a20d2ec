// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the results loader of `rtthrottle compare` (harness/compare/compare.result_file.c) and,
 * on what it accepts, the exports of `rtthrottle export` (JUnit, KCIDB, rt-tests JSON).
 */
#include <stdlib.h>
#include <string.h>

#include "result_file.h"
#include "export.h"

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct result_file f;	/* large (PATH_MAX path): not on the stack */
	const char *path = fuzz_write(data, size);

	if (result_file_read(path, &f)) {
		/* walk what compare reads: every series and observation, and the lookups */
		volatile double sum = 0;

		for (int i = 0; i < f.series_count; i++) {
			const struct series *s = &f.series[i];

			for (int j = 0; j < s->n; j++)
				sum += s->obs[j].value + s->obs[j].repetition;
			if (result_file_find(&f, s->case_name, s->task, s->metric) == NULL)
				__builtin_trap();	/* a series the file holds must be found */
		}
		for (int i = 0; i < f.scenario_count; i++)
			if (!result_file_has_scenario(&f, f.scenarios[i]))
				__builtin_trap();
		(void)sum;
		free(export_junit(f.root));
		json_object_put(export_kcidb(f.root, "fuzz", NULL));
		json_object_put(export_rttests(f.root));
		result_file_free(&f);
	}
	return 0;
}
