// SPDX-License-Identifier: GPL-2.0-only
/*
 * `rtthrottle soak`'s aggregation on made-up results files (no machine): margins per kind, counts
 * per check and per scenario across suites, flags for a failed check and one near its bound.
 */
#include "soak.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A results file of one suite: a fifo-hog-share result with three checks, kernel-defaults. */
static const char *suite_json(char *buf, size_t len, const char *verdict, double hog_share, const char *hog_verdict,
			      double excess_us, const char *victim_verdict, const char *end)
{
	snprintf(buf, len,
		 "{\"schema_version\": 1,"
		 " \"run\": {\"id\": \"x\", \"start\": \"2026-12-04T10:00:00Z\", \"end\": \"%s\", \"complete\": true},"
		 " \"system\": {\"host\": \"vm\", \"kernel\": {\"release\": \"6.18.0\"}},"
		 " \"kernel_results\": [{\"name\": \"kernel-defaults\", \"verdict\": \"pass\", \"checks\": ["
		 "   {\"task\": \"kernel\", \"metric\": \"sched_rt_runtime_us\", \"unit\": \"us\", \"measured\": 950000,"
		 "    \"expected\": 950000, \"tolerance\": 0, \"kind\": \"approx\", \"verdict\": \"pass\"}]}],"
		 " \"results\": ["
		 "  {\"scenario\": \"fifo-hog-share\", \"policy\": {\"name\": \"default\"}, \"verdict\": \"%s\","
		 "   \"promise\": {\"periods\": 2, \"censored\": {\"periods\": 1}},"
		 "   \"tasks\": [{\"name\": \"hog\", \"role\": \"hog\", \"metrics\": {}}, {\"name\": \"victim\", \"role\": \"victim\", \"metrics\": {}}],"
		 "   \"checks\": ["
		 "    {\"task\": \"hog\", \"metric\": \"cpu_share_periods\", \"unit\": \"ratio\", \"measured\": %g,"
		 "     \"expected\": 0.95, \"tolerance\": 0.02, \"kind\": \"approx\", \"verdict\": \"%s\"},"
		 "    {\"task\": \"hog\", \"metric\": \"rt_budget_excess_us\", \"unit\": \"us\", \"measured\": %g,"
		 "     \"expected\": 0, \"tolerance\": 5000, \"kind\": \"at_most\", \"verdict\": \"pass\"},"
		 "    {\"task\": \"victim\", \"metric\": \"cfs_period_min_us\", \"name\": \"rest\", \"unit\": \"us\","
		 "     \"measured\": 49000, \"expected\": 50000, \"tolerance\": 5000, \"kind\": \"at_least\","
		 "     \"verdict\": \"%s\"}]},"
		 "  {\"scenario\": \"burst\", \"policy\": {\"name\": \"default\"}, \"verdict\": \"skip\","
		 "   \"skip_reason\": \"needs a second online CPU\"}]}",
		 end, verdict, hog_share, hog_verdict, excess_us, victim_verdict);
	return buf;
}

static bool write_suite(const char *dir, int k, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/suite-%d.json", dir, k);
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return fclose(f) == 0;
}

