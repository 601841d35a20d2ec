/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A check's or a result's verdict, and its name in results files, KTAP and the exports. The
 * names are the format (results/README.md): other tools read them, so they never change.
 */
#ifndef RTT_VERDICT_H
#define RTT_VERDICT_H

#include <stdbool.h>

enum verdict {
	VERDICT_PASS,		/* judged, within its tolerance */
	VERDICT_FAIL,		/* judged, outside it */
	/* Measured, but not judged: a check whose tolerance is at least what it exists to catch;
	   a result with no check that applies, or one that was not judged. */
	VERDICT_UNJUDGED,
	VERDICT_NOT_APPLICABLE,	/* a check whose condition does not hold in this window */
	VERDICT_NOT_MEASURED,	/* a check whose metric this window did not give */
	VERDICT_SKIP,		/* not measured for a reason that is no fault of the run */
	VERDICT_ERROR,		/* a result the run could not finish */
	VERDICT_COUNT
};

/* "pass", "fail", "unjudged", "not-applicable", "not-measured", "skip", "error". */
const char *verdict_name(enum verdict v);
/* The verdict of that name into *out; false (and *out untouched) for NULL or any other name. */
bool verdict_from_name(const char *name, enum verdict *out);
/* The verdict of that name, or fallback for NULL or any other name (a reader's default). */
enum verdict verdict_or(const char *name, enum verdict fallback);

#endif
