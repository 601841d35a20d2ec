// SPDX-License-Identifier: GPL-2.0-only
/* The scenario arithmetic by recursive descent: * and / bind tighter than + and -; each error says where. */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p;
	expr_lookup lookup;
	void *ctx;
	char *err;
	size_t err_len;
	bool failed;
};

static void fail(struct parser *ps, const char *what)
{
	if (!ps->failed)
		snprintf(ps->err, ps->err_len, "%s at '%.20s'", what, *ps->p ? ps->p : "end");
	ps->failed = true;
}

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static double expression(struct parser *ps);

static double factor(struct parser *ps)
{
	skip_space(ps);
	if (*ps->p == '(') {
		double v;

		ps->p++;
		v = expression(ps);
		skip_space(ps);
		if (*ps->p != ')')
			fail(ps, "missing ')'");
		else
			ps->p++;
		return v;
	}
	if (*ps->p == '-') {
		ps->p++;
		return -factor(ps);
	}
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
		char *end;
		double v = strtod(ps->p, &end);

		/* Plain decimals only: no hex, and nothing that overflows to infinity. */
		if (memchr(ps->p, 'x', (size_t)(end - ps->p)) || memchr(ps->p, 'X', (size_t)(end - ps->p)) ||
		    !isfinite(v)) {
			fail(ps, "not a plain finite number");
			return 0;
		}
		ps->p = end;
		return v;
	}
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		char name[64];
		size_t n = 0;
		double v = 0;

		while ((isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') && n < sizeof(name) - 1)
			name[n++] = *ps->p++;
		name[n] = '\0';
		if (!ps->lookup(ps->ctx, name, &v)) {
			if (!ps->failed)
				snprintf(ps->err, ps->err_len, "unknown name '%s'", name);
			ps->failed = true;
		}
		return v;
	}
	fail(ps, "expected a number, a name or '('");
	return 0;
}

static double term(struct parser *ps)
{
	double v = factor(ps);

	for (;;) {
		skip_space(ps);
		if (*ps->p == '*') {
			ps->p++;
			v *= factor(ps);
		} else if (*ps->p == '/') {
			double d;

			ps->p++;
			d = factor(ps);
			if (d == 0)
				fail(ps, "division by zero");
			else
				v /= d;
		} else {
			return v;
		}
	}
}

static double expression(struct parser *ps)
{
	double v = term(ps);

	for (;;) {
		skip_space(ps);
		if (*ps->p == '+') {
			ps->p++;
			v += term(ps);
		} else if (*ps->p == '-') {
			ps->p++;
			v -= term(ps);
		} else {
			return v;
		}
	}
}

static bool parse_whole(struct parser *ps, double *value)
{
	*value = expression(ps);
	skip_space(ps);
	if (*ps->p && !ps->failed)
		fail(ps, "unexpected text");
	return !ps->failed;
}

bool expr_eval(const char *text, expr_lookup lookup, void *ctx, double *value, char *err, size_t err_len)
{
	struct parser ps = { text, lookup, ctx, err, err_len, false };

	return parse_whole(&ps, value);
}

bool expr_condition(const char *text, expr_lookup lookup, void *ctx, bool *result, char *err, size_t err_len)
{
	static const char *const ops[] = { "<=", ">=", "<", ">" };
	const char *and = strstr(text, " and ");
	char left[256];

	/* "A op B and C op D": each must hold; every part is evaluated, so a bad name anywhere is reported. */
	if (and) {
		bool first, rest;

		if ((size_t)(and - text) >= sizeof(left)) {
			snprintf(err, err_len, "condition too long");
			return false;
		}
		memcpy(left, text, (size_t)(and - text));
		left[and - text] = '\0';
		if (!expr_condition(left, lookup, ctx, &first, err, err_len) ||
		    !expr_condition(and + strlen(" and "), lookup, ctx, &rest, err, err_len))
			return false;
		*result = first && rest;
		return true;
	}

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const char *at = strstr(text, ops[i]);
		size_t len;
		double a, b;

		if (!at)
			continue;
		len = (size_t)(at - text);
		if (len >= sizeof(left)) {
			snprintf(err, err_len, "condition too long");
			return false;
		}
		memcpy(left, text, len);
		left[len] = '\0';
		if (!expr_eval(left, lookup, ctx, &a, err, err_len) ||
		    !expr_eval(at + strlen(ops[i]), lookup, ctx, &b, err, err_len))
			return false;
		*result = i == 0 ? a <= b : i == 1 ? a >= b : i == 2 ? a < b : a > b;
		return true;
	}
	snprintf(err, err_len, "no comparison (<, <=, >, >=) in '%s'", text);
	return false;
}
