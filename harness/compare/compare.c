// SPDX-License-Identifier: GPL-2.0-only
/* A verdict per metric: the rank test given enough repetitions on both sides, else the checks' bands. */
#include "compare.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *change_name(enum change c)
{
	static const char *const names[] = { "unchanged", "improved", "regressed", "info", "not-judged" };

	return names[c];
}

const char *method_name(const struct compare_row *row)
{
	switch (row->method) {
	case METHOD_RANK:
		return row->mw.exact ? "mann-whitney-exact" : "mann-whitney-normal";
	case METHOD_CHECK_BAND:
		return "check-band";
	case METHOD_SIBLING_BAND:
		return "sibling-band";
	default:
		return "none";
	}
}

const char *unjudged_in(const struct compare_row *row)
{
	if (row->base->case_unjudged)
		return row->new->case_unjudged ? "both" : "BASE";
	return row->new->case_unjudged ? "NEW" : NULL;
}

__attribute__((format(printf, 2, 3))) static void note(struct compare_table *t, const char *fmt, ...)
{
	struct compare_note *grown = realloc(t->notes, sizeof(*t->notes) * (size_t)(t->note_count + 1));
	va_list ap;

	if (!grown)
		return;
	t->notes = grown;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->note_count++].text, sizeof(t->notes[0].text), fmt, ap);
	va_end(ap);
}

/* The median target of a side, from the observations that have one. */
static double median_target(const struct series *s)
{
	double v[s->n > 0 ? s->n : 1];
	int k = 0;

	for (int i = 0; i < s->n; i++)
		if (isfinite(s->obs[i].target))
			v[k++] = s->obs[i].target;
	return k ? stats_median(v, k) : NAN;
}

/* The median tolerance of the best source a side has. */
static double median_tolerance(const struct series *s, enum tol_source *source)
{
	double v[s->n > 0 ? s->n : 1];
	int k = 0;

	*source = TOL_NONE;
	for (int i = 0; i < s->n; i++)
		if (s->obs[i].tol_source > *source)
			*source = s->obs[i].tol_source;
	for (int i = 0; *source != TOL_NONE && i < s->n; i++)
		if (s->obs[i].tol_source == *source)
			v[k++] = s->obs[i].tolerance;
	return k ? stats_median(v, k) : NAN;
}

/*
 * Values turned so that lower is better: distance to the target, negated for "higher", and
 * for "lower" what lies beyond an at_most check's bound where the check has one.
 */
static void badness(const struct series *s, enum direction dir, double side_target, double *out)
{
	for (int i = 0; i < s->n; i++) {
		double target = isfinite(s->obs[i].target) ? s->obs[i].target : side_target;

		out[i] = dir == DIR_TARGET ? fabs(s->obs[i].value - target)
			 : dir == DIR_HIGHER ? -s->obs[i].value
			 : isfinite(target) ? s->obs[i].value - target
					     : s->obs[i].value;
	}
}

static void band_change(struct compare_row *r, const struct series *b, const struct series *n, double worse)
{
	enum tol_source sb, sn;
	double tb = median_tolerance(b, &sb), tn = median_tolerance(n, &sn);
	enum tol_source best = sb > sn ? sb : sn;
	double tol = NAN;

	if (best == TOL_NONE) {
		r->outcome = CHANGE_UNJUDGED;
		snprintf(r->why, sizeof(r->why), "%d vs %d repetitions and no check gives a tolerance band "
			 "(--repeat %d on both sides lets the rank test judge it)", b->n, n->n, COMPARE_MIN_REPS_DEFAULT);
		return;
	}
	tol = fmax(sb == best ? tb : -INFINITY, sn == best ? tn : -INFINITY);
	r->method = best == TOL_CHECK ? METHOD_CHECK_BAND : METHOD_SIBLING_BAND;
	r->band = fmax(tol, r->min_effect);
	r->outcome = worse > r->band ? CHANGE_REGRESSED : worse < -r->band ? CHANGE_IMPROVED : CHANGE_UNCHANGED;
	snprintf(r->why, sizeof(r->why), "%d vs %d repetitions: the change of the medians is %s the band", b->n,
		 n->n, fabs(worse) > r->band ? "beyond" : "within");
}