static const struct soak_check *find(const struct soak *s, const char *check)
{
	for (int i = 0; i < s->check_count; i++)
		if (!strcmp(s->checks[i].check, check))
			return &s->checks[i];
	return NULL;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

TEST(soak_margin_by_kind)
{
	/* 1 at the expected value, 0 at the bound, negative beyond it, for each kind. */
	CHECK(near(soak_margin("approx", 0.95, 0.95, 0.02), 1), "approx at expected");
	CHECK(near(soak_margin("approx", 0.96, 0.95, 0.02), 0.5), "approx halfway");
	CHECK(near(soak_margin("approx", 0.93, 0.95, 0.02), 0), "approx at the lower bound");
	CHECK(near(soak_margin("approx", 0.975, 0.95, 0.02), -0.25), "approx beyond");
	CHECK(near(soak_margin("at_most", 4500, 0, 5000), 0.1), "at_most near its bound");
	CHECK(near(soak_margin("at_most", -5000, 0, 5000), 2), "at_most well under");
	CHECK(near(soak_margin("at_least", 46000, 50000, 5000), 0.2), "at_least");
	CHECK(near(soak_margin("at_least", 44000, 50000, 5000), -0.2), "at_least failed");
	CHECK(isnan(soak_margin("approx", 1, 1, 0)), "tolerance 0 has no margin");
}

TEST(soak_gathers_suites_per_check_and_scenario)
{
	char dir[64], path[4096], text[4096];
	struct soak s = { 0 };
	const struct soak_check *share, *excess, *rest, *runtime;
	const struct soak_scenario *fhs = NULL, *burst = NULL;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	/* 1: all pass, the hog at its expected share, RT 4.6 ms over its budget (margin 0.08). */
	CHECK(write_suite(dir, 1, suite_json(text, sizeof(text), "pass", 0.95, "pass", 4600, "pass",
					     "2026-12-04T10:01:00Z"), path, sizeof(path)) &&
		      soak_add_file(&s, path), "suite 1");
	/* 2: the hog's share fails (a false alarm), the rest check comes out unjudged. */
	CHECK(write_suite(dir, 2, suite_json(text, sizeof(text), "fail", 0.975, "fail", -1000, "unjudged",
					     "2026-12-04T10:03:00Z"), path, sizeof(path)) &&
		      soak_add_file(&s, path), "suite 2");
	/* 3: the share at half its tolerance, the rest check not measured. */
	CHECK(write_suite(dir, 3, suite_json(text, sizeof(text), "unjudged", 0.96, "pass", 0, "not-measured",
					     "2026-12-04T10:02:00Z"), path, sizeof(path)) &&
		      soak_add_file(&s, path), "suite 3");
	soak_finish(&s);
	CHECK(s.suites == 3 && s.incomplete == 0 && !s.mixed_kernels, "suites %d incomplete %d", s.suites,
	      s.incomplete);
	CHECK(!strcmp(s.last_end, "2026-12-04T10:03:00Z") && !strcmp(s.kernel, "6.18.0"), "end %s kernel %s",
	      s.last_end, s.kernel);

	share = find(&s, "hog.cpu_share_periods");
	CHECK(share && !strcmp(share->case_name, "fifo-hog-share.default"), "share row");
	if (share) {
		CHECK(share->c.windows == 3 && share->c.judged == 3 && share->c.failed == 1, "share counts %d %d %d",
		      share->c.windows, share->c.judged, share->c.failed);
		CHECK(share->m.n == 3 && near(share->m.median, 0.5) && near(share->m.worst, -0.25) &&
			      near(share->m.p1, -0.25) && share->m.worst_suite == 2,
		      "share margins median %g worst %g p1 %g suite %d", share->m.median, share->m.worst, share->m.p1,
		      share->m.worst_suite);
		CHECK(share->first_fail_suite == 2 && soak_check_flagged(share), "share flagged as failed");
	}
	excess = find(&s, "hog.rt_budget_excess_us");
	CHECK(excess && excess->c.failed == 0 && near(excess->m.worst, 0.08) && near(excess->m.median, 1),
	      "excess: never failed, worst 0.08, median 1");
	CHECK(excess && soak_check_flagged(excess), "excess within 10%% of its bound is flagged");
	rest = find(&s, "victim.cfs_period_min_us.rest");
	CHECK(rest && rest->c.windows == 3 && rest->c.judged == 1 && rest->c.unjudged == 1 && rest->c.not_measured == 1,
	      "rest: one judged, one unjudged, one not measured");
	CHECK(rest && near(rest->m.worst, 0.8) && !soak_check_flagged(rest), "rest margin 0.8, not flagged");
	runtime = find(&s, "kernel.sched_rt_runtime_us");
	CHECK(runtime && runtime->c.judged == 3 && runtime->c.exact == 3 && runtime->m.n == 0 &&
		      !soak_check_flagged(runtime), "exact settings: judged, no margin, not flagged");

	for (int i = 0; i < s.scenario_count; i++) {
		if (!strcmp(s.scenarios[i].name, "fifo-hog-share"))
			fhs = &s.scenarios[i];
		if (!strcmp(s.scenarios[i].name, "burst"))
			burst = &s.scenarios[i];
	}
	CHECK(fhs && fhs->results == 3 && fhs->passed == 1 && fhs->failed == 1 && fhs->unjudged == 1,
	      "fifo-hog-share verdicts");
	CHECK(fhs && fhs->c.judged == 7 && fhs->c.failed == 1 && fhs->c.unjudged == 1 && fhs->c.not_measured == 1 &&
		      fhs->m.n == 7 && near(fhs->m.worst, -0.25), "fifo-hog-share pooled checks");
	CHECK(fhs && strstr(fhs->worst_check, "hog.cpu_share_periods"), "worst check named: %s",
	      fhs ? fhs->worst_check : "");
	CHECK(burst && burst->results == 3 && burst->skipped == 3 && burst->c.windows == 0, "burst skipped 3 times");
	CHECK(fhs && fhs->periods == 6 && fhs->censored_periods == 3, "periods judged %d, censored %d",
	      fhs ? fhs->periods : -1, fhs ? fhs->censored_periods : -1);

	{
		json_object *doc = soak_to_json(&s), *totals, *v, *flagged;

		CHECK(json_object_object_get_ex(doc, "totals", &totals) &&
			      json_object_object_get_ex(totals, "false_alarms", &v) && json_object_get_int(v) == 1,
		      "JSON totals: one false alarm");
		CHECK(json_object_object_get_ex(doc, "flagged", &flagged) && json_object_array_length(flagged) == 2,
		      "JSON: two flagged checks");
		json_object_put(doc);
	}
	soak_free(&s);
	remove_temp_dir(dir);
}

TEST(soak_refuses_what_is_not_results)
{
	char dir[64], path[4096], err[512];
	struct stderr_capture cap;
	struct soak s = { 0 };
	bool ok;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	CHECK(write_suite(dir, 1, "{\"results\": []}", path, sizeof(path)), "write");
	if (!stderr_capture_begin(&cap, dir)) {
		remove_temp_dir(dir);
		return;
	}
	ok = soak_add_file(&s, path);
	stderr_capture_end(&cap, err, sizeof(err));
	CHECK(!ok && s.suites == 0, "a file without schema_version is refused");
	CHECK(strstr(err, path) && strstr(err, "schema_version"), "the message names file and field: %s", err);
	soak_free(&s);
	remove_temp_dir(dir);
}
