// SPDX-License-Identifier: GPL-2.0-only
/* Policies (builtins, ad-hoc pairs) and the strict number parsers they are read with. */
#include "policy.h"
#include "unit.h"
#include "util.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

TEST(policy_find_builtins)
{
	static const struct {
		const char *name;
		int64_t runtime, period;
	} want[] = {
		{ "default", 950000, 1000000 },
		{ "unlimited", -1, 1000000 },
		{ "half", 500000, 1000000 },
		{ "full", 1000000, 1000000 },
		{ "ten-second-window", 9500000, 10000000 },
		{ "rt-no-fair-server", 950000, 1000000 },
		{ "posix", -1, 1000000 },
	};
	size_t count = 0;
	const struct policy *all = policy_builtins(&count);

	CHECK(all != NULL && count == sizeof(want) / sizeof(want[0]), "%zu builtins, want %zu", count,
	      sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct policy p;

		memset(&p, 0xff, sizeof(p));
		CHECK(policy_find(want[i].name, &p), "%s not found", want[i].name);
		CHECK(!strcmp(p.name, want[i].name), "%s: name '%s'", want[i].name, p.name);
		CHECK(p.runtime_us == want[i].runtime && p.period_us == want[i].period,
		      "%s: %" PRId64 "/%" PRId64 ", want %" PRId64 "/%" PRId64, want[i].name, p.runtime_us,
		      p.period_us, want[i].runtime, want[i].period);
		CHECK(p.origin && *p.origin, "%s: no origin", want[i].name);
		/* Every builtin is a pair the kernel accepts. */
		CHECK(!policy_pair_invalid(p.runtime_us, p.period_us), "%s invalid: %s", want[i].name,
		      policy_pair_invalid(p.runtime_us, p.period_us));
	}
	/* Names are unique. */
	for (size_t i = 0; i < count; i++)
		for (size_t j = i + 1; j < count; j++)
			CHECK(strcmp(all[i].name, all[j].name), "duplicate builtin %s", all[i].name);
}

TEST(policy_builtins_fair_server)
{
	static const char *const leave_it[] = { "default", "unlimited", "half", "full", "ten-second-window" };
	struct policy p;

	/* The 2008 positions keep their meaning: they leave the fair server as the system has it. */
	for (size_t i = 0; i < sizeof(leave_it) / sizeof(leave_it[0]); i++)
		CHECK(policy_find(leave_it[i], &p) && !p.fair_server.set, "%s sets the fair server", leave_it[i]);
	CHECK(policy_find("rt-no-fair-server", &p) && p.fair_server.set && p.fair_server.runtime_us == 0 &&
		      p.runtime_us == 950000,
	      "rt-no-fair-server: fair server %d %" PRId64, p.fair_server.set, p.fair_server.runtime_us);
	CHECK(policy_find("posix", &p) && p.fair_server.set && p.fair_server.runtime_us == 0 && p.runtime_us == -1,
	      "posix: fair server %d %" PRId64 ", runtime %" PRId64, p.fair_server.set, p.fair_server.runtime_us,
	      p.runtime_us);
	CHECK(!policy_fair_server_invalid(&p.fair_server), "posix's fair server invalid");
}

TEST(policy_fair_server_parse_good)
{
	static const struct {
		const char *text;
		int64_t runtime, period;
		const char *shown;
	} good[] = {
		{ "0", 0, 0, "0" },
		{ "50ms/1s", 50000, 1000000, "50ms/1s" },
		{ "0/1s", 0, 1000000, "0/1s" },
		{ "1500us/100ms", 1500, 100000, "1500us/100ms" },
		{ "0.5s/4s", 500000, 4000000, "500ms/4s" },
		{ "100us/100us", 100, 100, "100us/100us" },
		{ "1s/4194304us", 1000000, 4194304, "1s/4194304us" },
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct policy_fair_server fs;
		char why[200] = "", shown[48];

		CHECK(policy_fair_server_parse(good[i].text, &fs, why, sizeof(why)), "'%s' refused: %s", good[i].text,
		      why);
		CHECK(fs.set && fs.runtime_us == good[i].runtime && fs.period_us == good[i].period,
		      "'%s': %" PRId64 "/%" PRId64, good[i].text, fs.runtime_us, fs.period_us);
		policy_fair_server_format(&fs, shown, sizeof(shown));
		CHECK(!strcmp(shown, good[i].shown), "'%s' shown as '%s'", good[i].text, shown);
	}
}

