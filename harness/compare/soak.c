// SPDX-License-Identifier: GPL-2.0-only
/* Gathers the checks of many results files per check and per scenario, with their margins. */
#include "soak.h"
#include "json_util.h"
#include "result_file.h"
#include "util.h"
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool grow(void **items, int *cap, int count, size_t size)
{
	void *p;

	if (count < *cap)
		return true;
	p = realloc(*items, (size_t)(*cap ? 2 * *cap : 16) * size);
	if (!p)
		return false;
	*items = p;
	*cap = *cap ? 2 * *cap : 16;
	return true;
}

static bool margins_add(struct soak_margins *m, double v)
{
	if (!grow((void **)&m->v, &m->cap, m->n, sizeof(*m->v)))
		return false;
	m->v[m->n++] = v;
	return true;
}

double soak_margin(const char *kind, double measured, double expected, double tolerance)
{
	if (!(tolerance > 0) || !isfinite(measured) || !isfinite(expected))
		return NAN;
	if (!strcmp(kind, "at_least"))
		return 1 + (measured - expected) / tolerance;
	if (!strcmp(kind, "at_most"))
		return 1 - (measured - expected) / tolerance;
	return 1 - fabs(measured - expected) / tolerance;
}

bool soak_check_flagged(const struct soak_check *c)
{
	return c->c.failed > 0 || (c->m.n && c->m.worst < SOAK_NEAR_MARGIN);
}

static struct soak_scenario *scenario_of(struct soak *s, const char *name)
{
	struct soak_scenario *sc;

	for (int i = 0; i < s->scenario_count; i++)
		if (!strcmp(s->scenarios[i].name, name))
			return &s->scenarios[i];
	if (!grow((void **)&s->scenarios, &s->scenario_cap, s->scenario_count, sizeof(*s->scenarios)))
		return NULL;
	sc = &s->scenarios[s->scenario_count++];
	memset(sc, 0, sizeof(*sc));
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	return sc;
}

static struct soak_check *check_of(struct soak *s, const char *scenario, const char *case_name, const char *check)
{
	struct soak_check *c;

	for (int i = 0; i < s->check_count; i++)
		if (!strcmp(s->checks[i].case_name, case_name) && !strcmp(s->checks[i].check, check))
			return &s->checks[i];
	if (!grow((void **)&s->checks, &s->check_cap, s->check_count, sizeof(*s->checks)))
		return NULL;
	c = &s->checks[s->check_count++];
	memset(c, 0, sizeof(*c));
	snprintf(c->scenario, sizeof(c->scenario), "%s", scenario);
	snprintf(c->case_name, sizeof(c->case_name), "%s", case_name);
	snprintf(c->check, sizeof(c->check), "%s", check);
	return c;
}

/* One check entry of one result into its check's row and its scenario's row. */
static bool add_check(struct soak *s, struct soak_scenario *sc, const char *case_name, json_object *chk)
{
	const char *task = result_json_string(chk, "task"), *metric = result_json_string(chk, "metric");
	const char *name = result_json_string(chk, "name"), *kind = result_json_string(chk, "kind");
	const char *written = result_json_string(chk, "verdict");
	/* A verdict of a name this build does not know counts as not measured. */
	enum verdict verdict = verdict_or(written, VERDICT_NOT_MEASURED);
	double tol = json_get_number(chk, "tolerance", NAN), margin;
	char id[160];
	struct soak_check *c;

	if (!task || !metric || !written)
		return true;	/* the reader accepted it; nothing here to count */
	snprintf(id, sizeof(id), "%s.%s%s%s", task, metric, name ? "." : "", name ? name : "");
	if (!(c = check_of(s, sc->name, case_name, id)))
		return false;
	snprintf(c->kind, sizeof(c->kind), "%s", kind ? kind : "approx");
	snprintf(c->unit, sizeof(c->unit), "%s", result_json_string(chk, "unit") ? result_json_string(chk, "unit") : "");
	c->c.windows++;
	sc->c.windows++;
	if (verdict == VERDICT_UNJUDGED) {
		c->c.unjudged++;
		sc->c.unjudged++;
		return true;
	}
	if (verdict == VERDICT_NOT_APPLICABLE) {
		c->c.not_applicable++;
		sc->c.not_applicable++;
		return true;
	}
	if (verdict != VERDICT_PASS && verdict != VERDICT_FAIL) {
		c->c.not_measured++;
		sc->c.not_measured++;
		return true;
	}
	c->c.judged++;
	sc->c.judged++;
	if (verdict == VERDICT_FAIL) {
		c->c.failed++;
		sc->c.failed++;
		if (!c->first_fail_suite)
			c->first_fail_suite = s->suites;
	}
	c->last_tolerance = tol;
	margin = soak_margin(c->kind, json_get_number(chk, "measured", NAN), json_get_number(chk, "expected", NAN), tol);
	if (isnan(margin)) {
		/* Tolerance 0 (a setting read exactly): judged, but it has no margin to give. */
		c->c.exact++;
		sc->c.exact++;
		return true;
	}
	if (!c->m.n || margin < c->m.worst) {
		c->m.worst = margin;
		c->m.worst_suite = s->suites;
	}
	if (!sc->m.n || margin < sc->m.worst) {
		sc->m.worst = margin;
		sc->m.worst_suite = s->suites;
		snprintf(sc->worst_check, sizeof(sc->worst_check), "%s %s", case_name, id);
	}
	return margins_add(&c->m, margin) && margins_add(&sc->m, margin);
}

