// SPDX-License-Identifier: GPL-2.0-only
/*
 * JUnit XML in the layout of Maven Surefire's reports as Jenkins reads them (Jenkins' junit-10.xsd;
 * GitLab reads the same): one <testsuite> per result, named like its KTAP line, one <testcase> per
 * check named as KTAP names it, its classname the result's dotted path with the dots inside each
 * part made '_' (export_result_path: Jenkins splits a classname at its last dot); a check not
 * judged is <skipped> (KTAP's # SKIP). A result without checks (skipped, error, or none applied)
 * is one testcase "result". A suite "run" says whether the run completed and the knobs came back.
 * No XML library: every attribute and text goes through xml_escape.
 */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Next UTF-8 character of s: its length, or 0 when the bytes are not one XML may hold. */
static size_t xml_char_len(const unsigned char *s)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	unsigned cp = len == 1 ? s[0] : len == 2 ? s[0] & 0x1f : len == 3 ? s[0] & 0x0f : s[0] & 0x07;

	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond Unicode, and the code points XML 1.0 excludes. */
	if (len == 0 || (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp == 0xfffe || cp == 0xffff ||
	    (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r'))
		return 0;
	return len;
}

/* Text or attribute value: markup characters as entities, anything XML cannot hold as '?'. */
static void xml_escape(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	while (*s) {
		size_t len = xml_char_len(s);

		switch (len ? *s : 0) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		/* Attribute values normalise raw whitespace: keep it as character references. */
		case '\n': fputs("&#10;", out); break;
		case '\r': fputs("&#13;", out); break;
		case '\t': fputs("&#9;", out); break;
		case 0: fputc('?', out); len = 1; break;
		default: fwrite(s, 1, len, out); break;
		}
		s += len;
	}
}

static void attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	xml_escape(out, value);
	fputc('"', out);
}

static void attr_int(FILE *out, const char *name, long value)
{
	fprintf(out, " %s=\"%ld\"", name, value);
}

struct tally {
	long tests, failures, errors, skipped;
	double time_s;
};

static json_object *checks_of(json_object *result)
{
	json_object *checks = export_get(result, "checks");

	return json_object_is_type(checks, json_type_array) && json_object_array_length(checks) ? checks : NULL;
}

static void tally_result(json_object *result, struct tally *t)
{
	json_object *checks = checks_of(result);
	enum verdict verdict = export_verdict(result, VERDICT_ERROR);
	double window = export_number(result, "window_s");

	if (isfinite(window) && window > 0)
		t->time_s += window;
	if (!checks) {
		t->tests++;
		t->skipped += export_verdict_skipped(verdict);
		t->errors += !export_verdict_skipped(verdict) && verdict != VERDICT_PASS;
		return;
	}
	for (size_t i = 0; i < json_object_array_length(checks); i++) {
		const char *status = export_check_status(json_object_array_get_idx(checks, i));

		t->tests++;
		t->failures += !strcmp(status, "FAIL");
		t->skipped += !strcmp(status, "SKIP");
	}
}

/* The run itself: completed, and the knobs put back (absent when everything was skipped). */
static void tally_run(json_object *root, struct tally *t)
{
	json_object *run = export_get(root, "run"), *complete = export_get(run, "complete"),
		    *restored = export_get(root, "knobs_restored");

	t->tests++;
	t->errors += !json_object_get_boolean(complete);
	if (restored) {
		t->tests++;
		t->errors += !json_object_get_boolean(restored);
	}
}

