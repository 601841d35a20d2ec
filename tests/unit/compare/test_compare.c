// SPDX-License-Identifier: GPL-2.0-only
/*
 * `rtthrottle compare` on the fixtures of tests/fixtures (make_fixtures.py says how each was made):
 * a clear regression, a clear improvement, noise that must stay unchanged, runs whose results are
 * all unjudged (compared like any other), and inputs that must be refused naming the file and
 * the field.
 */
#include "commands.h"
#include "compare.h"
#include "unit.h"
#include "unit_fixtures.h"
#include "util.h"

#include <libgen.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stderr (fd 2) or stdout (fd 1) into a buffer while a call runs. */
static int saved_fd = -1;
static FILE *capture;

static void capture_begin(int fd)
{
	fflush(stdout);
	fflush(stderr);
	capture = tmpfile();
	saved_fd = dup(fd);
	dup2(fileno(capture), fd);
}

static void capture_end(int fd, char *buf, size_t len)
{
	size_t got;

	fflush(stdout);
	fflush(stderr);
	dup2(saved_fd, fd);
	close(saved_fd);
	rewind(capture);
	got = fread(buf, 1, len - 1, capture);
	buf[got] = '\0';
	fclose(capture);
}

struct pair {
	struct result_file base, new;
	struct compare_table table;
	bool ok;
};

static bool compare_fixtures(const char *base, const char *new, struct pair *p)
{
	struct compare_options opt = { COMPARE_ALPHA_DEFAULT, COMPARE_MIN_REPS_DEFAULT };

	memset(p, 0, sizeof(*p));
	if (!result_file_read(fixture_path(base), &p->base) || !result_file_read(fixture_path(new), &p->new))
		return false;
	p->ok = compare_files(&p->base, &p->new, &opt, &p->table);
	return p->ok;
}

static void pair_free(struct pair *p)
{
	if (p->ok)
		compare_table_free(&p->table);
	result_file_free(&p->base);
	result_file_free(&p->new);
}

/* Two result files a test writes into a private folder, compared. */
struct written_pair {
	char dir[32], base[64], new[64];
	struct pair p;
};

static bool written_pair_open(struct written_pair *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->dir, sizeof(w->dir), "/tmp/rtt-unit-XXXXXX");
	if (!mkdtemp(w->dir))
		return false;
	snprintf(w->base, sizeof(w->base), "%s/a.json", w->dir);
	snprintf(w->new, sizeof(w->new), "%s/b.json", w->dir);
	return true;
}

/* Reads and compares the two files once the test wrote them. */
static bool written_pair_compare(struct written_pair *w)
{
	struct compare_options opt = { COMPARE_ALPHA_DEFAULT, COMPARE_MIN_REPS_DEFAULT };

	if (!result_file_read(w->base, &w->p.base) || !result_file_read(w->new, &w->p.new))
		return false;
	w->p.ok = compare_files(&w->p.base, &w->p.new, &opt, &w->p.table);
	return w->p.ok;
}

static void written_pair_close(struct written_pair *w)
{
	pair_free(&w->p);
	unlink(w->base);
	unlink(w->new);
	rmdir(w->dir);
}

static const struct compare_row *row(const struct compare_table *t, const char *case_name, const char *task,
				     const char *metric)
{
	for (int i = 0; i < t->count; i++)
		if (!strcmp(t->rows[i].base->case_name, case_name) && !strcmp(t->rows[i].base->task, task) &&
		    !strcmp(t->rows[i].base->metric, metric))
			return &t->rows[i];
	return NULL;
}

