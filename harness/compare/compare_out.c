// SPDX-License-Identifier: GPL-2.0-only
/* The verdict table of `rtthrottle compare`: text for people, JSON for the plots and CI. */
#include "compare.h"
#include "json_util.h"
#include "verdict.h"

#include <math.h>
#include <string.h>

static const char *fmt_value(const char *unit, double v, bool sign, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "ratio"))
		snprintf(buf, len, sign ? "%+.4f" : "%.4f", v);
	else if (!strcmp(unit, "count") && v == floor(v))
		snprintf(buf, len, sign ? "%+.0f" : "%.0f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, sign ? "%+.0f" : "%.0f", v);
	else
		snprintf(buf, len, sign ? "%+.1f" : "%.1f", v);
	return buf;
}

static void want(const struct compare_row *r, char *buf, size_t len)
{
	const struct metric_rule *rule = r->base->rule;
	char v[32];

	if (rule->direction == DIR_TARGET)
		snprintf(buf, len, "=%s", fmt_value(rule->unit, r->target_base, false, v, sizeof(v)));
	else
		snprintf(buf, len, "%s", direction_name(rule->direction));
}

static void p_or_band(const struct compare_row *r, char *buf, size_t len)
{
	char v[32];

	if (r->method == METHOD_RANK)
		snprintf(buf, len, "p=%.3f (%dv%d)", r->mw.p, r->base->n, r->new->n);
	else if (r->method != METHOD_NONE)
		snprintf(buf, len, "+-%s", fmt_value(r->base->rule->unit, r->band, false, v, sizeof(v)));
	else
		snprintf(buf, len, "-");
}

static void file_line(FILE *out, const char *side, const struct result_file *f)
{
	fprintf(out, "# %-4s %s: run %s, kernel %s, host %s, %d results (%d measured)\n", side, f->path,
		f->run_id ? f->run_id : "?", f->kernel ? f->kernel : "?", f->host ? f->host : "?", f->result_count,
		f->measured_count);
}

void compare_print(FILE *out, const struct compare_table *t, bool all)
{
	int wc = 4, wm = 6;

	file_line(out, "BASE", t->base);
	file_line(out, "NEW", t->new);
	for (int i = 0; i < t->count; i++) {
		const struct compare_row *r = &t->rows[i];
		int m = (int)(strlen(r->base->task) + 1 + strlen(r->base->metric));

		if ((r->outcome == CHANGE_INFO || r->outcome == CHANGE_UNJUDGED) && !all)
			continue;
		wc = (int)strlen(r->base->case_name) > wc ? (int)strlen(r->base->case_name) : wc;
		wm = m > wm ? m : wm;
	}
	fprintf(out, "%-*s  %-*s  %-8s %12s %12s %20s  %-16s %-8s %-10s %s\n", wc, "case", wm, "metric", "want",
		"base median", "new median", "change", "p or band", verdict_name(VERDICT_UNJUDGED), "verdict", "method");
	for (int i = 0; i < t->count; i++) {
		const struct compare_row *r = &t->rows[i];
		const char *unit = r->base->rule->unit;
		char metric[100], w[32], bm[32], nm[32], ch[48], pb[40], rel[24] = "";

		if ((r->outcome == CHANGE_INFO || r->outcome == CHANGE_UNJUDGED) && !all)
			continue;
		snprintf(metric, sizeof(metric), "%s.%s", r->base->task, r->base->metric);
		want(r, w, sizeof(w));
		fmt_value(unit, r->change, true, ch, sizeof(ch));
		if (isfinite(r->change_rel))
			snprintf(rel, sizeof(rel), fabs(r->change_rel) < 0.01 ? " (%+.2f%%)" : " (%+.1f%%)",
				 100 * r->change_rel);
		strncat(ch, rel, sizeof(ch) - strlen(ch) - 1);
		p_or_band(r, pb, sizeof(pb));
		fprintf(out, "%-*s  %-*s  %-8s %12s %12s %20s  %-16s %-8s %-10s %s\n", wc, r->base->case_name, wm, metric,
			w, fmt_value(unit, r->base_median, false, bm, sizeof(bm)),
			fmt_value(unit, r->new_median, false, nm, sizeof(nm)), ch, pb,
			unjudged_in(r) ? unjudged_in(r) : "-", change_name(r->outcome), method_name(r));
	}
	for (int i = 0; i < t->note_count; i++)
		fprintf(out, "# not compared: %s\n", t->notes[i].text);
	fprintf(out, "# %d regressed, %d improved, %d unchanged", t->regressed, t->improved, t->unchanged);
	if (t->unjudged)
		fprintf(out, ", %d not judged (no target or no band%s)", t->unjudged, all ? "" : "; --all lists them");
	fprintf(out, "; with %d+ repetitions on both sides a rank test decides (Mann-Whitney U, alpha %.2f, "
		     "plus the minimum effect), else the checks' tolerance bands\n", t->opt.min_reps, t->opt.alpha);
	if (t->from_unjudged)
		fprintf(out, "# %d lines of cases unjudged in BASE or NEW (column unjudged): measured, but without a "
			     "verdict of their own checks; compared all the same\n", t->from_unjudged);
}

