// SPDX-License-Identifier: GPL-2.0-only
/*
 * Median and Mann-Whitney U against reference values from scipy 1.10.1:
 * scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="exact" or "asymptotic")
 * (asymptotic: tie-corrected variance, continuity correction 0.5). The statistic is U of a.
 */
#include "stats.h"
#include "unit.h"

#include <math.h>

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static bool close_to(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fmax(1, fabs(want));
}

TEST(stats_median)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	CHECK(stats_median(odd, 3) == 3, "odd: %g", stats_median(odd, 3));
	CHECK(odd[0] == 5 && odd[1] == 1, "the input was reordered");
	CHECK(stats_median(even, 4) == 2.5, "even: %g", stats_median(even, 4));
	CHECK(stats_median(one, 1) == 7, "one: %g", stats_median(one, 1));
	CHECK(stats_median(one, 0) == 0, "empty: %g", stats_median(one, 0));
}

TEST(stats_mann_whitney_exact_matches_scipy)
{
	static const struct {
		double a[12], b[12];
		int na, nb;
		double u, p;
	} cases[] = {
		/* Complete separation, 3 against 3: the smallest p there is, 2 / C(6, 3). */
		{ { 1, 2, 3 }, { 4, 5, 6 }, 3, 3, 0, 0.1 },
		{ { 0.9498, 0.949, 0.9492 }, { 0.948, 0.9489, 0.9487 }, 3, 3, 9, 0.1 },
		{ { 1, 3, 5 }, { 2, 4, 6 }, 3, 3, 3, 0.7 },
		{ { 1.1, 2.2, 3.3, 4.4 }, { 5.5, 6.6, 7.7 }, 4, 3, 0, 0.05714285714285714 },
		{ { 19, 22, 16, 29, 24 }, { 20, 11, 17, 12 }, 5, 4, 17, 0.1111111111111111 },
		{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, { 3.5, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 }, 10, 11, 7,
		  0.0002551627938624843 },
	};

	for (int i = 0; i < N(cases); i++) {
		struct mann_whitney mw;

		CHECK(mann_whitney_u(cases[i].a, cases[i].na, cases[i].b, cases[i].nb, &mw), "case %d refused", i);
		CHECK(mw.exact && !mw.ties, "case %d: exact %d ties %d", i, mw.exact, mw.ties);
		CHECK(mw.u1 == cases[i].u, "case %d: U %g, scipy %g", i, mw.u1, cases[i].u);
		CHECK(mw.u1 + mw.u2 == cases[i].na * cases[i].nb, "case %d: U1 + U2 %g", i, mw.u1 + mw.u2);
		CHECK(close_to(mw.p, cases[i].p), "case %d: p %.17g, scipy %.17g", i, mw.p, cases[i].p);
	}
}

TEST(stats_mann_whitney_ties_use_the_normal_approximation)
{
	static const struct {
		double a[8], b[8];
		int na, nb;
		double u, p;
	} cases[] = {
		{ { 2, 2, 2 }, { 2, 2, 3 }, 3, 3, 3, 0.5049850750938458 },
		{ { 1, 2, 2, 3, 3, 3 }, { 3, 4, 4, 5 }, 6, 4, 1.5, 0.026826219079541514 },
		{ { 1, 1, 2 }, { 2, 3, 3 }, 3, 3, 0.5, 0.11014892418594699 },
		/* Nothing to rank: every value the same. */
		{ { 5, 5, 5 }, { 5, 5, 5 }, 3, 3, 4.5, 1.0 },
	};

	for (int i = 0; i < N(cases); i++) {
		struct mann_whitney mw;

		mann_whitney_u(cases[i].a, cases[i].na, cases[i].b, cases[i].nb, &mw);
		CHECK(!mw.exact && mw.ties, "case %d: exact %d ties %d", i, mw.exact, mw.ties);
		CHECK(mw.u1 == cases[i].u, "case %d: U %g, scipy %g", i, mw.u1, cases[i].u);
		CHECK(close_to(mw.p, cases[i].p), "case %d: p %.17g, scipy %.17g", i, mw.p, cases[i].p);
	}
}

TEST(stats_mann_whitney_large_samples_use_the_normal_approximation)
{
	double a[25], b[25];
	struct mann_whitney mw;

	/* 25 + 25 values: past the exact limit. a = 0..24, b = a + 10.5. */
	for (int i = 0; i < 25; i++) {
		a[i] = i;
		b[i] = i + 10.5;
	}
	mann_whitney_u(a, 25, b, 25, &mw);
	CHECK(!mw.exact && !mw.ties, "exact %d ties %d", mw.exact, mw.ties);
	CHECK(mw.u1 == 105, "U %g", mw.u1);
	CHECK(close_to(mw.p, 5.909644085596015e-05), "p %.17g, scipy 5.909644085596015e-05", mw.p);
}

TEST(stats_mann_whitney_edges)
{
	double a[] = { 1, 2 };
	struct mann_whitney mw;

	CHECK(!mann_whitney_u(a, 2, a, 0, &mw) && mw.p == 1, "an empty sample gives p %g", mw.p);
	CHECK(close_to(mann_whitney_min_p(3, 3), 0.1), "min p 3v3 %g", mann_whitney_min_p(3, 3));
	CHECK(close_to(mann_whitney_min_p(5, 5), 2.0 / 252), "min p 5v5 %g", mann_whitney_min_p(5, 5));
	CHECK(mann_whitney_min_p(1, 1) == 1, "min p 1v1 %g", mann_whitney_min_p(1, 1));
}