TEST(compare_rules_directions)
{
	const struct metric_rule *r;

	CHECK((r = metric_rule_find("victim", "cpu_share")) && r->direction == DIR_HIGHER, "victim cpu_share");
	CHECK((r = metric_rule_find("victim", "cpu_share_periods")) && r->direction == DIR_HIGHER, "victim periods");
	CHECK((r = metric_rule_find("victim", "starvation_max_us")) && r->direction == DIR_LOWER, "starvation");
	CHECK((r = metric_rule_find("hog", "cpu_share")) && r->direction == DIR_TARGET &&
		      !strcmp(r->sibling, "cpu_share_periods"), "hog cpu_share is a target");
	CHECK((r = metric_rule_find("probe", "latency_us.p99")) && r->direction == DIR_LOWER, "latency");
	CHECK((r = metric_rule_find("app", "deadline_misses")) && r->direction == DIR_LOWER, "misses");
	CHECK((r = metric_rule_find("admin", "recovery_ms")) && r->direction == DIR_LOWER, "recovery");
	CHECK((r = metric_rule_find("result", "recovery_ms")) && r->direction == DIR_LOWER, "result recovery");
	CHECK((r = metric_rule_find("hog", "loop_ns")) && r->direction == DIR_INFO, "loop_ns informational");
	CHECK(!metric_rule_find("result", "loops"), "a task rule applied to a result-level value");
	CHECK(!metric_rule_find("victim", "gap_count"), "gap_count is not compared");
}

TEST(compare_clear_regression_by_rank_test)
{
	struct pair p;
	const struct compare_row *r;

	CHECK(compare_fixtures("base-3rep.json", "regression-3rep.json", &p), "compare refused");
	if (!p.ok) {
		pair_free(&p);
		return;
	}
	CHECK(p.table.regressed == 5 && p.table.improved == 0, "regressed %d improved %d", p.table.regressed,
	      p.table.improved);
	r = row(&p.table, "fifo-hog-share.unlimited", "victim", "cpu_share");
	CHECK(r && r->outcome == CHANGE_REGRESSED && r->method == METHOD_RANK && r->mw.exact, "victim share");
	if (r) {
		CHECK(fabs(r->mw.p - 0.1) < 1e-12, "p %g", r->mw.p);
		CHECK(fabs(r->regress_below - (r->base_median - 0.005)) < 1e-12, "limit %g", r->regress_below);
		CHECK(isnan(r->regress_above), "no upper limit for a higher-is-better metric");
	}
	r = row(&p.table, "fifo-hog-share.unlimited", "hog", "cpu_share");
	CHECK(r && r->outcome == CHANGE_REGRESSED && fabs(r->target_base - 0.95) < 1e-9,
	      "hog share moved away from its 0.95 target");
	r = row(&p.table, "fifo-hog-share.default", "victim", "cpu_share");
	CHECK(r && r->outcome == CHANGE_UNCHANGED, "an untouched policy changed");
	CHECK(p.table.note_count == 4, "notes %d (metrics measured only in BASE)", p.table.note_count);
	pair_free(&p);
}

TEST(compare_clear_regression_by_check_band)
{
	struct pair p;
	const struct compare_row *r;

	CHECK(compare_fixtures("base-1rep.json", "regression-1rep.json", &p), "compare refused");
	if (!p.ok) {
		pair_free(&p);
		return;
	}
	CHECK(p.table.regressed == 5, "regressed %d", p.table.regressed);
	r = row(&p.table, "fifo-hog-share.unlimited", "victim", "starvation_max_us");
	CHECK(r && r->outcome == CHANGE_REGRESSED && r->method == METHOD_CHECK_BAND, "starvation");
	if (r)
		CHECK(fabs(r->band - 9500.79665) < 1e-3, "band %.5f: 1%% of the base beats the check's 8301.677",
		      r->band);
	/* Where the victim's check fell back to cpu_share, that check's band; elsewhere the ratio band. */
	r = row(&p.table, "fifo-hog-share.unlimited", "victim", "cpu_share");
	CHECK(r && r->method == METHOD_CHECK_BAND, "the fallback check gives victim cpu_share a band");
	r = row(&p.table, "fifo-hog-share.default", "victim", "cpu_share");
	CHECK(r && r->method == METHOD_SIBLING_BAND && r->outcome == CHANGE_UNCHANGED,
	      "victim cpu_share without a check of its own: the band of its sibling's check");
	pair_free(&p);
	/* The same pair the other way round is an improvement. */
	CHECK(compare_fixtures("regression-1rep.json", "base-1rep.json", &p), "compare refused");
	CHECK(p.ok && p.table.improved == 5 && p.table.regressed == 0, "improved %d regressed %d", p.table.improved,
	      p.table.regressed);
	pair_free(&p);
}