static void suite_open(FILE *out, const char *name, const struct tally *t, int id, json_object *root)
{
	const char *start = export_string(export_get(root, "run"), "start", "");
	char stamp[20];

	fputs("  <testsuite", out);
	attr(out, "name", name);
	attr_int(out, "tests", t->tests);
	attr_int(out, "failures", t->failures);
	attr_int(out, "errors", t->errors);
	attr_int(out, "skipped", t->skipped);
	fprintf(out, " time=\"%.3f\"", t->time_s);
	/* JUnit timestamps carry no zone: the run's UTC start without its Z. */
	if (strlen(start) == 20 && start[19] == 'Z') {
		memcpy(stamp, start, 19);
		stamp[19] = '\0';
		attr(out, "timestamp", stamp);
	}
	attr(out, "hostname", export_string(export_get(root, "system"), "host", "localhost"));
	attr_int(out, "id", id);
	attr(out, "package", "rtthrottle");
	fputs(">\n", out);
}

static void property(FILE *out, const char *name, const char *value)
{
	fputs("      <property", out);
	attr(out, "name", name);
	attr(out, "value", value);
	fputs("/>\n", out);
}

static void property_number(FILE *out, const char *name, double value)
{
	char text[32];

	if (!isfinite(value))
		return;
	snprintf(text, sizeof(text), "%.10g", value);
	property(out, name, text);
}

static void result_properties(FILE *out, json_object *result, json_object *root)
{
	json_object *policy = export_get(result, "policy"), *sweep = export_get(result, "sweep");

	fputs("    <properties>\n", out);
	if (export_get(result, "name")) {
		/* A kernel result (regime-probe, kernel-defaults): no scenario, policy or window. */
		property(out, "result", export_string(result, "name", "unknown"));
		property(out, "verdict", export_string(result, "verdict", verdict_name(VERDICT_ERROR)));
		property(out, "kernel", export_string(export_get(export_get(root, "system"), "kernel"), "release", "unknown"));
		property(out, "run_id", export_string(export_get(root, "run"), "id", "unknown"));
		fputs("    </properties>\n", out);
		return;
	}
	property(out, "scenario", export_string(result, "scenario", "unknown"));
	property(out, "policy", export_string(policy, "name", "unknown"));
	property_number(out, "runtime_us", export_number(policy, "runtime_us"));
	property_number(out, "period_us", export_number(policy, "period_us"));
	property_number(out, "repetition", export_number(result, "repetition"));
	if (sweep) {
		property(out, "sweep_param", export_string(sweep, "param", ""));
		property_number(out, "sweep_value", export_number(sweep, "value"));
	}
	if (export_get(result, "regime"))
		property(out, "regime", export_string(result, "regime", ""));
	property_number(out, "steal_us", export_number(result, "steal_us"));
	property(out, "verdict", export_string(result, "verdict", verdict_name(VERDICT_ERROR)));
	property(out, "kernel", export_string(export_get(export_get(root, "system"), "kernel"), "release", "unknown"));
	property(out, "run_id", export_string(export_get(root, "run"), "id", "unknown"));
	fputs("    </properties>\n", out);
}

static void testcase_open(FILE *out, const char *classname, const char *name)
{
	fputs("    <testcase", out);
	attr(out, "classname", classname);
	attr(out, "name", name);
	fputs(" time=\"0\"", out);
}

/* <failure>, <error> or <skipped> with a message and, but for skipped, a body. */
static void outcome(FILE *out, const char *element, const char *type, const char *message, const char *body)
{
	fprintf(out, "      <%s", element);
	if (type)
		attr(out, "type", type);
	attr(out, "message", message);
	if (!body) {
		fputs("/>\n", out);
		return;
	}
	fputc('>', out);
	xml_escape(out, body);
	fprintf(out, "</%s>\n", element);
}

