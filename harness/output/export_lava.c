// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lava-test-case calls of a run, one line each: "NAME RESULT [MEASUREMENT UNITS]". The cases
 * are the KCIDB test objects (export_kcidb) but the DONE metrics, named by their path without
 * "rtthrottle." (the run itself is "rtthrottle"); RESULT is what lava-test-case takes (pass,
 * fail, skip, unknown) as the KTAP output says it (a check not judged is skipped, a result in
 * error failed), UNITS the check's unit (us, ms, s, ns, ratio, count). A shell without
 * a JSON parser (a busybox ramdisk) reads it with `while read -r name result measurement units`.
 */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * As KTAP says it: a check not judged is "ok # SKIP" (KCIDB SKIP), a result in error "not ok".
 * LAVA's pass, fail and skip are the verdicts' own names; "unknown" is LAVA's word for the rest.
 */
static const char *lava_result(const char *status)
{
	if (!strcmp(status, "PASS"))
		return verdict_name(VERDICT_PASS);
	if (!strcmp(status, "FAIL") || !strcmp(status, "ERROR"))
		return verdict_name(VERDICT_FAIL);
	if (!strcmp(status, "SKIP"))
		return verdict_name(VERDICT_SKIP);
	return "unknown";
}

/* The shortest of %.15g..%.17g that reads back as the same double (0.95, not 0.9499999...). */
static void shortest(char *buf, size_t len, double v)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

char *export_lava(json_object *root)
{
	json_object *doc = export_kcidb(root, KCIDB_ORIGIN_DEFAULT, NULL), *tests = export_get(doc, "tests");
	size_t n = json_object_is_type(tests, json_type_array) ? json_object_array_length(tests) : 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out) {
		json_object_put(doc);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(tests, i), *number = export_get(t, "number");
		const char *status = export_string(t, "status", "ERROR"), *path = export_string(t, "path", "rtthrottle");
		double value = export_number(number, "value");

		if (!strcmp(status, "DONE"))
			continue;
		if (!strncmp(path, "rtthrottle.", 11))
			path += 11;
		fprintf(out, "%s %s", path, lava_result(status));
		/* KCIDB leaves ratios and counts without a unit; the check's own unit names them. */
		if (isfinite(value)) {
			char num[32];

			shortest(num, sizeof(num), value);
			fprintf(out, " %s %s", num,
				export_string(number, "unit", export_string(export_get(t, "misc"), "unit", "count")));
		}
		fputc('\n', out);
	}
	json_object_put(doc);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}