TEST(policy_fair_server_parse_refuses_bad_input)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "-50ms/1s", "negative" },
		{ "50ms/-1s", "negative" },
		{ "2s/1s", "exceeds the period" },
		{ "abc", "not RUNTIME/PERIOD" },
		{ "50ms", "not RUNTIME/PERIOD" },
		{ "-1", "negative" },
		{ "fifty/1s", "runtime 'fifty'" },
		{ "50/1s", "runtime '50'" },
		{ "50ms/1h", "period '1h'" },
		{ "50ms/", "period ''" },
		{ "/1s", "runtime ''" },
		{ "50ms/0s", "period '0s'" },
		{ "10us/50us", "100us to 4194304us" },
		{ "1s/5s", "100us to 4194304us" },
		{ "1.5us/1s", "runtime '1.5us'" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct policy_fair_server fs;
		char why[200] = "";

		CHECK(!policy_fair_server_parse(bad[i].text, &fs, why, sizeof(why)), "'%s' accepted", bad[i].text);
		CHECK(strstr(why, bad[i].says), "'%s': message '%s' does not say '%s'", bad[i].text, why, bad[i].says);
	}
}

TEST(policy_with_fair_server_names_it)
{
	struct policy_fair_server off = { .set = true }, tenth = { .set = true, .runtime_us = 10000, .period_us = 100000 };
	struct policy p;

	CHECK(policy_find("default", &p), "default not found");
	policy_with_fair_server(&p, &off);
	CHECK(!strcmp(p.name, "default-fs0") && p.fair_server.set && !p.fair_server.runtime_us, "name '%s'", p.name);
	CHECK(policy_find("half", &p), "half not found");
	policy_with_fair_server(&p, &tenth);
	CHECK(!strcmp(p.name, "half-fs10msp100ms") && p.fair_server.period_us == 100000, "name '%s'", p.name);
	/* A policy that sets its own keeps it, and its name. */
	CHECK(policy_find("posix", &p), "posix not found");
	policy_with_fair_server(&p, &tenth);
	CHECK(!strcmp(p.name, "posix") && p.fair_server.runtime_us == 0, "posix became '%s'", p.name);
	/* Nothing to give: nothing changes. */
	CHECK(policy_find("default", &p), "default not found");
	policy_with_fair_server(&p, &(struct policy_fair_server){ 0 });
	CHECK(!strcmp(p.name, "default") && !p.fair_server.set, "unset setting applied: '%s'", p.name);
}

TEST(policy_find_unknown)
{
	struct policy p;

	memset(&p, 0, sizeof(p));
	CHECK(!policy_find("nonesuch", &p), "unknown policy found");
	CHECK(!policy_find("", &p), "empty name found");
	CHECK(!policy_find("Default", &p), "lookup is case-insensitive");
	CHECK(!policy_find("default ", &p), "trailing space matched");
	CHECK(!policy_find("defaul", &p), "prefix matched");
	CHECK(p.name[0] == '\0' && p.runtime_us == 0, "a failed lookup wrote the output");
}

TEST(policy_pair_invalid_rules)
{
	/* Valid pairs. */
	CHECK(!policy_pair_invalid(950000, 1000000), "default refused");
	CHECK(!policy_pair_invalid(-1, 1000000), "-1 refused");
	CHECK(!policy_pair_invalid(-1, 1), "-1 over period 1 refused");
	CHECK(!policy_pair_invalid(1, 1), "1/1 refused");
	CHECK(!policy_pair_invalid(1000000, 1000000), "runtime = period refused");
	CHECK(!policy_pair_invalid(1, INT_MAX), "period INT_MAX refused");
	CHECK(!policy_pair_invalid(INT_MAX, INT_MAX), "INT_MAX/INT_MAX refused");

	/* Invalid ones, with a reason. */
	CHECK(policy_pair_invalid(1000001, 1000000), "runtime > period accepted");
	CHECK(policy_pair_invalid(1000001, 1000000) &&
		      strstr(policy_pair_invalid(1000001, 1000000), "exceeds"),
	      "runtime > period: reason '%s'", policy_pair_invalid(1000001, 1000000));
	CHECK(policy_pair_invalid(-2, 1000000), "runtime -2 accepted");
	CHECK(policy_pair_invalid(INT64_MIN, 1000000), "runtime INT64_MIN accepted");
	CHECK(policy_pair_invalid(0, 1000000), "runtime 0 accepted");
	CHECK(policy_pair_invalid(950000, 0), "period 0 accepted");
	CHECK(policy_pair_invalid(-1, 0), "-1 over period 0 accepted");
	CHECK(policy_pair_invalid(-1, -1000000), "negative period accepted");
	CHECK(policy_pair_invalid(1, (int64_t)INT_MAX + 1), "period above INT_MAX accepted");
	CHECK(policy_pair_invalid(1, INT64_MAX), "period INT64_MAX accepted");
	/* The reasons name the rule broken. */
	CHECK(strcmp(policy_pair_invalid(0, 1000000), policy_pair_invalid(950000, 0)),
	      "runtime 0 and period 0 give the same reason");
	CHECK(strcmp(policy_pair_invalid(-2, 1000000), policy_pair_invalid(1000001, 1000000)),
	      "runtime -2 and runtime > period give the same reason");
}

