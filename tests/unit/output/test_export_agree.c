// SPDX-License-Identifier: GPL-2.0-only
/* One name and one outcome per check in KTAP, JUnit, KCIDB and LAVA; JUnit classnames without stray dots. */
#include "expect.h"
#include "export.h"
#include "report.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMES 5

static struct check make(const char *task, const char *metric, const char *label, enum check_kind kind)
{
	struct check c;

	memset(&c, 0, sizeof(c));
	snprintf(c.task, sizeof(c.task), "%s", task);
	snprintf(c.metric, sizeof(c.metric), "%s", metric);
	snprintf(c.label, sizeof(c.label), "%s", label);
	c.kind = kind;
	c.unit = "us";
	c.measured = 900;
	c.expected = 1000;
	c.tolerance = 50;
	snprintf(c.rule, sizeof(c.rule), "why; [expect x, tolerance y]");
	return c;
}

/* Two checks of one metric told apart by their names, one not measured, one unjudged (hollow), one failed. */
static int sample(struct check *c)
{
	c[0] = make("probe", "latency_us.max", "floor", CHECK_AT_LEAST);
	c[0].was_measured = c[0].passed = true;
	c[1] = make("probe", "latency_us.max", "bound", CHECK_AT_MOST);
	snprintf(c[1].rule, sizeof(c[1].rule), "not measured: no samples; [expect x]");
	c[2] = make("admin", "recovered", "regained", CHECK_APPROX);
	c[2].hollow = true;
	c[2].detects = 10;
	c[3] = make("hog", "cpu_share", "", CHECK_APPROX);
	c[3].was_measured = true;
	c[3].unit = "ratio";
	c[4] = make("kernel", "RT_RUNTIME_SHARE", "", CHECK_APPROX);
	c[4].skipped = true;
	snprintf(c[4].rule, sizeof(c[4].rule), "not measured: not readable; default");
	return NAMES;
}

static const char *const ktap_names[NAMES] = { "probe.latency_us.max.floor", "probe.latency_us.max.bound",
					       "admin.recovered.regained", "hog.cpu_share", "kernel.RT_RUNTIME_SHARE" };

/* A run of one result: duty-cycle under a grid policy with a dot, swept at 0.5. */
static json_object *document(const struct check *c, int n)
{
	json_object *root = json_object_new_object(), *results = json_object_new_array(),
		    *res = json_object_new_object(), *policy = json_object_new_object(),
		    *sweep = json_object_new_object(), *checks = json_object_new_array(), *run = json_object_new_object();

	for (int i = 0; i < n; i++)
		json_object_array_add(checks, check_to_json(&c[i]));
	json_object_object_add(policy, "name", json_object_new_string("r0.95p100ms"));
	json_object_object_add(sweep, "param", json_object_new_string("util"));
	json_object_object_add(sweep, "value", json_object_new_double(0.5));
	json_object_object_add(res, "scenario", json_object_new_string("duty-cycle"));
	json_object_object_add(res, "policy", policy);
	json_object_object_add(res, "sweep", sweep);
	json_object_object_add(res, "verdict", json_object_new_string("fail"));
	json_object_object_add(res, "checks", checks);
	json_object_array_add(results, res);
	json_object_object_add(run, "id", json_object_new_string("20261203T084000Z-host"));
	json_object_object_add(run, "complete", json_object_new_boolean(true));
	json_object_object_add(root, "run", run);
	json_object_object_add(root, "results", results);
	return root;
}

/* What ktap_checks prints (stdout to a memory stream for the call). */
static char *ktap_text(const struct check *c, int n)
{
	FILE *saved = stdout;
	char *text = NULL;
	size_t len = 0;

	stdout = open_memstream(&text, &len);
	if (!stdout) {
		stdout = saved;
		return NULL;
	}
	ktap_checks("duty-cycle.r0.95p100ms.util=0.5", c, n);
	fclose(stdout);
	stdout = saved;
	return text;
}

TEST(ktap_subtest_is_named_and_checks_keep_their_names)
{
	struct check c[NAMES];
	int n = sample(c);
	char *text = ktap_text(c, n), line[128];

	CHECK(text && !strncmp(text, "    KTAP version 1\n    # Subtest: duty-cycle.r0.95p100ms.util=0.5\n    1..5\n", 73),
	      "header: %.80s", text ? text : "(none)");
	for (int i = 0; text && i < n; i++) {
		snprintf(line, sizeof(line), " %d %s #", i + 1, ktap_names[i]);
		CHECK(strstr(text, line), "KTAP has no '%s'", line);
	}
	CHECK(text && strstr(text, "ok 2 probe.latency_us.max.bound # SKIP no samples"), "not measured: # SKIP");
	CHECK(text && strstr(text, "ok 5 kernel.RT_RUNTIME_SHARE # SKIP not readable"), "skipped: # SKIP");
	free(text);
}