TEST(compare_clear_improvement)
{
	struct pair p;
	const struct compare_row *r;

	CHECK(compare_fixtures("base-3rep.json", "improvement-3rep.json", &p), "compare refused");
	if (!p.ok) {
		pair_free(&p);
		return;
	}
	CHECK(p.table.improved == 3 && p.table.regressed == 0, "improved %d regressed %d", p.table.improved,
	      p.table.regressed);
	r = row(&p.table, "fifo-hog-share.half", "victim", "cpu_share_periods");
	CHECK(r && r->outcome == CHANGE_IMPROVED && r->method == METHOD_RANK, "victim periods share");
	r = row(&p.table, "fifo-hog-share.half", "hog", "cpu_share");
	CHECK(r && r->outcome == CHANGE_IMPROVED, "hog share moved to its 0.5 target");
	pair_free(&p);
}

TEST(compare_noise_is_unchanged)
{
	static const char *const pairs[][2] = {
		{ "base-3rep.json", "noise-3rep.json" },	/* rank test: interleaved ranks */
		{ "base-1rep.json", "base-3rep.json" },		/* two real runs: check bands */
		{ "base-3rep.json", "base-1rep.json" },
		{ "base-3rep.json", "base-3rep.json" },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct pair p;

		CHECK(compare_fixtures(pairs[i][0], pairs[i][1], &p), "%s %s refused", pairs[i][0], pairs[i][1]);
		if (p.ok)
			CHECK(p.table.regressed == 0 && p.table.improved == 0 && p.table.unchanged == 27,
			      "%s %s: regressed %d improved %d unchanged %d", pairs[i][0], pairs[i][1], p.table.regressed,
			      p.table.improved, p.table.unchanged);
		pair_free(&p);
	}
}

TEST(compare_noise_below_minimum_effect_is_unchanged)
{
	struct compare_options opt = { COMPARE_ALPHA_DEFAULT, COMPARE_MIN_REPS_DEFAULT };
	struct pair p;
	const struct compare_row *r;

	/* In the real run, the default and unlimited hogs' shares are separated (p = 0.1) by 0.0005. */
	memset(&p, 0, sizeof(p));
	CHECK(result_file_read(fixture_path("base-3rep.json"), &p.base), "load");
	for (int i = 0; i < p.base.series_count; i++) {
		struct series *s = &p.base.series[i];

		if (!strcmp(s->case_name, "fifo-hog-share.unlimited"))
			snprintf(s->case_name, sizeof(s->case_name), "fifo-hog-share.default-renamed");
	}
	CHECK(result_file_read(fixture_path("base-3rep.json"), &p.new), "load");
	for (int i = 0; i < p.new.series_count; i++) {
		struct series *s = &p.new.series[i];

		if (!strcmp(s->case_name, "fifo-hog-share.default"))
			snprintf(s->case_name, sizeof(s->case_name), "fifo-hog-share.x");
		else if (!strcmp(s->case_name, "fifo-hog-share.unlimited"))
			snprintf(s->case_name, sizeof(s->case_name), "fifo-hog-share.default");
	}
	p.ok = compare_files(&p.base, &p.new, &opt, &p.table);
	CHECK(p.ok, "compare refused");
	r = p.ok ? row(&p.table, "fifo-hog-share.default", "hog", "cpu_share") : NULL;
	CHECK(r && r->method == METHOD_RANK && fabs(r->mw.p - 0.1) < 1e-12 && r->outcome == CHANGE_UNCHANGED,
	      "a separated but tiny change must stay unchanged");
	pair_free(&p);
}

static void expect_refused(const char *base, const char *new, const char *named_file, const char *named_field)
{
	struct pair p;
	char err[1024];
	bool ok;

	capture_begin(2);
	ok = compare_fixtures(base, new, &p);
	capture_end(2, err, sizeof(err));
	CHECK(!ok, "%s vs %s accepted", base, new);
	CHECK(strstr(err, named_file) != NULL, "%s vs %s: message does not name %s: %s", base, new, named_file, err);
	CHECK(strstr(err, named_field) != NULL, "%s vs %s: message does not name %s: %s", base, new, named_field, err);
	pair_free(&p);
}