TEST(policy_make_adhoc_name)
{
	struct policy p;

	policy_make_adhoc(500000, 1000000, &p);
	CHECK(!strcmp(p.name, "adhoc-500000-1000000"), "name '%s'", p.name);
	CHECK(p.runtime_us == 500000 && p.period_us == 1000000, "pair %" PRId64 "/%" PRId64, p.runtime_us,
	      p.period_us);
	CHECK(p.origin && *p.origin, "no origin");

	policy_make_adhoc(-1, 200000, &p);
	CHECK(!strcmp(p.name, "adhoc--1-200000"), "name '%s'", p.name);
	CHECK(p.runtime_us == -1 && p.period_us == 200000, "pair %" PRId64 "/%" PRId64, p.runtime_us,
	      p.period_us);

	/* The widest values still fit the name, untruncated. */
	policy_make_adhoc(INT64_MIN, INT64_MAX, &p);
	CHECK(!strcmp(p.name, "adhoc--9223372036854775808-9223372036854775807"), "name '%s'", p.name);
	CHECK(strlen(p.name) < POLICY_NAME_MAX, "name overflows");

	/* An ad-hoc name is not a builtin. */
	policy_make_adhoc(950000, 1000000, &p);
	CHECK(!policy_find(p.name, &(struct policy){ 0 }), "ad-hoc name found among builtins");
}

TEST(policy_to_json_fields)
{
	struct policy p;
	json_object *obj, *v;

	CHECK(policy_find("unlimited", &p), "unlimited not found");
	obj = policy_to_json(&p);
	CHECK(json_object_object_get_ex(obj, "name", &v) && !strcmp(json_object_get_string(v), "unlimited"),
	      "name");
	CHECK(json_object_object_get_ex(obj, "runtime_us", &v) && json_object_is_type(v, json_type_int) &&
		      json_object_get_int64(v) == -1,
	      "runtime_us");
	CHECK(json_object_object_get_ex(obj, "period_us", &v) && json_object_get_int64(v) == 1000000,
	      "period_us");
	CHECK(json_object_object_get_ex(obj, "origin", &v) && json_object_get_string_len(v) > 0, "origin");
	CHECK(!json_object_object_get_ex(obj, "fair_server", NULL), "unlimited records a fair server it leaves alone");
	json_object_put(obj);

	CHECK(policy_find("posix", &p), "posix not found");
	obj = policy_to_json(&p);
	CHECK(json_object_object_get_ex(obj, "fair_server", &v) && json_object_is_type(v, json_type_object),
	      "posix: no fair_server");
	CHECK(json_object_object_get_ex(v, "runtime_us", &v) && json_object_get_int64(v) == 0, "posix: runtime_us");
	json_object_put(obj);
}

