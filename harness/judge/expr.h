/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tiny arithmetic for scenario files: numbers, names, + - * / and parentheses, and
 * comparisons (< <= > >=), joined by "and", for conditions. Names are resolved by the caller, so a scenario can
 * say "2 * rt_run_us" or "utilisation < rt_share - 0.015" without any C.
 */
#ifndef RTT_EXPR_H
#define RTT_EXPR_H

#include <stdbool.h>
#include <stddef.h>

/* Returns false when the name is unknown. */
typedef bool (*expr_lookup)(void *ctx, const char *name, double *value);

/* Evaluates `text`; false with a reason in err on a syntax error or an unknown name. */
bool expr_eval(const char *text, expr_lookup lookup, void *ctx, double *value, char *err, size_t err_len);
/* Evaluates "A op B", or several joined by " and "; false with a reason in err when it cannot be evaluated. */
bool expr_condition(const char *text, expr_lookup lookup, void *ctx, bool *result, char *err, size_t err_len);

#endif