TEST(compare_refuses_bad_input_naming_file_and_field)
{
	expect_refused("base-1rep.json", "other-scenario.json", "other-scenario.json", "results[0].scenario");
	expect_refused("other-scenario.json", "base-1rep.json", "other-scenario.json", "results[0].scenario");
	expect_refused("base-1rep.json", "schema-v2.json", "schema-v2.json", "schema_version: 2");
	expect_refused("base-1rep.json", "malformed.json", "malformed.json", "not valid JSON");
	expect_refused("base-1rep.json", "missing-policy.json", "missing-policy.json", "results[1].policy: missing");
	expect_refused("base-1rep.json", "bad-metric.json", "bad-metric.json", "results[0].tasks[1].metrics.cpu_share");
	expect_refused("base-1rep.json", "all-skipped.json", "all-skipped.json", "nothing was measured");
	expect_refused("base-1rep.json", "no-such-file.json", "no-such-file.json", "cannot read");
}

TEST(compare_json_has_rows_and_limits)
{
	struct pair p;
	json_object *root, *rows, *first, *v;

	CHECK(compare_fixtures("base-3rep.json", "regression-3rep.json", &p), "compare refused");
	if (!p.ok) {
		pair_free(&p);
		return;
	}
	root = compare_to_json(&p.table);
	CHECK(json_object_object_get_ex(root, "rows", &rows) && (int)json_object_array_length(rows) == p.table.count,
	      "rows");
	first = json_object_array_get_idx(rows, 0);
	CHECK(json_object_object_get_ex(first, "direction", &v) && !strcmp(json_object_get_string(v), "target"),
	      "first row's direction");
	CHECK(json_object_object_get_ex(first, "method", &v) && !strcmp(json_object_get_string(v), "mann-whitney-normal"),
	      "first row's method: %s", v ? json_object_get_string(v) : "none");
	CHECK(json_object_object_get_ex(root, "summary", &v) &&
		      json_object_get_int(json_object_object_get(v, "regressed")) == 5, "summary");
	json_object_put(root);
	pair_free(&p);
}

/*
 * Writes one result of rt-probe-collateral.unlimited: the probe's median latency and misses, of
 * which its check excuses `allowed`.
 */
/* allowed < 0: the misses check was not measured (it holds placeholders). */
static bool write_probe_result(const char *path, double p50_us, int misses, int allowed)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fprintf(f, "{\"schema_version\": 1, \"results\": [{\"scenario\": \"rt-probe-collateral\","
		" \"policy\": {\"name\": \"unlimited\", \"runtime_us\": -1, \"period_us\": 1000000}, \"verdict\": \"pass\","
		" \"tasks\": [{\"name\": \"probe\", \"role\": \"probe\", \"metrics\": {\"latency_us\": {\"p50\": %g},"
		" \"deadline_misses\": %d}}],"
		" \"checks\": [{\"task\": \"probe\", \"metric\": \"latency_us.p50\", \"unit\": \"us\", \"measured\": %g,"
		" \"expected\": 1000, \"tolerance\": 0, \"kind\": \"at_most\", \"verdict\": \"pass\"},"
		" {\"task\": \"probe\", \"metric\": \"deadline_misses\", \"unit\": \"count\", \"measured\": %d,"
		" \"expected\": %d, \"tolerance\": 0, \"kind\": \"at_most\", \"verdict\": \"%s\"}]}]}\n",
		p50_us, misses, p50_us, misses, allowed < 0 ? 0 : allowed,
		allowed < 0 ? "not-measured" : misses > allowed ? "fail" : "pass");
	return fclose(f) == 0;
}

/*
 * Two runs of one unmodified kernel under an emulator: the probe's median latency 98 and
 * 144 us. Its only check bounds it at a quarter tick with tolerance 0, which is no band for
 * how a time varies: not judged, where the 10% minimum effect called it a regression. A count
 * with a tolerance-0 check keeps its band of one event.
 */
