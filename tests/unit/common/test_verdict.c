// SPDX-License-Identifier: GPL-2.0-only
/* Verdicts by name: the names results files hold, read back, and nothing else taken. */
#include "verdict.h"
#include "unit.h"

#include <string.h>

TEST(verdict_names_round_trip)
{
	static const char *const expected[VERDICT_COUNT] = {
		"pass", "fail", "unjudged", "not-applicable", "not-measured", "skip", "error",
	};

	for (int i = 0; i < VERDICT_COUNT; i++) {
		enum verdict v = (enum verdict)i, back = VERDICT_COUNT;
		const char *name = verdict_name(v);

		CHECK(!strcmp(name, expected[i]), "verdict %d is named %s, not %s", i, name, expected[i]);
		CHECK(verdict_from_name(name, &back) && back == v, "%s reads back as %d", name, (int)back);
		CHECK(verdict_or(name, VERDICT_ERROR) == v, "%s with a fallback", name);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(name, verdict_name((enum verdict)j)), "%s named twice", name);
	}
}

TEST(verdict_from_name_refuses_other_names)
{
	static const char *const others[] = { "", "PASS", "Pass", "passed", "pass ", "not_applicable", "not-judged",
					      "unchanged", "skipped", "unknown" };
	enum verdict v = VERDICT_SKIP;

	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++) {
		CHECK(!verdict_from_name(others[i], &v), "\"%s\" taken", others[i]);
		CHECK(v == VERDICT_SKIP, "\"%s\" refused but wrote the verdict", others[i]);
		CHECK(verdict_or(others[i], VERDICT_NOT_MEASURED) == VERDICT_NOT_MEASURED, "\"%s\": the fallback", others[i]);
	}
	CHECK(!verdict_from_name(NULL, &v) && verdict_or(NULL, VERDICT_ERROR) == VERDICT_ERROR, "no name");
	CHECK(!strcmp(verdict_name(VERDICT_COUNT), "unknown"), "out of range: %s", verdict_name(VERDICT_COUNT));
}