static json_object *number(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *file_json(const struct result_file *f)
{
	json_object *obj = json_object_new_object();

	json_add_str(obj, "path", f->path);
	json_object_object_add(obj, "run_id", f->run_id ? json_object_new_string(f->run_id) : NULL);
	json_object_object_add(obj, "run_start", f->run_start ? json_object_new_string(f->run_start) : NULL);
	json_object_object_add(obj, "kernel_release", f->kernel ? json_object_new_string(f->kernel) : NULL);
	json_object_object_add(obj, "host", f->host ? json_object_new_string(f->host) : NULL);
	json_add_int(obj, "results", f->result_count);
	json_add_int(obj, "measured", f->measured_count);
	return obj;
}

static json_object *values_json(const struct series *s)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < s->n; i++)
		json_object_array_add(arr, json_object_new_double(s->obs[i].value));
	return arr;
}

static json_object *row_json(const struct compare_row *r)
{
	json_object *obj = json_object_new_object();
	const struct series *s = r->base;

	json_add_str(obj, "case", s->case_name);
	json_add_str(obj, "scenario", s->scenario);
	json_add_str(obj, "policy", s->policy);
	json_add_str(obj, "task", s->task);
	json_add_str(obj, "role", s->role);
	json_add_str(obj, "metric", s->metric);
	json_add_str(obj, "unit", s->rule->unit);
	json_add_str(obj, "direction", direction_name(s->rule->direction));
	json_object_object_add(obj, "target_base", number(r->target_base));
	json_object_object_add(obj, "target_new", number(r->target_new));
	json_object_object_add(obj, "base_values", values_json(r->base));
	json_object_object_add(obj, "new_values", values_json(r->new));
	json_object_object_add(obj, "base_median", number(r->base_median));
	json_object_object_add(obj, "new_median", number(r->new_median));
	json_object_object_add(obj, "change", number(r->change));
	json_object_object_add(obj, "change_rel", number(r->change_rel));
	json_add_str(obj, "method", method_name(r));
	json_object_object_add(obj, "p", r->method == METHOD_RANK ? number(r->mw.p) : NULL);
	json_object_object_add(obj, "u", r->method == METHOD_RANK ? number(r->mw.u1) : NULL);
	json_object_object_add(obj, "band", r->method != METHOD_RANK ? number(r->band) : NULL);
	json_object_object_add(obj, "min_effect", number(r->min_effect));
	json_object_object_add(obj, "regress_below", number(r->regress_below));
	json_object_object_add(obj, "regress_above", number(r->regress_above));
	json_add_str(obj, "verdict", change_name(r->outcome));
	json_add_str(obj, "why", r->why);
	json_add_bool(obj, "base_unjudged", r->base->case_unjudged);
	json_add_bool(obj, "new_unjudged", r->new->case_unjudged);
	return obj;
}

json_object *compare_to_json(const struct compare_table *t)
{
	json_object *root = json_object_new_object(), *rows = json_object_new_array(),
		    *summary = json_object_new_object(), *notes = json_object_new_array(), *how = json_object_new_object();

	json_add_int(root, "compare_version", 1);
	json_object_object_add(root, "base", file_json(t->base));
	json_object_object_add(root, "new", file_json(t->new));
	json_add_str(how, "rank_test", "Mann-Whitney U, two-sided");
	json_add_double(how, "alpha", t->opt.alpha);
	json_add_int(how, "min_repetitions", t->opt.min_reps);
	json_add_str(how, "otherwise", "the tolerance band of the results' own checks");
	json_object_object_add(root, "method", how);
	for (int i = 0; i < t->count; i++)
		json_object_array_add(rows, row_json(&t->rows[i]));
	json_object_object_add(root, "rows", rows);
	for (int i = 0; i < t->note_count; i++)
		json_object_array_add(notes, json_object_new_string(t->notes[i].text));
	json_object_object_add(root, "not_compared", notes);
	json_add_int(summary, "regressed", t->regressed);
	json_add_int(summary, "improved", t->improved);
	json_add_int(summary, "unchanged", t->unchanged);
	json_add_int(summary, "not_judged", t->unjudged);
	json_add_int(summary, "informational", t->info);
	json_add_int(summary, "from_unjudged", t->from_unjudged);
	json_object_object_add(root, "summary", summary);
	return root;
}