TEST(compare_zero_tolerance_bound_is_no_band_for_a_time)
{
	struct written_pair w;
	const struct compare_row *r;

	if (!written_pair_open(&w))
		return;
	CHECK(write_probe_result(w.base, 98, 0, 0) && write_probe_result(w.new, 144, 3, 0), "fixtures written");
	CHECK(written_pair_compare(&w), "compare refused");
	r = row(&w.p.table, "rt-probe-collateral.unlimited", "probe", "latency_us.p50");
	CHECK(r && r->outcome == CHANGE_UNJUDGED, "the median latency: %s", r ? change_name(r->outcome) : "no row");
	r = row(&w.p.table, "rt-probe-collateral.unlimited", "probe", "deadline_misses");
	CHECK(r && r->outcome == CHANGE_REGRESSED && r->method == METHOD_CHECK_BAND, "misses 0 -> 3: %s",
	      r ? change_name(r->outcome) : "no row");
	written_pair_close(&w);
}

/* Compares two probe results written by write_probe_result; the misses row's verdict. */
static enum change misses_change(int base_misses, int base_allowed, int new_misses, int new_allowed)
{
	enum change v = CHANGE_INFO;
	struct written_pair w;
	const struct compare_row *r;

	if (!written_pair_open(&w))
		return v;
	if (write_probe_result(w.base, 100, base_misses, base_allowed) &&
	    write_probe_result(w.new, 100, new_misses, new_allowed) && written_pair_compare(&w)) {
		r = row(&w.p.table, "rt-probe-collateral.unlimited", "probe", "deadline_misses");
		if (r)
			v = r->outcome;
	}
	written_pair_close(&w);
	return v;
}

/*
 * A deadline task's misses that its own overruns explain (a stall an emulator charged to the
 * job): two runs of one unmodified kernel, 0 and 2 misses, both excused by the check. Compare
 * judges what the check does not excuse, so this is no regression; misses beyond the bound are.
 */
TEST(compare_misses_the_check_excuses_are_not_a_regression)
{
	enum change v = misses_change(0, 0, 2, 2);

	CHECK(v == CHANGE_UNCHANGED, "0 -> 2 misses, 2 excused: %s", change_name(v));
	v = misses_change(0, 0, 3, 1);
	CHECK(v == CHANGE_REGRESSED, "0 -> 3 misses, 1 excused: %s", change_name(v));
	v = misses_change(2, 2, 0, 0);
	CHECK(v == CHANGE_UNCHANGED, "2 excused -> 0: %s", change_name(v));
}

/*
 * Where only one side's check was judged, that side counts past its bound and the other side's
 * count is raw: the two say different things, so the row is not judged (either way round).
 */
TEST(compare_lower_metric_judged_on_one_side_only_is_unjudged)
{
	enum change v = misses_change(0, 0, 3, -1);

	CHECK(v == CHANGE_UNJUDGED, "0 judged -> 3 not measured: %s", change_name(v));
	v = misses_change(2, -1, 2, 2);
	CHECK(v == CHANGE_UNJUDGED, "2 not measured -> 2 excused: %s", change_name(v));
	v = misses_change(1, 1, 3, 1);
	CHECK(v == CHANGE_REGRESSED, "both judged, 1 excused -> 2 past the bound: %s", change_name(v));
}

/* `rtthrottle compare BASE NEW` on two paths, its table (stdout) in out; the exit status. */
static int run_compare(const char *base, const char *new, char *out, size_t len)
{
	char b[PATH_MAX], n[PATH_MAX], cmd[] = "compare";
	char *argv[] = { cmd, b, n, NULL };
	int status;

	snprintf(b, sizeof(b), "%s", base);
	snprintf(n, sizeof(n), "%s", new);
	capture_begin(1);
	status = cmd_compare(3, argv);
	capture_end(1, out, len);
	return status;
}

/* The lines of a compare table whose "unjudged" column says `in` and whose verdict is `verdict`. */
static int table_lines(const char *table, const char *in, const char *verdict)
{
	char want[64];
	int count = 0;

	snprintf(want, sizeof(want), " %-8s %-10s ", in, verdict);
	for (const char *line = table; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n'), *hit = strstr(line, want);

		count += *line != '#' && hit && (!end || hit < end);
	}
	return count;
}

/* Every row's "unjudged in" is `in` (NULL: none); false after a failed check. */
static bool rows_unjudged_in(const struct pair *p, const char *in)
{
	for (int i = 0; i < p->table.count; i++) {
		const char *got = unjudged_in(&p->table.rows[i]);

		if (in ? !got || strcmp(got, in) : got != NULL) {
			CHECK(false, "%s %s.%s: unjudged in %s, not %s", p->table.rows[i].base->case_name,
			      p->table.rows[i].base->task, p->table.rows[i].base->metric, got ? got : "none",
			      in ? in : "none");
			return false;
		}
	}
	return true;
}

