// SPDX-License-Identifier: GPL-2.0-only
/* KTAP as the kernel's parser reads it (checks not judged: SKIP with why); the ETA from window time done. */
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ktap_plan(int count)
{
	printf("KTAP version 1\n1..%d\n", count);
	fflush(stdout);
}

static void print_value(double v, const char *unit)
{
	if (unit[0] == 'r')	/* ratio */
		printf("%.4f", v);
	else if (fabs(v) < 100 && v != floor(v))
		printf("%.3g", v);
	else
		printf("%.0f", v);
}

void ktap_checks(const char *name, const struct check *checks, int count)
{
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", name, count);
	for (int i = 0; i < count; i++) {
		const struct check *c = &checks[i];

		if (c->hollow) {
			printf("    ok %d %s.%s%s%s # SKIP unjudged: tolerance ", i + 1, c->task, c->metric,
			       c->label[0] ? "." : "", c->label);
			print_value(c->tolerance, c->unit);
			printf(" is at least the regression it exists to catch, ");
			print_value(c->detects, c->unit);
			printf(" %s\n", c->unit);
			continue;
		}
		if (c->not_applicable) {
			/* "not applicable: its condition (...) does not hold here; ..." up to the first ";". */
			printf("    ok %d %s.%s%s%s # SKIP %.*s\n", i + 1, c->task, c->metric, c->label[0] ? "." : "", c->label,
			       (int)strcspn(c->rule, ";"), c->rule);
			continue;
		}
		if (!c->was_measured) {
			/* A rule "not measured: <why>; ..." says why; the why is KTAP's skip reason. */
			const char *why = !strncmp(c->rule, "not measured: ", 14) ? c->rule + 14 : NULL;
			int len = why ? (int)strcspn(why, ";") : 0;

			printf("    ok %d %s.%s%s%s # SKIP %.*s\n", i + 1, c->task, c->metric, c->label[0] ? "." : "", c->label,
			       why ? len : (int)strlen("not measurable in this window"), why ? why : "not measurable in this window");
			continue;
		}
		printf("    %s %d %s.%s%s%s # measured ", c->passed ? "ok" : "not ok", i + 1, c->task, c->metric,
		       c->label[0] ? "." : "", c->label);
		print_value(c->measured, c->unit);
		printf(" %s ", check_kind_name(c->kind));
		print_value(c->expected, c->unit);
		printf(" +- ");
		print_value(c->tolerance, c->unit);
		printf(" %s\n", c->unit);
		if (!c->passed)
			printf("    # rule: %s\n", c->rule);
	}
}

void ktap_result(int number, bool ok, const char *name, const char *skip_reason)
{
	if (skip_reason)
		printf("ok %d %s # SKIP %s\n", number, name, skip_reason);
	else
		printf("%s %d %s\n", ok ? "ok" : "not ok", number, name);
	fflush(stdout);
}

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static bool progress_quiet;
static double progress_planned_s, progress_done_s;
static uint64_t progress_start_ns;

void progress_begin(bool quiet, double planned_s)
{
	progress_quiet = quiet;
	progress_planned_s = planned_s;
	progress_done_s = 0;
	progress_start_ns = now_ns();
}

void progress_step(const char *fmt, ...)
{
	double elapsed = (now_ns() - progress_start_ns) / 1e9, eta;
	va_list ap;

	if (progress_quiet)
		return;
	/* Windows dominate the wall time; scale the rest by what the past cost per window second. */
	eta = progress_done_s > 0 ? (progress_planned_s - progress_done_s) * elapsed / progress_done_s
				  : progress_planned_s * 1.2;
	fprintf(stderr, "[%3.0f%% ETA %d:%02d] ", 100 * progress_done_s / progress_planned_s,
		(int)eta / 60, (int)eta % 60);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void progress_advance(double window_s)
{
	progress_done_s += window_s;
}
