/* The scenario catalogue: which tasks run together and which expectation judges them. */
#ifndef RTT_SCENARIO_H
#define RTT_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

enum scenario_kind {
	SCENARIO_HOG_WITH_CFS,	/* a FIFO hog and a CFS victim on one CPU */
};

struct scenario {
	const char *name;
	const char *summary;
	enum scenario_kind kind;
	const char *default_policies;	/* comma-separated */
	const char *suites;		/* comma-separated suites that include it */
};

const struct scenario *scenario_catalogue(size_t *count);
const struct scenario *scenario_find(const char *name);
bool scenario_in_suite(const struct scenario *s, const char *suite);
bool suite_known(const char *suite);

#endif
