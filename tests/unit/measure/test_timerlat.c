// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtla timerlat hist output read into the probe's vocabulary: real output of rtla 6.1 on
 * Debian's 7.2.13-rt in the QEMU guest (tests/fixtures/rtla-6.1-timerlat-hist-7.2-rt.txt, and
 * -stop.txt where a threshold stopped the trace), then
 * hand-made outputs that are wrong in one place each, a threshold stop in older and newer rtla's
 * words, and the summary over all CPUs newer rtla prints after the CPU's own.
 */
#include "metrics.h"
#include "timerlat.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_text(const char *text, struct timerlat_result *r, char *why, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool ok;

	CHECK(f != NULL, "fmemopen");
	if (!f)
		return false;
	ok = timerlat_parse(f, r, why, len);
	fclose(f);
	return ok;
}

/* cyclictest-crosscheck's rtla in the guest: -c 1 -p 1000 -P f:80 -E 100000 -T 200000, 2 s window. */
TEST(timerlat_ingest_real_output)
{
	struct timerlat_result *r = calloc(1, sizeof(*r));
	char why[320] = "";
	json_object *lat;
	bool found;

	CHECK(timerlat_ingest(fixture_path("rtla-6.1-timerlat-hist-7.2-rt.txt"), r, why, sizeof(why)), "refused: %s", why);
	CHECK(r->cpu == 1 && r->duration_s == 2 && !r->threshold_stop, "cpu %d, duration %g", r->cpu, r->duration_s);
	CHECK(r->thread.latency.count == 1973 && r->thread.overflows == 0, "thread count %llu",
	      (unsigned long long)r->thread.latency.count);
	CHECK(r->thread.latency.min_ns == 33000 && r->thread.latency.max_ns == 17540000, "thread min/max");
	CHECK(r->irq.seen && r->irq.latency.count == 1974 && r->irq.latency.max_ns == 4508000, "irq column");
	lat = tool_latency_to_json(&r->thread.latency, r->thread.overflows);
	CHECK(json_number(lat, "samples", &found) == 1973, "samples");
	CHECK(json_number(lat, "avg", &found) == 100 && found, "avg %g (rtla's whole us)", json_number(lat, "avg", &found));
	/* The 987th sample lies in the 66 us bucket, the 1953rd in the 280 us one: upper bounds. */
	CHECK(json_number(lat, "p50", &found) == 67, "p50 %g", json_number(lat, "p50", &found));
	CHECK(json_number(lat, "p99", &found) == 281, "p99 %g", json_number(lat, "p99", &found));
	CHECK(json_number(lat, "max", &found) == 17540, "max %g", json_number(lat, "max", &found));
	CHECK(json_object_object_get_ex(lat, "hist", NULL) && !json_object_object_get_ex(lat, "worst", NULL),
	      "the histogram is kept, and no worst (rtla keeps no times)");
	json_object_put(lat);
	free(r);
}

/* -T 150 in the same guest: a wake-up 177 us late stopped the trace after 11 samples. */
TEST(timerlat_ingest_real_threshold_stop)
{
	struct timerlat_result *r = calloc(1, sizeof(*r));
	char why[320] = "";

	CHECK(timerlat_ingest(fixture_path("rtla-6.1-timerlat-hist-7.2-rt-stop.txt"), r, why, sizeof(why)), "refused: %s", why);
	CHECK(r->threshold_stop, "rtla 6.1's stop line not seen");
	CHECK(r->thread.latency.count == 11 && r->thread.latency.max_ns == 177000, "thread count %llu, max %llu ns",
	      (unsigned long long)r->thread.latency.count, (unsigned long long)r->thread.latency.max_ns);
	free(r);
}

#define HEADER "# RTLA timerlat histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:03\n"
#define INDEX "Index   IRQ-001   Thr-001\n"
#define ROWS "1         5         0\n2         3         4\n7         0         3\n"
#define SUMMARY "over:        0         1\ncount:       8         8\nmin:         1         2\navg:         1         4\nmax:         2       310\n"