static void rank_change(struct compare_row *r, const double *bb, int nb, const double *nn, int nn_count,
			 double worse, double alpha)
{
	bool significant, large;

	r->method = METHOD_RANK;
	r->band = r->min_effect;
	mann_whitney_u(bb, nb, nn, nn_count, &r->mw);
	significant = r->mw.p <= alpha + 1e-12;
	large = fabs(worse) >= r->min_effect;
	r->outcome = !significant || !large ? CHANGE_UNCHANGED : worse > 0 ? CHANGE_REGRESSED : CHANGE_IMPROVED;
	if (!significant)
		snprintf(r->why, sizeof(r->why), "p %.3g > alpha %.3g", r->mw.p, alpha);
	else if (!large)
		snprintf(r->why, sizeof(r->why), "p %.3g <= alpha %.3g, but the change is below the minimum effect",
			 r->mw.p, alpha);
	else
		snprintf(r->why, sizeof(r->why), "p %.3g <= alpha %.3g and the change reaches the minimum effect",
			 r->mw.p, alpha);
}

static void judge(struct compare_row *r, const struct compare_options *opt)
{
	const struct series *b = r->base, *n = r->new;
	const struct metric_rule *rule = b->rule;
	double braw[b->n], nraw[n->n], bb[b->n], nn[n->n], scale, worse;

	for (int i = 0; i < b->n; i++)
		braw[i] = b->obs[i].value;
	for (int i = 0; i < n->n; i++)
		nraw[i] = n->obs[i].value;
	r->base_median = stats_median(braw, b->n);
	r->new_median = stats_median(nraw, n->n);
	r->change = r->new_median - r->base_median;
	r->change_rel = r->base_median != 0 ? r->change / fabs(r->base_median) : NAN;
	r->target_base = median_target(b);
	r->target_new = median_target(n);
	r->regress_below = r->regress_above = r->band = NAN;
	r->mw.p = NAN;
	if (rule->direction == DIR_INFO) {
		r->outcome = CHANGE_INFO;
		snprintf(r->why, sizeof(r->why), "informational: not judged");
		return;
	}
	if (rule->direction == DIR_TARGET && (!isfinite(r->target_base) || !isfinite(r->target_new))) {
		r->outcome = CHANGE_UNJUDGED;
		snprintf(r->why, sizeof(r->why), "no check of %s gives a target value", isfinite(r->target_base) ? "NEW" : "BASE");
		return;
	}
	/* Past an at_most bound on both sides or on neither: one side raw against the other excused is no change. */
	if (rule->direction == DIR_LOWER && isfinite(r->target_base) != isfinite(r->target_new)) {
		r->outcome = CHANGE_UNJUDGED;
		snprintf(r->why, sizeof(r->why), "only %s's at_most check was judged: its values count past that bound, "
			 "the other side's raw", isfinite(r->target_base) ? "BASE" : "NEW");
		return;
	}
	badness(b, rule->direction, r->target_base, bb);
	badness(n, rule->direction, r->target_new, nn);
	worse = stats_median(nn, n->n) - stats_median(bb, b->n);
	scale = rule->direction == DIR_TARGET ? fabs(r->target_base) : fabs(r->base_median);
	r->min_effect = fmax(rule->min_abs, rule->min_rel * scale);
	if (b->n >= opt->min_reps && n->n >= opt->min_reps)
		rank_change(r, bb, b->n, nn, n->n, worse, opt->alpha);
	else
		band_change(r, b, n, worse);
	if (r->outcome == CHANGE_UNJUDGED)
		return;
	/* Limits for a new median, in measured units (for a rank test: the effect it must reach too). */
	switch (rule->direction) {
	case DIR_HIGHER:
		r->regress_below = r->base_median - r->band;
		break;
	case DIR_LOWER:
		/* Beyond the new side's own bound by more than the base side went beyond its own. */
		r->regress_above = isfinite(r->target_new) ? r->target_new + stats_median(bb, b->n) + r->band
							   : r->base_median + r->band;
		break;
	case DIR_TARGET:
		r->regress_below = r->target_base - (stats_median(bb, b->n) + r->band);
		r->regress_above = r->target_base + (stats_median(bb, b->n) + r->band);
		break;
	default:
		break;
	}
}

