// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario files' arithmetic (harness/judge/expr.c): precedence, parentheses, unary minus, names
 * resolved by a callback, and the errors a scenario author can make (unknown names, division by
 * zero, trailing text); conditions with each comparison and without one.
 */
#include "expr.h"
#include "unit.h"

#include <math.h>
#include <string.h>

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

/* The names a test expression may use, and how often they were asked for. */
struct names {
	int lookups;
	char last[64];
};

static bool lookup(void *ctx, const char *name, double *value)
{
	static const struct {
		const char *name;
		double value;
	} table[] = {
		{ "rt_share", 0.95 }, { "rt_run_us", 950000 }, { "zero", 0 },	  { "two", 2 },
		{ "hog.bursts", 3 },  { "_under", 7 },	       { "x2", 4 },	  { "utilisation", 0.9 },
		{ "noise_loss", 0.02 },
	};
	struct names *n = ctx;

	if (n) {
		n->lookups++;
		snprintf(n->last, sizeof(n->last), "%s", name);
	}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].name, name)) {
			*value = table[i].value;
			return true;
		}
	return false;
}

/* Evaluates text that must succeed with `want`. */
static void eval_ok(const char *text, double want)
{
	char err[160] = "";
	double v = -12345;
	struct names n = { 0 };

	CHECK(expr_eval(text, lookup, &n, &v, err, sizeof(err)), "'%s' refused: %s", text, err);
	CHECK(near(v, want), "'%s' = %.17g, want %.17g", text, v, want);
}

/* Evaluates text that must fail with a reason containing `why`. */
static void eval_bad(const char *text, const char *why)
{
	char err[160] = "";
	double v = 0;

	CHECK(!expr_eval(text, lookup, NULL, &v, err, sizeof(err)), "'%s' accepted (= %g)", text, v);
	CHECK(err[0], "'%s': no reason given", text);
	CHECK(strstr(err, why) != NULL, "'%s': reason '%s' does not say '%s'", text, err, why);
}

static void cond_ok(const char *text, bool want)
{
	char err[160] = "";
	bool b = !want;

	CHECK(expr_condition(text, lookup, NULL, &b, err, sizeof(err)), "condition '%s' refused: %s", text, err);
	CHECK(b == want, "condition '%s' is %s, want %s", text, b ? "true" : "false", want ? "true" : "false");
}

static void cond_bad(const char *text, const char *why)
{
	char err[160] = "";
	bool b = false;

	CHECK(!expr_condition(text, lookup, NULL, &b, err, sizeof(err)), "condition '%s' accepted", text);
	CHECK(strstr(err, why) != NULL, "condition '%s': reason '%s' does not say '%s'", text, err, why);
}

TEST(expr_numbers)
{
	eval_ok("0", 0);
	eval_ok("42", 42);
	eval_ok("1.5", 1.5);
	eval_ok(".25", 0.25);
	eval_ok("1e3", 1000);
	eval_ok("2.5e-3", 0.0025);
	eval_ok("  7  ", 7);
	eval_ok("\t8\n", 8);
}

TEST(expr_precedence)
{
	eval_ok("1 + 2 * 3", 7);
	eval_ok("2 * 3 + 1", 7);
	eval_ok("7 - 2 * 3", 1);
	eval_ok("1 + 6 / 3", 3);
	eval_ok("2 + 6 / 3 * 2", 6);
	/* Left to right within a level. */
	eval_ok("10 - 4 - 3", 3);
	eval_ok("8 / 4 / 2", 1);
	eval_ok("2 * 3 / 4", 1.5);
	eval_ok("1 - 2 + 3", 2);
	eval_ok("1+2*3-4/2", 5);
}

TEST(expr_parentheses)
{
	eval_ok("(1 + 2) * 3", 9);
	eval_ok("2 * (3 + 4) - 1", 13);
	eval_ok("8 / (4 / 2)", 4);
	eval_ok("(10 - (4 - 3))", 9);
	eval_ok("((((5))))", 5);
	eval_ok("( 1 + 2 ) * ( 3 - 1 )", 6);
	eval_ok("(rt_share - 0.5) * 2", 0.9);
}

TEST(expr_unary_minus)
{
	eval_ok("-3", -3);
	eval_ok("-3 + 5", 2);
	eval_ok("2 * -3", -6);
	eval_ok("6 / -2", -3);
	eval_ok("-2 * -2", 4);
	eval_ok("--3", 3);
	eval_ok("1 - -1", 2);
	eval_ok("-(2 + 3)", -5);
	eval_ok("-(2 + 3) * 2", -10);
	eval_ok("-two", -2);
	eval_ok("1 - two", -1);
	eval_ok("-.5", -0.5);
}

TEST(expr_names_via_lookup)
{
	char err[160] = "";
	double v = 0;
	struct names n = { 0 };

	eval_ok("rt_share", 0.95);
	eval_ok("2 * rt_run_us", 1900000);
	eval_ok("rt_run_us / 1000", 950);
	eval_ok("hog.bursts", 3);		/* a task's metric: the dot belongs to the name */
	eval_ok("hog.bursts * two", 6);
	eval_ok("_under + x2", 11);		/* underscores and digits in names */
	eval_ok("utilisation*(1+noise_loss)", 0.918);

	/* The callback gets the context and the exact name, once per use. */
	CHECK(expr_eval("two + two * rt_share", lookup, &n, &v, err, sizeof(err)), "refused: %s", err);
	CHECK(n.lookups == 3, "%d lookups, want 3", n.lookups);
	CHECK(!strcmp(n.last, "rt_share"), "last lookup '%s'", n.last);
	CHECK(near(v, 3.9), "= %g", v);

	/* A number is never looked up. */
	n.lookups = 0;
	CHECK(expr_eval("1 + 2", lookup, &n, &v, err, sizeof(err)) && n.lookups == 0, "%d lookups for numbers",
	      n.lookups);
}

