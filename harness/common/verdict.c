// SPDX-License-Identifier: GPL-2.0-only
/* Verdicts and their names (verdict.h). */
#include "verdict.h"

#include <stddef.h>
#include <string.h>

static const char *const names[VERDICT_COUNT] = {
	[VERDICT_PASS] = "pass",
	[VERDICT_FAIL] = "fail",
	[VERDICT_UNJUDGED] = "unjudged",
	[VERDICT_NOT_APPLICABLE] = "not-applicable",
	[VERDICT_NOT_MEASURED] = "not-measured",
	[VERDICT_SKIP] = "skip",
	[VERDICT_ERROR] = "error",
};

const char *verdict_name(enum verdict v)
{
	return (unsigned)v < VERDICT_COUNT ? names[v] : "unknown";
}

bool verdict_from_name(const char *name, enum verdict *out)
{
	for (int v = 0; name && v < VERDICT_COUNT; v++)
		if (!strcmp(name, names[v])) {
			*out = (enum verdict)v;
			return true;
		}
	return false;
}

enum verdict verdict_or(const char *name, enum verdict fallback)
{
	enum verdict v;

	return verdict_from_name(name, &v) ? v : fallback;
}
