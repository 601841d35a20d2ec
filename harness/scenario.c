#include "scenario.h"

#include <string.h>

static const struct scenario catalogue[] = {
	{ "fifo-hog-share",
	  "a SCHED_FIFO hog and a SCHED_OTHER victim on one CPU: what each gets, how long CFS starves",
	  SCENARIO_HOG_WITH_CFS, "default,unlimited,half", "quick,full" },
};

static const char *const suites[] = { "quick", "full" };

const struct scenario *scenario_catalogue(size_t *count)
{
	*count = sizeof(catalogue) / sizeof(catalogue[0]);
	return catalogue;
}

const struct scenario *scenario_find(const char *name)
{
	for (size_t i = 0; i < sizeof(catalogue) / sizeof(catalogue[0]); i++)
		if (!strcmp(catalogue[i].name, name))
			return &catalogue[i];
	return NULL;
}

/* Whole-word match in a comma-separated list. */
static bool list_has(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, word, len))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

bool scenario_in_suite(const struct scenario *s, const char *suite)
{
	return list_has(s->suites, suite);
}

bool suite_known(const char *suite)
{
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (!strcmp(suites[i], suite))
			return true;
	return false;
}