/*
 * Every result unjudged (a check as wide as what it catches) still measured its window: two
 * such runs are compared like any others, each line marked, none refused.
 */
TEST(compare_all_unjudged_runs_compares_their_measurements)
{
	char a[PATH_MAX], table[16384];
	struct pair p;
	const struct compare_row *r;
	json_object *root, *rows, *v;
	int status;

	snprintf(a, sizeof(a), "%s", fixture_path("all-unjudged-1rep.json"));
	status = run_compare(a, a, table, sizeof(table));
	CHECK(status == EXIT_ALL_PASSED, "exit status %d: %s", status, table);
	CHECK(table_lines(table, "both", "unchanged") == 27, "27 lines marked both and unchanged:\n%s", table);
	CHECK(strstr(table, "# 27 lines of cases unjudged in BASE or NEW") != NULL, "the closing line:\n%s", table);
	CHECK(strstr(table, "3 results (3 measured)") != NULL, "every unjudged result counts as measured:\n%s", table);

	CHECK(compare_fixtures("all-unjudged-1rep.json", "all-unjudged-1rep.json", &p), "compare refused");
	if (p.ok) {
		CHECK(p.table.unchanged == 27 && p.table.from_unjudged == 27, "unchanged %d, from unjudged %d",
		      p.table.unchanged, p.table.from_unjudged);
		rows_unjudged_in(&p, "both");
		/* The hog's share check was unjudged: its expected value and band still hold. */
		r = row(&p.table, "fifo-hog-share.default", "hog", "cpu_share_periods");
		CHECK(r && r->method == METHOD_CHECK_BAND && fabs(r->target_base - 0.95) < 1e-9, "hog share's target");
		root = compare_to_json(&p.table);
		rows = json_object_object_get(root, "rows");
		v = json_object_array_get_idx(rows, 0);
		CHECK(json_object_get_boolean(json_object_object_get(v, "base_unjudged")) &&
			      json_object_get_boolean(json_object_object_get(v, "new_unjudged")), "JSON row marks");
		v = json_object_object_get(root, "summary");
		CHECK(json_object_get_int(json_object_object_get(v, "from_unjudged")) == 27, "JSON summary");
		json_object_put(root);
	}
	pair_free(&p);
	/* Against a judged run: only the unjudged side is named. */
	CHECK(compare_fixtures("base-1rep.json", "all-unjudged-1rep.json", &p) && p.table.unchanged == 27 &&
		      rows_unjudged_in(&p, "NEW"), "base-1rep against all-unjudged-1rep");
	pair_free(&p);
	CHECK(compare_fixtures("all-unjudged-1rep.json", "base-1rep.json", &p) && rows_unjudged_in(&p, "BASE"),
	      "all-unjudged-1rep against base-1rep");
	pair_free(&p);
	CHECK(compare_fixtures("base-1rep.json", "base-1rep.json", &p) && p.table.from_unjudged == 0 &&
		      rows_unjudged_in(&p, NULL), "no mark between judged runs");
	pair_free(&p);
}

/* A victim starved at runtime -1 in an all-unjudged run is a regression against another such run. */
TEST(compare_all_unjudged_runs_still_catch_a_regression)
{
	char dir[64], a[PATH_MAX], b[PATH_MAX], table[16384];
	json_object *doc, *victim;
	int status;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(a, sizeof(a), "%s", fixture_path("all-unjudged-1rep.json"));
	snprintf(b, sizeof(b), "%s/starved.json", dir);
	doc = json_object_from_file(a);
	/* results[1] is fifo-hog-share.unlimited, its tasks[1] the victim. */
	victim = json_object_object_get(json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(
		json_object_object_get(doc, "results"), 1), "tasks"), 1), "metrics");
	CHECK(victim != NULL, "the victim's metrics of fifo-hog-share.unlimited");
	json_object_object_add(victim, "cpu_share", json_object_new_double(0.0001));
	json_object_object_add(victim, "cpu_share_periods", json_object_new_double(0.0001));
	CHECK(json_object_to_file(b, doc) == 0, "write %s", b);
	json_object_put(doc);
	status = run_compare(a, b, table, sizeof(table));
	CHECK(status == EXIT_CHECK_FAILED, "exit status %d:\n%s", status, table);
	CHECK(table_lines(table, "both", "regressed") == 2, "victim cpu_share and cpu_share_periods:\n%s", table);
	remove_temp_dir(dir);
}