TEST(util_parse_i64)
{
	int64_t v = 12345;

	CHECK(!parse_i64("abc", INT64_MIN, INT64_MAX, &v), "'abc' parsed");
	CHECK(!parse_i64("", INT64_MIN, INT64_MAX, &v), "'' parsed");
	CHECK(!parse_i64(NULL, INT64_MIN, INT64_MAX, &v), "NULL parsed");
	CHECK(!parse_i64("12x", INT64_MIN, INT64_MAX, &v), "'12x' parsed");
	CHECK(!parse_i64("12 ", INT64_MIN, INT64_MAX, &v), "'12 ' parsed");
	CHECK(!parse_i64("1.5", INT64_MIN, INT64_MAX, &v), "'1.5' parsed");
	CHECK(!parse_i64("0x10", INT64_MIN, INT64_MAX, &v), "'0x10' parsed");
	CHECK(!parse_i64("-", INT64_MIN, INT64_MAX, &v), "'-' parsed");
	CHECK(!parse_i64("99999999999999999999", INT64_MIN, INT64_MAX, &v), "overflow parsed");
	CHECK(!parse_i64("-99999999999999999999", INT64_MIN, INT64_MAX, &v), "negative overflow parsed");
	CHECK(!parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, &v), "INT64_MAX + 1 parsed");
	CHECK(v == 12345, "a failed parse wrote %" PRId64, v);

	CHECK(parse_i64("9223372036854775807", INT64_MIN, INT64_MAX, &v) && v == INT64_MAX, "INT64_MAX: %" PRId64, v);
	CHECK(parse_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &v) && v == INT64_MIN, "INT64_MIN: %" PRId64, v);
	CHECK(parse_i64("950000", 1, INT_MAX, &v) && v == 950000, "950000: %" PRId64, v);
	CHECK(parse_i64("-1", -1, INT_MAX, &v) && v == -1, "-1: %" PRId64, v);
	CHECK(parse_i64("0", 0, 0, &v) && v == 0, "0 in [0,0]: %" PRId64, v);
	/* Decimal, not octal. */
	CHECK(parse_i64("010", 0, 100, &v) && v == 10, "'010' gave %" PRId64, v);

	/* Bounds are inclusive. */
	v = 7;
	CHECK(parse_i64("1", 1, 10, &v) && v == 1, "lower bound refused");
	CHECK(parse_i64("10", 1, 10, &v) && v == 10, "upper bound refused");
	CHECK(!parse_i64("0", 1, 10, &v), "below the lower bound accepted");
	CHECK(!parse_i64("11", 1, 10, &v), "above the upper bound accepted");
	CHECK(!parse_i64("-2", -1, INT_MAX, &v), "-2 accepted with min -1");
	CHECK(!parse_i64("2147483648", 1, INT_MAX, &v), "INT_MAX + 1 accepted with max INT_MAX");
	CHECK(v == 10, "a failed parse wrote %" PRId64, v);
}

TEST(util_parse_double)
{
	double v = 42.0;

	CHECK(!parse_double("abc", -1e9, 1e9, &v), "'abc' parsed");
	CHECK(!parse_double("", -1e9, 1e9, &v), "'' parsed");
	CHECK(!parse_double(NULL, -1e9, 1e9, &v), "NULL parsed");
	CHECK(!parse_double("1.5x", -1e9, 1e9, &v), "'1.5x' parsed");
	CHECK(!parse_double("12 ", -1e9, 1e9, &v), "'12 ' parsed");
	CHECK(!parse_double("nan", -INFINITY, INFINITY, &v), "nan parsed");
	CHECK(!parse_double("inf", -INFINITY, INFINITY, &v), "inf parsed");
	CHECK(!parse_double("-infinity", -INFINITY, INFINITY, &v), "-infinity parsed");
	CHECK(!parse_double("1e400", -INFINITY, INFINITY, &v), "1e400 (overflow) parsed");
	CHECK(v == 42.0, "a failed parse wrote %g", v);

	CHECK(parse_double("0.5", 0, 1, &v) && v == 0.5, "0.5: %g", v);
	CHECK(parse_double("-2.25", -10, 10, &v) && v == -2.25, "-2.25: %g", v);
	CHECK(parse_double("1e3", 0, 1e4, &v) && v == 1000.0, "1e3: %g", v);
	CHECK(parse_double("3", 0, 10, &v) && v == 3.0, "integer text: %g", v);
	/* Inclusive bounds. */
	CHECK(parse_double("0", 0, 1, &v) && v == 0.0, "lower bound refused");
	CHECK(parse_double("1", 0, 1, &v) && v == 1.0, "upper bound refused");
	CHECK(!parse_double("1.0001", 0, 1, &v), "above the upper bound accepted");
	CHECK(!parse_double("-0.0001", 0, 1, &v), "below the lower bound accepted");
	CHECK(v == 1.0, "a failed parse wrote %g", v);
}
