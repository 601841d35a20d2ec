/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small statistics for `rtthrottle compare`: the median and the Mann-Whitney U rank test.
 *
 * Mann-Whitney U, two-sided, as scipy.stats.mannwhitneyu computes it (scipy 1.10):
 *  - exact: without ties and with at most STATS_EXACT_MAX values in all, p is the exact tail
 *    probability of U over all arrangements of the two samples, doubled, capped at 1;
 *  - otherwise the normal approximation with the tie correction of the variance and a continuity
 *    correction of 0.5: z = (max(U1, U2) - n1 n2 / 2 - 0.5) / sigma, p = 2 (1 - Phi(z)).
 * (scipy's own "auto" switches to the approximation when both samples have more than 8 values;
 * here the exact count is used up to 40 values in all. Both give the same numbers for the same
 * method; tests/unit/measure/test_stats.c holds scipy's values.)
 */
#ifndef RTT_STATS_H
#define RTT_STATS_H

#include <stdbool.h>

#define STATS_EXACT_MAX 40

/* The median of n values (not reordered); 0 for n <= 0. */
double stats_median(const double *values, int n);

struct mann_whitney {
	double u1;	/* pairs (a_i, b_j) with a_i > b_j, ties counted 1/2 (scipy's statistic) */
	double u2;	/* n1 n2 - u1 */
	double z;	/* normal approximation (0 when exact) */
	double p;	/* two-sided */
	bool exact;
	bool ties;
};

/* false (and p = 1) when a sample is empty. */
bool mann_whitney_u(const double *a, int na, const double *b, int nb, struct mann_whitney *out);

/* The smallest two-sided p an exact test of n1 and n2 untied values can give: 2 / C(n1 + n2, n1). */
double mann_whitney_min_p(int n1, int n2);

#endif