TEST(expr_unknown_names)
{
	char err[160] = "";
	double v = 0;

	eval_bad("nope", "unknown name 'nope'");
	eval_bad("rt_shares", "unknown name 'rt_shares'");
	eval_bad("2 * rt_run_us + nope", "unknown name 'nope'");
	eval_bad("hog.nope", "unknown name 'hog.nope'");
	eval_bad("(1 + nope) * 2", "unknown name 'nope'");
	/* Names are case-sensitive. */
	eval_bad("RT_SHARE", "unknown name 'RT_SHARE'");
	/* The first error is the one reported. */
	CHECK(!expr_eval("first + second", lookup, NULL, &v, err, sizeof(err)), "accepted");
	CHECK(strstr(err, "'first'") && !strstr(err, "second"), "reason '%s'", err);
}

TEST(expr_division_by_zero)
{
	eval_bad("1 / 0", "division by zero");
	eval_bad("0 / 0", "division by zero");
	eval_bad("1 / zero", "division by zero");
	eval_bad("1 / (two - 2)", "division by zero");
	eval_bad("5 + 1 / 0.0 * 3", "division by zero");
	eval_ok("0 / 2", 0);
	eval_ok("zero * 5", 0);
}

TEST(expr_trailing_and_missing_text)
{
	eval_bad("1 2", "unexpected text");
	eval_bad("1)", "unexpected text");
	eval_bad("two two", "unexpected text");
	eval_bad("rt_share rt_share", "unexpected text");
	eval_bad("1 ! 2", "unexpected text");
	eval_bad("1 == 1", "unexpected text");
	eval_bad("3 < 4", "unexpected text");	/* a comparison is a condition, not a value */
	eval_bad("1 % 2", "unexpected text");
	eval_bad(".", "unexpected text");
	eval_bad("(1 + 2", "missing ')'");
	eval_bad("((1)", "missing ')'");
	eval_bad("1 +", "expected a number, a name or '('");
	eval_bad("* 2", "expected a number, a name or '('");
	eval_bad("1 + * 2", "expected a number, a name or '('");
	eval_bad("()", "expected a number, a name or '('");
	eval_bad("", "expected a number, a name or '('");
	eval_bad("   ", "expected a number, a name or '('");
	eval_bad("-", "expected a number, a name or '('");
}

TEST(expr_error_buffer_is_bounded)
{
	char err[12];
	double v = 0;

	memset(err, 'x', sizeof(err));
	CHECK(!expr_eval("unknown_name_that_is_long", lookup, NULL, &v, err, 8), "accepted");
	CHECK(memchr(err, '\0', 8) != NULL, "reason not terminated inside its buffer");
	CHECK(err[8] == 'x' && err[11] == 'x', "wrote past the buffer");
}

TEST(expr_condition_each_operator)
{
	cond_ok("1 < 2", true);
	cond_ok("2 < 1", false);
	cond_ok("2 < 2", false);
	cond_ok("1 <= 2", true);
	cond_ok("2 <= 2", true);
	cond_ok("3 <= 2", false);
	cond_ok("2 > 1", true);
	cond_ok("1 > 2", false);
	cond_ok("2 > 2", false);
	cond_ok("2 >= 1", true);
	cond_ok("2 >= 2", true);
	cond_ok("1 >= 2", false);
	/* Without spaces, with unary minus on either side. */
	cond_ok("1<2", true);
	cond_ok("2>=2", true);
	cond_ok("-1 < -0.5", true);
	cond_ok("-two > -1", false);
}

TEST(expr_condition_with_expressions)
{
	/* As duty-cycle.json writes them. */
	cond_ok("utilisation * (1 + noise_loss) < rt_share - 0.01", true);	/* 0.918 < 0.94 */
	cond_ok("utilisation > rt_share + 0.01", false);
	cond_ok("2 * rt_run_us >= 1900000", true);
	cond_ok("(1 + 2) * 3 > 8", true);
	cond_ok("hog.bursts <= two", false);
}

TEST(expr_condition_joined_by_and)
{
	cond_ok("1 < 2 and 2 < 3", true);
	cond_ok("1 < 2 and 3 < 2", false);
	cond_ok("2 < 1 and 2 < 3", false);
	cond_ok("1 < 2 and 2 <= 2 and two >= 2", true);
	cond_ok("1 < 2 and 2 <= 2 and two > 2", false);
	/* A bad part is reported even where another part already decides. */
	cond_bad("2 < 1 and nosuch > 1", "nosuch");
	cond_bad("1 < 2 and 3", "no comparison");
}

TEST(expr_condition_errors)
{
	cond_bad("1 + 2", "no comparison");
	cond_bad("rt_share", "no comparison");
	cond_bad("", "no comparison");
	cond_bad("1 == 1", "no comparison");
	cond_bad("1 = 1", "no comparison");
	cond_bad("1 != 2", "no comparison");
	cond_bad("nope < 1", "unknown name 'nope'");
	cond_bad("1 < nope", "unknown name 'nope'");
	cond_bad("1 / 0 < 2", "division by zero");
	cond_bad("1 < 2 / zero", "division by zero");
	cond_bad("1 <", "expected a number");
	cond_bad("< 1", "expected a number");
	cond_bad("1 < 2 < 3", "unexpected text");
	cond_bad("(1 < 2)", "missing ')'");
}
