// SPDX-License-Identifier: GPL-2.0-only
/* The median on a copy; Mann-Whitney U from exact counts of arrangements, else the tie-corrected normal. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_median(const double *values, int n)
{
	double *v, m;

	if (n <= 0)
		return 0;
	v = malloc(sizeof(*v) * (size_t)n);
	if (!v)
		return NAN;
	memcpy(v, values, sizeof(*v) * (size_t)n);
	qsort(v, (size_t)n, sizeof(*v), compare_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

/*
 * P(U >= u) for samples of m and n untied values, from the counts of arrangements by U
 * (in doubles: C(40, 20) < 2^53, so the counts are exact).
 */
static double exact_sf(int m, int n, double u)
{
	int max_u = m * n;
	/* f[i][k]: arrangements of i values of the first sample and j of the second with U = k. */
	double *f = calloc((size_t)(m + 1) * (size_t)(max_u + 1), sizeof(double));
	double total = 0, tail = 0;

	if (!f)
		return 1;
#define F(i, k) f[(size_t)(i) * (size_t)(max_u + 1) + (size_t)(k)]
	for (int i = 0; i <= m; i++)
		F(i, 0) = 1;	/* j = 0: U is 0 */
	/*
	 * Column j from column j - 1, in place. The largest value is either the first sample's (it
	 * beats all j of the second: f(i - 1, j, k - j)) or the second's (f(i, j - 1, k)); i ascending,
	 * so row i - 1 is already at column j.
	 */
	for (int j = 1; j <= n; j++)
		for (int i = 1; i <= m; i++)
			for (int k = i * j; k >= j; k--)
				F(i, k) += F(i - 1, k - j);
	for (int k = 0; k <= max_u; k++) {
		total += F(m, k);
		if (k >= u - 1e-9)
			tail += F(m, k);
	}
#undef F
	free(f);
	return total > 0 ? tail / total : 1;
}

double mann_whitney_min_p(int n1, int n2)
{
	double c = 1;

	for (int k = 1; k <= n1; k++)
		c = c * (n2 + k) / k;
	return fmin(1, 2 / c);
}

bool mann_whitney_u(const double *a, int na, const double *b, int nb, struct mann_whitney *out)
{
	int n = na + nb;
	double *all, tie_sum = 0, u_max, mu, sigma;

	memset(out, 0, sizeof(*out));
	out->p = 1;
	if (na <= 0 || nb <= 0)
		return false;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			out->u1 += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	out->u2 = (double)na * nb - out->u1;
	all = malloc(sizeof(*all) * (size_t)n);
	if (!all)
		return false;
	memcpy(all, a, sizeof(*a) * (size_t)na);
	memcpy(all + na, b, sizeof(*b) * (size_t)nb);
	qsort(all, (size_t)n, sizeof(*all), compare_double);
	for (int i = 0; i < n;) {
		int j = i;

		while (j < n && all[j] == all[i])
			j++;
		if (j - i > 1) {
			double t = j - i;

			out->ties = true;
			tie_sum += t * t * t - t;
		}
		i = j;
	}
	free(all);
	u_max = fmax(out->u1, out->u2);
	if (!out->ties && n <= STATS_EXACT_MAX) {
		out->exact = true;
		/* The distribution of U is symmetric: P(U >= u_max) is the tail on either side. */
		out->p = fmin(1, 2 * exact_sf(na, nb, u_max));
		return true;
	}
	mu = (double)na * nb / 2;
	sigma = sqrt((double)na * nb / 12 * ((n + 1) - tie_sum / ((double)n * (n - 1))));
	if (sigma <= 0)
		return true;	/* every value the same: p = 1 */
	out->z = (u_max - mu - 0.5) / sigma;
	out->p = fmin(1, erfc(out->z / sqrt(2)));
	return true;
}