/* One result (or kernel result) of a suite: its verdict and each of its checks. */
static bool add_result(struct soak *s, json_object *res, bool kernel)
{
	const char *scenario = result_json_string(res, kernel ? "name" : "scenario");
	const char *written = result_json_string(res, "verdict");
	const char *policy = result_json_string(result_json_get(res, "policy"), "name");
	json_object *sweep = result_json_get(res, "sweep"), *checks = result_json_get(res, "checks");
	struct soak_scenario *sc;
	char case_name[192];

	if (!scenario || !written || !(sc = scenario_of(s, scenario)))
		return scenario && written ? false : true;
	snprintf(case_name, sizeof(case_name), "%s%s%s", scenario, policy ? "." : "", policy ? policy : "");
	if (result_json_string(sweep, "param") && !isnan(json_get_number(sweep, "value", NAN)))
		snprintf(case_name + strlen(case_name), sizeof(case_name) - strlen(case_name), ".%s=%g",
			 result_json_string(sweep, "param"), json_get_number(sweep, "value", NAN));
	sc->results++;
	/* A verdict of a name this build does not know counts as an error. */
	switch (verdict_or(written, VERDICT_ERROR)) {
	case VERDICT_PASS:
		sc->passed++;
		break;
	case VERDICT_FAIL:
		sc->failed++;
		break;
	case VERDICT_UNJUDGED:
		sc->unjudged++;
		break;
	case VERDICT_SKIP:
		sc->skipped++;
		break;
	default:
		sc->errors++;
		break;
	}
	/* Periods judged, and those the trace saw disturbed and the promise left out. */
	sc->periods += (int)json_get_int64(result_json_get(res, "promise"), "periods", 0);
	sc->censored_periods +=
		(int)json_get_int64(result_json_get(result_json_get(res, "promise"), "censored"), "periods", 0);
	for (size_t i = 0; json_object_is_type(checks, json_type_array) && i < json_object_array_length(checks); i++)
		if (!add_check(s, sc, case_name, json_object_array_get_idx(checks, i)))
			return false;
	return true;
}

bool soak_add(struct soak *s, json_object *root, const char *label)
{
	json_object *results = result_json_get(root, "results"), *run = result_json_get(root, "run");
	json_object *kres = result_json_get(root, "kernel_results");
	const char *kernel = result_json_string(result_json_get(result_json_get(root, "system"), "kernel"), "release");
	const char *host = result_json_string(result_json_get(root, "system"), "host");
	const char *start = result_json_string(run, "start"), *end = result_json_string(run, "end");
	json_object *complete = result_json_get(run, "complete");

	if (!json_object_is_type(results, json_type_array)) {
		rtt_cmd_err("soak", "%s: results: missing (not an rtthrottle results file)", label);
		return false;
	}
	s->suites++;
	if (!json_object_is_type(complete, json_type_boolean) || !json_object_get_boolean(complete))
		s->incomplete++;
	if (kernel) {
		if (s->kernel[0] && strcmp(s->kernel, kernel))
			s->mixed_kernels = true;
		if (!s->kernel[0])
			snprintf(s->kernel, sizeof(s->kernel), "%s", kernel);
	}
	if (host && !s->host[0])
		snprintf(s->host, sizeof(s->host), "%s", host);
	/* ISO 8601 UTC strings sort as times do. */
	if (start && (!s->first_start[0] || strcmp(start, s->first_start) < 0))
		snprintf(s->first_start, sizeof(s->first_start), "%s", start);
	if (end && strcmp(end, s->last_end) > 0)
		snprintf(s->last_end, sizeof(s->last_end), "%s", end);
	for (size_t i = 0; json_object_is_type(kres, json_type_array) && i < json_object_array_length(kres); i++)
		if (!add_result(s, json_object_array_get_idx(kres, i), true))
			goto nomem;
	for (size_t i = 0; i < json_object_array_length(results); i++)
		if (!add_result(s, json_object_array_get_idx(results, i), false))
			goto nomem;
	return true;
nomem:
	rtt_cmd_err("soak", "%s: out of memory", label);
	return false;
}

bool soak_add_file(struct soak *s, const char *path)
{
	struct result_file f;
	bool ok;

	/* The reader checks what every user of results relies on, naming the file and field. */
	if (!result_file_read(path, &f))
		return false;
	ok = soak_add(s, f.root, path);
	result_file_free(&f);
	return ok;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void margins_finish(struct soak_margins *m)
{
	if (!m->n) {
		m->median = m->p1 = m->worst = NAN;
		return;
	}
	qsort(m->v, (size_t)m->n, sizeof(*m->v), cmp_double);
	m->median = m->n % 2 ? m->v[m->n / 2] : (m->v[m->n / 2 - 1] + m->v[m->n / 2]) / 2;
	/* Nearest rank: below 100 values the 1st percentile is the worst one. */
	m->p1 = m->v[(int)ceil(0.01 * m->n) - 1];
	m->worst = m->v[0];
}

void soak_finish(struct soak *s)
{
	for (int i = 0; i < s->check_count; i++)
		margins_finish(&s->checks[i].m);
	for (int i = 0; i < s->scenario_count; i++)
		margins_finish(&s->scenarios[i].m);
}

void soak_free(struct soak *s)
{
	for (int i = 0; i < s->check_count; i++)
		free(s->checks[i].m.v);
	for (int i = 0; i < s->scenario_count; i++)
		free(s->scenarios[i].m.v);
	free(s->checks);
	free(s->scenarios);
	memset(s, 0, sizeof(*s));
}
