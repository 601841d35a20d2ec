// SPDX-License-Identifier: GPL-2.0-only
/*
 * cyclictest's --json file read into the probe's vocabulary: a real file of rt-tests 2.40
 * (tests/fixtures/cyclictest-2.40.json: 400 cycles, -h 20, so 21 samples overflowed the
 * histogram), and files that are wrong in one field each.
 */
#include "cyclictest.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(cyclictest_ingest_real_file)
{
	struct cyclictest_result *r = calloc(1, sizeof(*r));
	char why[320] = "";
	json_object *lat;
	bool found;

	CHECK(cyclictest_ingest(fixture_path("cyclictest-2.40.json"), r, why, sizeof(why)), "refused: %s", why);
	CHECK(r->cycles == 400, "cycles %llu", (unsigned long long)r->cycles);
	CHECK(r->overflows == 21, "overflows %llu (400 cycles, 379 in the histogram)", (unsigned long long)r->overflows);
	CHECK(r->cpu == 1, "cpu %d", r->cpu);
	CHECK(!strcmp(r->version, "2.40"), "version %s", r->version);
	lat = cyclictest_latency_json(r);
	CHECK(json_number(lat, "samples", &found) == 400 && found, "samples");
	CHECK(json_number(lat, "min", &found) == 14 && found, "min");
	CHECK(json_number(lat, "max", &found) == 121 && found, "max");
	CHECK(json_number(lat, "avg", &found) > 16.90 && json_number(lat, "avg", &found) < 16.92, "avg %g", json_number(lat, "avg", &found));
	/* The 200th sample lies in the 16 us bucket: its upper bound, like the probe's percentiles. */
	CHECK(json_number(lat, "p50", &found) == 17 && found, "p50 %g", json_number(lat, "p50", &found));
	/* p99 and p999 lie among the 21 overflows (>= 20 us): not known, so left out. */
	json_number(lat, "p99", &found);
	CHECK(!found, "p99 present although it lies among the overflows");
	json_number(lat, "p999", &found);
	CHECK(!found, "p999 present");
	CHECK(!json_object_object_get_ex(lat, "worst", NULL), "cyclictest has no times of its worst wake-ups");
	json_object_put(lat);
	free(r);
}

static void refused(const char *dir, const char *text, const char *says)
{
	struct cyclictest_result *r = calloc(1, sizeof(*r));
	char path[PATH_MAX], why[320] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/ct.json", dir);
	f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (!f)
		return free(r);
	fputs(text, f);
	fclose(f);
	CHECK(!cyclictest_ingest(path, r, why, sizeof(why)), "accepted: %s", text);
	CHECK(strstr(why, says) && strstr(why, path), "message \"%s\" lacks \"%s\" or the path", why, says);
	free(r);
}

#define THREAD(body) "{\"rt_test_version:\": \"2.40\", \"resolution_in_ns\": 0, \"thread\": {\"0\": {" body "}}}"
#define GOOD_FIELDS "\"cycles\": 10, \"min\": 3, \"max\": 9, \"avg\": 5.5, \"cpu\": 1, \"node\": 0"

TEST(cyclictest_ingest_bad_files)
{
	char dir[64];

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	refused(dir, "{\"thread\": ", "cannot read or parse");
	refused(dir, "[1, 2]", "(top level)");
	refused(dir, "{\"resolution_in_ns\": 1, \"thread\": {}}", "resolution_in_ns");
	refused(dir, "{\"num_threads\": 0}", "thread: missing");
	refused(dir, "{\"thread\": {}}", "thread.0: missing");
	refused(dir, THREAD("\"histogram\": {\"3\": 10}, \"min\": 3, \"max\": 9, \"avg\": 5.5"), "thread.0.cycles: missing");
	refused(dir, THREAD("\"histogram\": {}, \"cycles\": \"10\", \"min\": 3, \"max\": 9, \"avg\": 5.5"), "thread.0.cycles: must be");
	refused(dir, THREAD("\"histogram\": {}, \"cycles\": -1, \"min\": 3, \"max\": 9, \"avg\": 5.5"), "thread.0.cycles: must be");
	refused(dir, THREAD("\"histogram\": {}, \"cycles\": 0, \"min\": 0, \"max\": 0, \"avg\": 0"), "nothing was measured");
	refused(dir, THREAD("\"histogram\": {\"3\": 10}, \"cycles\": 10, \"min\": 3, \"max\": 9"), "thread.0.avg");
	refused(dir, THREAD("\"histogram\": {\"3\": 10}, \"cycles\": 10, \"min\": 9, \"max\": 3, \"avg\": 5"), "above max");
	refused(dir, THREAD(GOOD_FIELDS), "thread.0.histogram: missing");
	refused(dir, THREAD("\"histogram\": {\"x3\": 10}, " GOOD_FIELDS), "key \"x3\"");
	refused(dir, THREAD("\"histogram\": {\"3\": -2}, " GOOD_FIELDS), "histogram.3: must be a count");
	refused(dir, THREAD("\"histogram\": {\"3\": 6, \"4\": 5}, " GOOD_FIELDS), "holds 11 samples, more than its 10 cycles");
	remove_temp_dir(dir);
}

TEST(cyclictest_ingest_all_in_histogram)
{
	struct cyclictest_result *r = calloc(1, sizeof(*r));
	char dir[64], path[PATH_MAX], why[320] = "";
	json_object *lat;
	bool found;
	FILE *f;

	if (!make_temp_dir(dir, sizeof(dir)))
		return free(r);
	snprintf(path, sizeof(path), "%s/ct.json", dir);
	f = fopen(path, "w");
	/* 100 cycles: 98 at 5 us, one at 40 us, one at 2500 us (a log bucket of the probe's histogram). */
	fputs(THREAD("\"histogram\": {\"5\": 98, \"40\": 1, \"2500\": 1}, \"cycles\": 100, \"min\": 5, \"max\": 2500, "
		     "\"avg\": 30.3, \"cpu\": 1"), f);
	fclose(f);
	CHECK(cyclictest_ingest(path, r, why, sizeof(why)), "refused: %s", why);
	CHECK(r->overflows == 0, "overflows %llu", (unsigned long long)r->overflows);
	lat = cyclictest_latency_json(r);
	CHECK(json_number(lat, "p50", &found) == 6, "p50 %g", json_number(lat, "p50", &found));
	CHECK(json_number(lat, "p99", &found) == 41, "p99 %g: the 99th of 100 samples is the 40 us one", json_number(lat, "p99", &found));
	CHECK(json_number(lat, "p999", &found) == 2500, "p999 %g: the slowest, capped at max", json_number(lat, "p999", &found));
	json_object_put(lat);
	remove_temp_dir(dir);
	free(r);
}
