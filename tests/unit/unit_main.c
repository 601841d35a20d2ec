// SPDX-License-Identifier: GPL-2.0-only
/* Runs every registered unit test, prints KTAP and a closing "N passed, N failed" line. */
#include "unit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TESTS 512

static struct unit_test tests[MAX_TESTS];
static int test_count;
static int current_failures;

void unit_register(const char *name, void (*fn)(void))
{
	if (test_count == MAX_TESTS) {
		fprintf(stderr, "too many unit tests\n");
		exit(2);
	}
	tests[test_count++] = (struct unit_test){ name, fn };
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	current_failures++;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0, n = 0;

	printf("KTAP version 1\n");
	for (int i = 0; i < test_count; i++)
		if (!only || strstr(tests[i].name, only))
			n++;
	printf("1..%d\n", n);
	n = 0;
	for (int i = 0; i < test_count; i++) {
		if (only && !strstr(tests[i].name, only))
			continue;
		current_failures = 0;
		tests[i].fn();
		fflush(stdout);
		printf("%s %d %s\n", current_failures ? "not ok" : "ok", ++n, tests[i].name);
		if (current_failures)
			failed++;
		else
			passed++;
	}
	printf("# unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
