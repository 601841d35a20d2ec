// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target for the scenario loader (harness/judge/scenario.c, scenario_parse_file). */
#include "scenario.h"
#include "scenario_task.h"

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scenario s;	/* large (PATH_MAX source): not on the stack */
	const char *path = fuzz_write(data, size);

	if (scenario_parse_file(path, &s)) {
		/* touch what the runner reads after loading */
		for (int i = 0; i < s.task_count; i++)
			(void)scenario_param(&s.tasks[i], "runtime_us", 0);
		scenario_release(&s);
	}
	return 0;
}