TEST(timerlat_parse_hand_made)
{
	struct timerlat_result *r = calloc(1, sizeof(*r));
	char why[320] = "";
	json_object *lat;

	CHECK(parse_text(HEADER INDEX ROWS SUMMARY, r, why, sizeof(why)), "refused: %s", why);
	CHECK(r->cpu == 1 && r->duration_s == 3 && !r->threshold_stop, "cpu %d, duration %g", r->cpu, r->duration_s);
	CHECK(r->thread.latency.count == 8 && r->thread.overflows == 1, "thread count %llu over %llu",
	      (unsigned long long)r->thread.latency.count, (unsigned long long)r->thread.overflows);
	CHECK(r->thread.latency.min_ns == 2000 && r->thread.latency.max_ns == 310000, "thread min/max");
	CHECK(r->irq.seen && r->irq.latency.count == 8 && r->irq.latency.max_ns == 2000, "irq column");
	lat = tool_latency_to_json(&r->thread.latency, r->thread.overflows);
	CHECK(json_object_get_double(json_object_object_get(lat, "avg")) == 4, "avg");
	/* 4 of 8 samples at 2 us: the median's bucket bound; p99 lies in the overflow, so absent. */
	CHECK(json_object_get_double(json_object_object_get(lat, "p50")) == 3, "p50 %s", json_object_to_json_string(lat));
	CHECK(!json_object_object_get_ex(lat, "p99", NULL), "p99 among the overflows kept");
	json_object_put(lat);
	free(r);
}

TEST(timerlat_parse_threshold_stop_and_all_cpus_summary)
{
	struct timerlat_result *r = calloc(1, sizeof(*r));
	char why[320] = "";

	/* rtla 6.1: the line after the summary, then its own analysis, which is not read. */
	CHECK(parse_text(HEADER INDEX ROWS SUMMARY "rtla timerlat hit stop tracing\n  IRQ latency:   49.11 us\n", r, why,
			 sizeof(why)), "refused: %s", why);
	CHECK(r->threshold_stop && r->thread.latency.max_ns == 310000, "stop line not seen");
	/* Newer rtla: ALL: and its rows again over all CPUs (here different figures), not read. */
	CHECK(parse_text(HEADER "Index   IRQ-001   Thr-001   Usr-001\n1 5 0 0\n2 3 4 0\n7 0 3 0\n"
			 "over: 0 1 0\ncount: 8 8 0\nmin: 1 2 -\navg: 1.25 4.50 -\nmax: 2 310 -\n"
			 "ALL:  IRQ  Thr  Usr\ncount: 99 99 0\nmax: 9 999 -\n", r, why, sizeof(why)), "refused: %s", why);
	CHECK(r->thread.latency.count == 8 && r->thread.latency.max_ns == 310000 && r->thread.avg_ns == 4500,
	      "ALL: read over the CPU's own (count %llu)", (unsigned long long)r->thread.latency.count);
	free(r);
}

TEST(timerlat_parse_refuses_with_why)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "# Time unit is nanoseconds (ns)\n" INDEX ROWS SUMMARY, "values in ns" },
		{ HEADER ROWS SUMMARY, "before the Index header" },
		{ HEADER, "no Index header" },
		{ HEADER "Index   IRQ-001   Thr-002\n", "one CPU" },
		{ HEADER "Index   IRQ-001\n1 5\nover: 0\ncount: 5\nmin: 1\navg: 1\nmax: 1\n", "no Thr- column" },
		{ HEADER INDEX "1 5\n" SUMMARY, "not an index and 2 counts" },
		{ HEADER INDEX "x 5 0\n" SUMMARY, "not an index" },
		{ HEADER INDEX ROWS "over: 0 0\ncount: 8 9\nmin: 1 2\navg: 1 4\nmax: 2 310\n", "are not its count 9" },
		{ HEADER INDEX "over: 0 0\ncount: 0 0\nmin: - -\navg: - -\nmax: - -\n", "count 0 or missing" },
		{ HEADER INDEX ROWS "over: 0 1\ncount: 8 8\nmin: 1 400\navg: 1 4\nmax: 2 310\n", "min above max" },
	};
	struct timerlat_result *r = calloc(1, sizeof(*r));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char why[320] = "";

		CHECK(!parse_text(bad[i].text, r, why, sizeof(why)), "accepted case %zu", i);
		CHECK(strstr(why, bad[i].says), "case %zu: \"%s\" lacks \"%s\"", i, why, bad[i].says);
	}
	free(r);
}
