// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's RT period boundaries read from a case's trace block. */
#include "kernel_grid.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

static int bounds_of(const char *trace_json, uint64_t period_ns, uint64_t window_ns, uint64_t **out, char *why)
{
	json_object *trace = json_tokener_parse(trace_json);
	int n;

	CHECK(trace != NULL, "fixture parses");
	n = kernel_grid_bounds(trace, period_ns, window_ns, out, why, 200);
	json_object_put(trace);
	return n;
}

TEST(kernel_grid_from_the_traced_firings)
{
	char why[200];
	uint64_t *b;
	/* As traced at the default: one firing before the window, one 7 us after its end. */
	int n = bounds_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
			  "[[-41.39465, 958.605389, 1958.605868, 2958.605996]]}}", 1000 * MS, 2958598984ull, &b, why);

	CHECK(n == 3 && b[0] == 958605389ull && b[1] == 1958605868ull && b[2] == 2958598984ull, "%d boundaries: %s", n,
	      why);
	CHECK(strstr(why, "the kernel's") != NULL, "says where they came from: %s", why);
	free(b);
	/* A window its aligned end cut 0.1 ms before the next firing ends on that boundary. */
	n = bounds_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
		      "[[938.979697, 1938.981524]]}}", 1000 * MS, 1938872432ull, &b, why);
	CHECK(n == 2 && b[0] == 938979697ull && b[1] == 1938872432ull, "%d boundaries: %s", n, why);
	CHECK(strstr(why, "0.109 ms before the next") != NULL, "says so: %s", why);
	free(b);
	/* 2 ms before it: the cut period is no whole one. */
	n = bounds_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
		      "[[938.979697, 1938.981524]]}}", 1000 * MS, 1936981524ull, &b, why);
	CHECK(n == 1 && b[0] == 938979697ull, "%d boundaries: %s", n, why);
	free(b);
}

TEST(kernel_grid_fills_a_period_the_timer_skipped)
{
	char why[200];
	uint64_t *b;
	int n = bounds_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": [[100, 2100.5]]}}",
			  1000 * MS, 3000 * MS, &b, why);

	CHECK(n == 3 && b[0] == 100 * MS && b[1] == 1100 * MS && b[2] == 2100500000ull, "%d boundaries: %s", n, why);
	free(b);
}

/* Seen: another CPU's buffer overran and lost the firing at 955 ms; the grid holds back to the start. */
TEST(kernel_grid_holds_back_before_the_first_firing_recorded)
{
	char why[200];
	uint64_t *b;
	int n = bounds_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": [[1955.243923]]}}",
			  1000 * MS, 1960 * MS, &b, why);

	CHECK(n == 2 && b[0] == 955243923ull && b[1] == 1955243923ull, "%d boundaries: %s", n, why);
	free(b);
}

/*
 * Seen at 1000000/2000000 after 1 s periods: the firing before the window still forwarded the
 * timer by the old period, so the grid starts at the first firing on the new one.
 */
TEST(kernel_grid_starts_where_the_timer_took_the_new_period)
{
	char why[200];
	uint64_t *b;
	int n = bounds_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
			  "[[-1041.553365, -41.554278, 958.44565, 2958.446198]]}}", 2000 * MS, 4000 * MS, &b, why);

	CHECK(n == 2 && b[0] == 958445650ull && b[1] == 2958446198ull, "%d boundaries: %s", n, why);
	free(b);
}

TEST(kernel_grid_searched_where_the_trace_cannot_give_it)
{
	static const char *const traces[] = {
		"{\"status\": \"not recorded: --no-trace\"}",
		"{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 3, \"fired_at_ms\": [[100], [200], [300]]}}",
		"{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": [[100, 600]]}}",
		"{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": [[-10]]}}",
	};
	static const char *const because[] = { "not traced", "3 RT period timers", "off the 1000 ms grid",
						"did not fire in the window" };

	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char why[200] = "";
		uint64_t *b = (uint64_t *)1;
		int n = bounds_of(traces[i], 1000 * MS, 3000 * MS, &b, why);

		CHECK(n == 0 && b == NULL, "%zu: %d boundaries", i, n);
		CHECK(strstr(why, because[i]) && strstr(why, "searched"), "%zu: %s", i, why);
	}
	CHECK(kernel_grid_bounds(NULL, 1000 * MS, 3000 * MS, &(uint64_t *){ NULL }, (char[200]){ 0 }, 200) == 0,
	      "no trace block");
}