/* The first results[] index naming a scenario, for messages. */
static int scenario_index(const struct result_file *f, const char *scenario)
{
	json_object *results = json_object_object_get(f->root, "results");

	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *s = json_object_object_get(json_object_array_get_idx(results, i), "scenario");

		if (s && !strcmp(json_object_get_string(s), scenario))
			return (int)i;
	}
	return -1;
}

static bool same_scenarios(const struct result_file *a, const char *a_name, const struct result_file *b,
			   const char *b_name)
{
	for (int i = 0; i < a->scenario_count; i++) {
		char list[400] = "";

		if (result_file_has_scenario(b, a->scenarios[i]))
			continue;
		for (int k = 0; k < b->scenario_count && strlen(list) < sizeof(list) - 70; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
				 b->scenarios[k]);
		fprintf(stderr,
			"rtthrottle: %s: results[%d].scenario: '%s' is not in %s %s (which has: %s); "
			"compare results of the same scenarios\n",
			a->path, scenario_index(a, a->scenarios[i]), a->scenarios[i], b_name, b->path, list);
		(void)a_name;
		return false;
	}
	return true;
}

static bool case_present(const struct result_file *f, const char *case_name)
{
	for (int i = 0; i < f->series_count; i++)
		if (!strcmp(f->series[i].case_name, case_name))
			return true;
	return false;
}

static void note_unmatched(struct compare_table *t, const struct result_file *have, const char *have_name,
			   const struct result_file *other)
{
	for (int i = 0; i < have->series_count; i++) {
		const struct series *s = &have->series[i];
		bool first_of_case = true;

		if (result_file_find(other, s->case_name, s->task, s->metric) || s->rule->direction == DIR_INFO)
			continue;
		if (!case_present(other, s->case_name)) {
			for (int k = 0; k < i; k++)
				if (!strcmp(have->series[k].case_name, s->case_name))
					first_of_case = false;
			if (first_of_case)
				note(t, "%s: measured only in %s", s->case_name, have_name);
			continue;
		}
		note(t, "%s %s.%s: measured only in %s", s->case_name, s->task, s->metric, have_name);
	}
}

bool compare_files(const struct result_file *base, const struct result_file *new,
		   const struct compare_options *opt, struct compare_table *out)
{
	memset(out, 0, sizeof(*out));
	out->base = base;
	out->new = new;
	out->opt = *opt;
	for (int side = 0; side < 2; side++) {
		const struct result_file *f = side ? new : base;

		if (!f->measured_count) {
			rtt_err("%s: results: nothing was measured (%d results, every one "
				"skipped, stopped by an error or without a metric)", f->path, f->result_count);
			return false;
		}
	}
	if (!same_scenarios(new, "NEW", base, "BASE") || !same_scenarios(base, "BASE", new, "NEW"))
		return false;
	out->rows = calloc((size_t)base->series_count, sizeof(*out->rows));
	if (!out->rows)
		return false;
	for (int i = 0; i < base->series_count; i++) {
		const struct series *b = &base->series[i];
		const struct series *n = result_file_find(new, b->case_name, b->task, b->metric);
		struct compare_row *r;

		if (!n)
			continue;
		r = &out->rows[out->count++];
		r->base = b;
		r->new = n;
		judge(r, opt);
		switch (r->outcome) {
		case CHANGE_IMPROVED: out->improved++; break;
		case CHANGE_REGRESSED: out->regressed++; break;
		case CHANGE_UNCHANGED: out->unchanged++; break;
		case CHANGE_INFO: out->info++; break;
		case CHANGE_UNJUDGED: out->unjudged++; break;
		}
		out->from_unjudged += r->outcome != CHANGE_INFO && unjudged_in(r);
	}
	note_unmatched(out, base, "BASE", new);
	note_unmatched(out, new, "NEW", base);
	if (out->count == out->info) {
		rtt_err("%s and %s: no case (scenario and policy) and metric in common to judge", base->path, new->path);
		compare_table_free(out);
		return false;
	}
	return true;
}

void compare_table_free(struct compare_table *t)
{
	free(t->rows);
	free(t->notes);
	t->rows = NULL;
	t->notes = NULL;
	t->count = t->note_count = 0;
}