/* Measured means a metric value: a skipped or failed-to-run result, or one without values, is not. */
TEST(result_file_measured_means_a_metric_value)
{
	char dir[64], path[PATH_MAX];
	struct result_file f;
	FILE *fp;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/r.json", dir);
	fp = fopen(path, "w");
	CHECK(fp != NULL, "create %s", path);
	if (!fp) {
		remove_temp_dir(dir);
		return;
	}
	fputs("{\"schema_version\": 1, \"results\": ["
	      "{\"scenario\": \"s\", \"policy\": {\"name\": \"a\"}, \"verdict\": \"unjudged\","
	      " \"tasks\": [{\"role\": \"victim\", \"metrics\": {\"cpu_share\": null}}]},"
	      "{\"scenario\": \"s\", \"policy\": {\"name\": \"b\"}, \"verdict\": \"error\","
	      " \"tasks\": [{\"role\": \"victim\", \"metrics\": {\"cpu_share\": 0.5}}]},"
	      "{\"scenario\": \"s\", \"policy\": {\"name\": \"c\"}, \"verdict\": \"skip\"},"
	      "{\"scenario\": \"s\", \"policy\": {\"name\": \"d\"}, \"verdict\": \"unjudged\","
	      " \"tasks\": [{\"role\": \"victim\", \"metrics\": {\"cpu_share\": 0.25}}]}]}\n", fp);
	fclose(fp);
	CHECK(result_file_read(path, &f), "read");
	CHECK(f.result_count == 4 && f.measured_count == 1 && f.series_count == 1, "results %d, measured %d, series %d",
	      f.result_count, f.measured_count, f.series_count);
	CHECK(f.series_count == 1 && !strcmp(f.series[0].case_name, "s.d") && f.series[0].case_unjudged,
	      "the unjudged result's value, marked");
	result_file_free(&f);
	remove_temp_dir(dir);
}

/* One duty-cycle result above the RT share: the app's throttled misses and its at_least 1 check. */
static bool write_misses_above_share(const char *path, int misses)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fprintf(f, "{\"schema_version\": 1, \"results\": [{\"scenario\": \"duty-cycle\","
		" \"policy\": {\"name\": \"default\", \"runtime_us\": 950000, \"period_us\": 1000000}, \"verdict\": \"pass\","
		" \"tasks\": [{\"name\": \"app\", \"role\": \"periodic\", \"metrics\": {\"throttled_misses\": %d}}],"
		" \"checks\": [{\"task\": \"app\", \"metric\": \"throttled_misses\", \"unit\": \"count\", \"measured\": %d,"
		" \"expected\": 1, \"tolerance\": 0, \"kind\": \"at_least\", \"verdict\": \"pass\"}]}]}\n",
		misses, misses);
	return fclose(f) == 0;
}

/*
 * Above the RT share a periodic app misses jobs by design: its check asks for at least one,
 * and two unmodified runs gave 61 and 98. That check bounds the count from the side fewer-is-
 * better calls better, so it is no band for a regression: 1 vs 1 runs are not judged.
 */
TEST(compare_a_check_from_the_better_side_gives_no_band)
{
	struct written_pair w;
	const struct compare_row *r;

	if (!written_pair_open(&w))
		return;
	CHECK(write_misses_above_share(w.base, 61) && write_misses_above_share(w.new, 98), "fixtures written");
	CHECK(written_pair_compare(&w), "compare refused");
	r = row(&w.p.table, "duty-cycle.default", "app", "throttled_misses");
	CHECK(r && r->outcome == CHANGE_UNJUDGED, "61 -> 98 misses above the share: %s",
	      r ? change_name(r->outcome) : "no row");
	written_pair_close(&w);
}