static void check_case(FILE *out, const char *classname, json_object *checks, size_t i)
{
	json_object *c = json_object_array_get_idx(checks, i);
	enum verdict verdict = export_verdict(c, VERDICT_NOT_MEASURED);
	const char *rule = export_string(c, "rule", "");
	char name[EXPORT_NAME_MAX], line[256];

	export_check_name(checks, i, name, sizeof(name));
	/* The KTAP diagnostic: "measured 0.95 approx 0.95 +- 0.0233 ratio". */
	snprintf(line, sizeof(line), "measured %.6g %s %.6g +- %.6g %s", export_number(c, "measured"),
		 export_string(c, "kind", "?"), export_number(c, "expected"), export_number(c, "tolerance"),
		 export_string(c, "unit", ""));
	testcase_open(out, classname, name);
	fputs(">\n", out);
	if (verdict == VERDICT_FAIL)
		outcome(out, "failure", verdict_name(VERDICT_FAIL), line, rule);
	else if (verdict != VERDICT_PASS)
		outcome(out, "skipped", NULL, rule, NULL);
	fputs("      <system-out>", out);
	xml_escape(out, line);
	fputs("&#10;", out);
	xml_escape(out, rule);
	fputs("</system-out>\n    </testcase>\n", out);
}

/* A result without checks: its verdict as one testcase. */
static void verdict_case(FILE *out, const char *classname, json_object *result)
{
	enum verdict verdict = export_verdict(result, VERDICT_ERROR);

	testcase_open(out, classname, "result");
	if (verdict == VERDICT_PASS) {
		fputs("/>\n", out);
		return;
	}
	fputs(">\n", out);
	/* An error's type is the verdict as written, one this build does not know included. */
	if (export_verdict_skipped(verdict))
		outcome(out, "skipped", NULL, export_string(result, "skip_reason", "skipped"), NULL);
	else
		outcome(out, "error", export_string(result, "verdict", verdict_name(VERDICT_ERROR)),
			export_string(result, "error", "no measurement"), export_string(result, "error", ""));
	fputs("    </testcase>\n", out);
}

static void write_result(FILE *out, json_object *result, json_object *root, int id, int max_rep)
{
	json_object *checks = checks_of(result);
	struct tally t = { 0 };
	char name[256], classname[512];

	export_case_name(result, max_rep, name, sizeof(name));
	export_result_path(result, max_rep, classname, sizeof(classname));
	tally_result(result, &t);
	suite_open(out, name, &t, id, root);
	result_properties(out, result, root);
	if (!checks)
		verdict_case(out, classname, result);
	for (size_t i = 0; checks && i < json_object_array_length(checks); i++)
		check_case(out, classname, checks, i);
	fputs("  </testsuite>\n", out);
}

static void write_run(FILE *out, json_object *root, int id)
{
	json_object *run = export_get(root, "run"), *restored = export_get(root, "knobs_restored");
	struct tally t = { 0 };

	tally_run(root, &t);
	suite_open(out, "run", &t, id, root);
	testcase_open(out, "rtthrottle.run", "complete");
	if (json_object_get_boolean(export_get(run, "complete"))) {
		fputs("/>\n", out);
	} else {
		fputs(">\n", out);
		outcome(out, "error", "incomplete",
			export_string(run, "stop_reason", "the noise floor or the calibration failed"), "");
		fputs("    </testcase>\n", out);
	}
	if (restored) {
		testcase_open(out, "rtthrottle.run", "knobs_restored");
		if (json_object_get_boolean(restored)) {
			fputs("/>\n", out);
		} else {
			fputs(">\n", out);
			outcome(out, "error", "knobs", "the knobs differ from those saved; run 'rtthrottle restore'", "");
			fputs("    </testcase>\n", out);
		}
	}
	fputs("  </testsuite>\n", out);
}

char *export_junit(json_object *root)
{
	size_t n = export_result_count(root);
	int max_rep = export_max_repetition(export_get(root, "results"));
	struct tally total = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		tally_result(export_result_at(root, i), &total);
	tally_run(root, &total);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
	attr(out, "name", "rtthrottle");
	attr_int(out, "tests", total.tests);
	attr_int(out, "failures", total.failures);
	attr_int(out, "errors", total.errors);
	fprintf(out, " time=\"%.3f\">\n", total.time_s);
	for (size_t i = 0; i < n; i++)
		write_result(out, export_result_at(root, i), root, (int)i, max_rep);
	write_run(out, root, (int)n);
	fputs("</testsuites>\n", out);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}
