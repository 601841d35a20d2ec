// SPDX-License-Identifier: GPL-2.0-only
/* `rtthrottle soak`'s table (text) and document (JSON) from the gathered checks. */
#include "soak.h"
#include "json_util.h"
#include "verdict.h"

#include <math.h>
#include <string.h>

static json_object *number(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void put_counts(json_object *o, const struct soak_counts *c)
{
	json_add_int(o, "windows", c->windows);
	json_add_int(o, "judged", c->judged);
	json_add_int(o, "false_alarms", c->failed);
	json_add_int(o, verdict_name(VERDICT_UNJUDGED), c->unjudged);
	json_add_int(o, "not_measured", c->not_measured);
	json_add_int(o, "not_applicable", c->not_applicable);
	json_add_int(o, "judged_exact", c->exact);
}

static void put_margins(json_object *o, const struct soak_margins *m)
{
	json_object *mg = json_object_new_object();

	json_add_int(mg, "n", m->n);
	json_object_object_add(mg, "median", number(m->median));
	json_object_object_add(mg, "p1", number(m->p1));
	json_object_object_add(mg, "worst", number(m->worst));
	json_object_object_add(mg, "worst_suite", m->worst_suite ? json_object_new_int(m->worst_suite) : NULL);
	json_object_object_add(o, "margin", mg);
}

static struct soak_counts totals(const struct soak *s)
{
	struct soak_counts t = { 0 };

	for (int i = 0; i < s->scenario_count; i++) {
		const struct soak_counts *c = &s->scenarios[i].c;

		t.windows += c->windows;
		t.judged += c->judged;
		t.failed += c->failed;
		t.unjudged += c->unjudged;
		t.not_measured += c->not_measured;
		t.not_applicable += c->not_applicable;
		t.exact += c->exact;
	}
	return t;
}

static int flagged_count(const struct soak *s)
{
	int n = 0;

	for (int i = 0; i < s->check_count; i++)
		n += soak_check_flagged(&s->checks[i]);
	return n;
}

static int periods_total(const struct soak *s, bool censored)
{
	int n = 0;

	for (int i = 0; i < s->scenario_count; i++)
		n += censored ? s->scenarios[i].censored_periods : s->scenarios[i].periods;
	return n;
}

json_object *soak_to_json(const struct soak *s)
{
	json_object *root = json_object_new_object(), *t = json_object_new_object();
	json_object *scenarios = json_object_new_array(), *checks = json_object_new_array();
	json_object *flagged = json_object_new_array();
	struct soak_counts all = totals(s);

	json_add_str(root, "schema", "rtthrottle-soak/1");
	json_add_int(root, "suites", s->suites);
	json_add_int(root, "incomplete_suites", s->incomplete);
	json_object_object_add(root, "kernel", s->kernel[0] ? json_object_new_string(s->kernel) : NULL);
	json_add_bool(root, "mixed_kernels", s->mixed_kernels);
	json_object_object_add(root, "host", s->host[0] ? json_object_new_string(s->host) : NULL);
	json_object_object_add(root, "start", s->first_start[0] ? json_object_new_string(s->first_start) : NULL);
	json_object_object_add(root, "end", s->last_end[0] ? json_object_new_string(s->last_end) : NULL);
	json_add_double(root, "near_margin", SOAK_NEAR_MARGIN);
	put_counts(t, &all);
	json_add_int(t, "flagged_checks", flagged_count(s));
	json_add_int(t, "periods_judged", periods_total(s, false));
	json_add_int(t, "periods_censored", periods_total(s, true));
	json_object_object_add(root, "totals", t);
	for (int i = 0; i < s->scenario_count; i++) {
		const struct soak_scenario *sc = &s->scenarios[i];
		json_object *o = json_object_new_object();

		json_add_str(o, "scenario", sc->name);
		json_add_int(o, "results", sc->results);
		json_add_int(o, "passed", sc->passed);
		json_add_int(o, "failed", sc->failed);
		json_add_int(o, verdict_name(VERDICT_UNJUDGED), sc->unjudged);
		json_add_int(o, "errors", sc->errors);
		json_add_int(o, "skipped", sc->skipped);
		json_add_int(o, "periods_judged", sc->periods);
		json_add_int(o, "periods_censored", sc->censored_periods);
		json_object *c = json_object_new_object();

		put_counts(c, &sc->c);
		json_object_object_add(o, "checks", c);
		put_margins(o, &sc->m);
		json_object_object_add(o, "worst_check", sc->worst_check[0] ? json_object_new_string(sc->worst_check) : NULL);
		json_object_array_add(scenarios, o);
	}
	for (int i = 0; i < s->check_count; i++) {
		const struct soak_check *c = &s->checks[i];
		json_object *o = json_object_new_object(), *all_margins = json_object_new_array();

		json_add_str(o, "scenario", c->scenario);
		json_add_str(o, "case", c->case_name);
		json_add_str(o, "check", c->check);
		json_add_str(o, "kind", c->kind);
		json_add_str(o, "unit", c->unit);
		put_counts(o, &c->c);
		put_margins(o, &c->m);
		for (int k = 0; k < c->m.n; k++)
			json_object_array_add(all_margins, json_object_new_double(c->m.v[k]));
		json_object_object_add(o, "margins", all_margins);
		json_object_object_add(o, "first_fail_suite",
				       c->first_fail_suite ? json_object_new_int(c->first_fail_suite) : NULL);
		json_add_bool(o, "flagged", soak_check_flagged(c));
		json_object_array_add(checks, o);
		if (soak_check_flagged(c)) {
			char id[360];

			snprintf(id, sizeof(id), "%s %s", c->case_name, c->check);
			json_object_array_add(flagged, json_object_new_string(id));
		}
	}
	json_object_object_add(root, "scenarios", scenarios);
	json_object_object_add(root, "checks", checks);
	json_object_object_add(root, "flagged", flagged);
	return root;
}

static void margin_cells(FILE *out, const struct soak_margins *m)
{
	if (!m->n) {
		fprintf(out, " %7s %7s %7s", "-", "-", "-");
		return;
	}
	fprintf(out, " %7.3f %7.3f %7.3f", m->median, m->p1, m->worst);
}

void soak_print(FILE *out, const struct soak *s)
{
	struct soak_counts all = totals(s);
	int flagged = flagged_count(s);

	fprintf(out, "soak: %d suite%s on %s%s (host %s), %s to %s%s\n", s->suites, s->suites == 1 ? "" : "s",
		s->kernel[0] ? s->kernel : "an unknown kernel", s->mixed_kernels ? " and others (mixed kernels)" : "",
		s->host[0] ? s->host : "?", s->first_start[0] ? s->first_start : "?", s->last_end[0] ? s->last_end : "?",
		s->incomplete ? "; some suites incomplete" : "");
	fprintf(out, "checks: %d judged, %d false alarm%s (failed), %d unjudged, %d not measured, %d not applicable "
		     "(condition false); %d flagged\n",
		all.judged, all.failed, all.failed == 1 ? "" : "s", all.unjudged, all.not_measured, all.not_applicable,
		flagged);
	fprintf(out, "periods: %d judged on the promise's grid, %d left out (censored: the trace saw the machine "
		     "hold the tick back in them, or lost their switches)\n", periods_total(s, false), periods_total(s, true));
	fprintf(out, "margin: how far a judged value stayed from its bound, as a fraction of the tolerance\n"
		     "(1 at the expected value, 0 at the bound, below 0 failed); p1 is the 1st percentile\n"
		     "(the worst below 100 values); tol 0: judged with tolerance 0 (a setting read, a\n"
		     "threshold), so no margin\n\n");
	fprintf(out, "%-24s %4s %4s %4s %4s %4s %6s %6s %5s %5s %5s %7s %7s %7s  %s\n", "scenario", "res", verdict_name(VERDICT_PASS), verdict_name(VERDICT_FAIL),
		"unj", "err", "judged", "alarms", "unj", "n/m", "tol0", "median", "p1", "worst", "worst check");
	for (int i = 0; i < s->scenario_count; i++) {
		const struct soak_scenario *sc = &s->scenarios[i];

		fprintf(out, "%-24.24s %4d %4d %4d %4d %4d %6d %6d %5d %5d %5d", sc->name, sc->results, sc->passed,
			sc->failed, sc->unjudged, sc->errors + sc->skipped, sc->c.judged, sc->c.failed, sc->c.unjudged,
			sc->c.not_measured, sc->c.exact);
		margin_cells(out, &sc->m);
		fprintf(out, "  %s\n", sc->worst_check);
	}
	fprintf(out, "\n%-36s %-40s %6s %6s %5s %5s %7s %7s %7s  %s\n", "case", "check", "judged", "alarms", "unj",
		"n/m", "median", "p1", "worst", "flag");
	for (int i = 0; i < s->check_count; i++) {
		const struct soak_check *c = &s->checks[i];

		fprintf(out, "%-36.36s %-40.40s %6d %6d %5d %5d", c->case_name, c->check, c->c.judged, c->c.failed,
			c->c.unjudged, c->c.not_measured);
		margin_cells(out, &c->m);
		fprintf(out, "  %s\n", c->c.failed ? "FAIL" : soak_check_flagged(c) ? "NEAR" : (c->c.exact && !c->m.n ? "tol 0" : ""));
	}
	fprintf(out, "\nflagged (failed, or within %.0f%% of the bound): %d\n", 100 * SOAK_NEAR_MARGIN, flagged);
	for (int i = 0; i < s->check_count; i++) {
		const struct soak_check *c = &s->checks[i];

		if (!soak_check_flagged(c))
			continue;
		fprintf(out, "  %s %s (%s): failed %d of %d judged", c->case_name, c->check, c->kind, c->c.failed,
			c->c.judged);
		if (c->first_fail_suite)
			fprintf(out, ", first in suite %d", c->first_fail_suite);
		if (c->m.n)
			fprintf(out, "; worst margin %.3f (suite %d), median %.3f", c->m.worst, c->m.worst_suite,
				c->m.median);
		fputc('\n', out);
	}
}