TEST(every_export_names_a_check_as_ktap_does_and_skips_what_ktap_skips)
{
	static const char *const classname = "rtthrottle.duty-cycle.r0_95p100ms.util-0_5";
	static const char *const lava_outcome[NAMES] = { "pass", "skip", "skip", "fail", "skip" };
	static const char *const kcidb_status[NAMES] = { "PASS", "SKIP", "SKIP", "FAIL", "SKIP" };
	struct check c[NAMES];
	int n = sample(c);
	json_object *root = document(c, n), *kcidb = export_kcidb(root, "rtthrottle", NULL), *tests;
	char *junit = export_junit(root), *lava = export_lava(root), want[256];
	const char *at = junit;

	for (int i = 0; i < n; i++) {
		/* JUnit: the testcases in order, each in the class of the result's sanitized path. */
		snprintf(want, sizeof(want), "<testcase classname=\"%s\" name=\"%s\"", classname, ktap_names[i]);
		at = at ? strstr(at, want) : NULL;
		CHECK(at, "JUnit has no %s", want);
		/* KCIDB: the result's path, then the KTAP name. */
		snprintf(want, sizeof(want), "%s.%s", classname, ktap_names[i]);
		tests = json_object_object_get(kcidb, "tests");
		for (size_t k = 0; tests && k < json_object_array_length(tests); k++) {
			json_object *t = json_object_array_get_idx(tests, k);

			if (!strcmp(export_string(t, "path", ""), want)) {
				CHECK(!strcmp(export_string(t, "status", ""), kcidb_status[i]), "KCIDB %s: %s", want,
				      export_string(t, "status", ""));
				want[0] = '\0';
				break;
			}
		}
		CHECK(!want[0], "KCIDB has no %s.%s", classname, ktap_names[i]);
		/* LAVA: the KCIDB path without "rtthrottle.", and the outcome KTAP gives. */
		snprintf(want, sizeof(want), "\n%s.%s %s", classname + 11, ktap_names[i], lava_outcome[i]);
		CHECK(lava && strstr(lava, want), "LAVA has no '%s'", want + 1);
	}
	CHECK(junit && !strstr(junit, "<error"), "a check not judged is no JUnit error");
	CHECK(junit && strstr(junit, "skipped=\"3\""), "three JUnit skips");
	free(junit);
	free(lava);
	json_object_put(kcidb);
	json_object_put(root);
}

TEST(rttests_avg_has_two_decimals_as_cyclictest_writes_it)
{
	json_object *root = json_tokener_parse(
		"{\"run\": {\"id\": \"x\"}, \"results\": [{\"scenario\": \"cfs-probe\", \"policy\": {\"name\": \"default\"},"
		" \"verdict\": \"pass\", \"tasks\": [{\"role\": \"probe\", \"name\": \"probe\", \"cpu\": 1, \"metrics\":"
		" {\"latency_us\": {\"samples\": 3, \"min\": 10, \"max\": 4000, \"avg\": 2031.64, \"hist\": {\"10\": 3}}}}]}]}");
	json_object *doc = root ? export_rttests(root) : NULL;
	const char *text = doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN) : "";

	CHECK(strstr(text, "\"avg\":2031.64,"), "avg as written: %s", strstr(text, "\"avg\"") ? strstr(text, "\"avg\"") : text);
	json_object_put(doc);
	json_object_put(root);
}

/* A results file is input: a repetition or a CPU far outside int's range names rep1, never a cast's garbage. */
TEST(export_numbers_outside_int_range_fall_back)
{
	json_object *result = json_tokener_parse("{\"scenario\": \"fifo-hog-share\", \"policy\": {\"name\": \"default\"},"
						 " \"repetition\": 1.8446744073709552e19, \"cpu\": -1e300, \"ok\": 3}");
	char name[128];

	CHECK(export_int(result, "repetition", 1) == 1 && export_int(result, "cpu", -1) == -1, "out of range");
	CHECK(export_int(result, "ok", 0) == 3 && export_int(result, "absent", 7) == 7, "in range");
	export_case_name(result, 2, name, sizeof(name));
	CHECK(!strcmp(name, "fifo-hog-share.default.rep1"), "%s", name);
	export_result_path(result, 2, name, sizeof(name));
	CHECK(!strcmp(name, "rtthrottle.fifo-hog-share.default.rep1"), "%s", name);
	json_object_put(result);
}

/*
 * A check name cut at EXPORT_NAME_MAX (a task name longer than it, as a fuzzed results file
 * had) holds no metric after the task: KCIDB's path takes the task alone, read within the name.
 */
TEST(kcidb_check_whose_name_is_cut_keeps_its_task)
{
	struct check c = make("probe", "latency_us.max", "", CHECK_APPROX);
	json_object *root, *res, *checks, *kcidb, *tests, *t;
	char task[201];

	memset(task, 'x', sizeof(task) - 1);
	task[sizeof(task) - 1] = '\0';
	c.was_measured = c.passed = true;
	root = document(&c, 1);
	res = json_object_array_get_idx(json_object_object_get(root, "results"), 0);
	checks = json_object_object_get(res, "checks");
	json_object_object_add(json_object_array_get_idx(checks, 0), "task", json_object_new_string(task));
	kcidb = export_kcidb(root, "rtthrottle", NULL);
	tests = json_object_object_get(kcidb, "tests");
	t = NULL;
	for (size_t k = 0; tests && k < json_object_array_length(tests); k++)
		if (strstr(export_string(json_object_array_get_idx(tests, k), "path", ""), "xxxx"))
			t = json_object_array_get_idx(tests, k);
	CHECK(t && strstr(export_string(t, "path", ""), "xxxxxxxx") && !strstr(export_string(t, "path", ""), "latency"),
	      "path %s", t ? export_string(t, "path", "") : "(none)");
	json_object_put(kcidb);
	json_object_put(root);
}