TEST(kernel_grid_disturbed_spans_from_the_ticks_held_back)
{
	json_object *trace = json_tokener_parse("{\"status\": \"recorded\", \"tick\": {\"late\": [[606, 6000], [1000.5, 800]],"
						 " \"late_listed_from_us\": 500}}");
	json_object *full = json_tokener_parse("{\"status\": \"recorded\", \"tick\": {\"late\": [[606, 6000]],"
						" \"late_listed_from_us\": 500, \"late_list_full\": true}}");
	struct disturbance *d;
	double from;
	int n = kernel_grid_disturbed(trace, 4 * MS, &d, &from);

	CHECK(n == 2 && from == 500 && d[0].from_ns == 596 * MS && d[0].to_ns == 606 * MS && d[0].late_us == 6000,
	      "%d spans, the first [%llu, %llu]", n, n > 0 ? (unsigned long long)d[0].from_ns : 0,
	      n > 0 ? (unsigned long long)d[0].to_ns : 0);
	free(d);
	CHECK(kernel_grid_disturbed(full, 4 * MS, &d, &from) == -1 && !d, "a full list censors nothing");
	CHECK(kernel_grid_disturbed(NULL, 4 * MS, &d, &from) == -1, "no trace: not known");
	json_object_put(trace);
	json_object_put(full);
}

static double drift_of(const char *trace_json, uint64_t window_ns, char *why)
{
	json_object *trace = json_tokener_parse(trace_json);
	double drift;
	int intervals;

	CHECK(trace != NULL, "fixture parses");
	drift = kernel_grid_drift_us(trace, 1000 * MS, window_ns, &intervals, why, 200);
	CHECK(drift < 0 || intervals >= 1, "%d intervals", intervals);
	json_object_put(trace);
	return drift;
}

/*
 * The RT timer's drift off the policy's grid: firings within the window only (one before it
 * may be another timer's start), a skipped period on the same grid, a late one, a wrong period.
 */
TEST(kernel_grid_drift_of_the_timer)
{
	char why[200];
	double d;

	d = drift_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
		     "[[-41.39465, 958.605389, 1958.605868, 2958.605996]]}}", 2958598984ull, why);
	CHECK(d >= 0 && d < 1, "a healthy timer: %g us", d);
	d = drift_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
		     "[[-500.0, 958.6, 2958.6, 3970.6]]}}", 4000 * MS, why);
	CHECK(d > 11999 && d < 12001, "a skipped period and a firing 12 ms late: %g us", d);
	d = drift_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
		     "[[0.5, 1050.5, 2100.5]]}}", 2500 * MS, why);
	CHECK(d > 99999 && d < 100001, "refilled every 1.05 s: %g us", d);
	d = drift_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": "
		     "[[0.5, 1300.5, 2600.5, 3900.5]]}}", 4000 * MS, why);
	CHECK(d > 899999 && d < 900001, "every 1.3 s: 900 ms in three intervals, not wrapped at half a period: %g us", d);
	d = drift_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 1, \"fired_at_ms\": [[-36.4, 963.6]]}}",
		     1900 * MS, why);
	CHECK(d < 0 && strstr(why, "1 RT period timer firing in the window") != NULL, "one firing: %s", why);
	d = drift_of("{\"status\": \"recorded\", \"rt_timer\": {\"timers\": 2, \"fired_at_ms\": [[1, 1001], [2, 1002]]}}",
		     1900 * MS, why);
	CHECK(d < 0 && strstr(why, "2 RT period timers, not one") != NULL, "two timers: %s", why);
	d = drift_of("{\"status\": \"skipped\"}", 1900 * MS, why);
	CHECK(d < 0 && strstr(why, "not traced") != NULL, "not traced: %s", why);
}
