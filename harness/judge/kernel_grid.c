// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's RT period boundaries from its traced period timer firings. */
#include "kernel_grid.h"
#include "json_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Firings this far off a multiple of the period from the one before lie on another grid. */
#define OFF_GRID_SHARE 0.25
/*
 * A window ending this little before a firing ends on that boundary: the period it cuts
 * misses at most this much, less than the tick every period check allows.
 */
#define END_SLACK_NS 1000000.0
/* At most this many periods filled in between two firings. */
#define FILL_MAX 1000

/* The one RT period timer's firings (ms from the window start), or NULL and why. */
static json_object *the_timers_firings(json_object *trace, char *why, size_t why_len)
{
	json_object *timer = NULL, *fired;

	if (!trace || strcmp(json_get_str(trace, "status", ""), "recorded")) {
		snprintf(why, why_len, "not traced (%s)", trace ? json_get_str(trace, "status", "?") : "no trace");
		return NULL;
	}
	if (!json_object_object_get_ex(trace, "rt_timer", &timer) || json_get_int64(timer, "timers", 0) != 1 ||
	    !json_object_object_get_ex(timer, "fired_at_ms", &fired) || json_object_array_length(fired) != 1) {
		snprintf(why, why_len, "the trace holds %lld RT period timers, not one",
			 (long long)(timer ? json_get_int64(timer, "timers", 0) : 0));
		return NULL;
	}
	return json_object_array_get_idx(fired, 0);
}

int kernel_grid_bounds(json_object *trace, uint64_t period_ns, uint64_t window_ns, uint64_t **out, char *why,
		       size_t why_len)
{
	json_object *at;
	size_t count, n = 0;
	double prev = NAN;
	uint64_t *bounds;

	*out = NULL;
	if (!(at = the_timers_firings(trace, why, why_len))) {
		size_t used = strlen(why);

		snprintf(why + used, why_len - used, ": the grid is searched");
		return 0;
	}
	count = json_object_array_length(at);
	bounds = malloc((count + FILL_MAX + 1) * sizeof(*bounds));
	if (!bounds) {
		snprintf(why, why_len, "out of memory: the grid is searched");
		return 0;
	}
	for (size_t i = 0; i < count; i++) {
		double ns = json_object_get_double(json_object_array_get_idx(at, i)) * 1e6;

		if (!isnan(prev)) {
			double periods = (ns - prev) / (double)period_ns, whole = round(periods);

			if ((whole < 1 || fabs(periods - whole) > OFF_GRID_SHARE) && prev <= 0) {
				/*
				 * Before the window the timer may still run on the policy before:
				 * a firing forwards it by the period it had. The grid starts here.
				 */
				n = 0;
				prev = ns;
				if (ns > 0 && ns <= (double)window_ns)
					bounds[n++] = (uint64_t)ns;
				continue;
			}
			if (whole < 1 || fabs(periods - whole) > OFF_GRID_SHARE) {
				snprintf(why, why_len, "RT period timer firings %.3f ms apart, off the %.0f ms grid: the grid is searched",
					 (ns - prev) / 1e6, period_ns / 1e6);
				free(bounds);
				return 0;
			}
			/* A period the timer skipped: its boundary on the grid of the firing before. */
			for (int k = 1; k < (int)whole && n < count + FILL_MAX - 1; k++) {
				double fill = prev + k * (double)period_ns;

				if (fill > 0 && fill <= (double)window_ns)
					bounds[n++] = (uint64_t)fill;
			}
		}
		if (ns > 0 && ns <= (double)window_ns && n < count + FILL_MAX)
			bounds[n++] = (uint64_t)ns;
		prev = ns;
	}
	/*
	 * Before the first firing recorded: the grid holds back to the window start (a firing the
	 * trace lost where another CPU's buffer overran, or a period the timer skipped).
	 */
	if (n) {
		int before = (int)(bounds[0] / period_ns);

		if (before > 0 && n + (size_t)before <= count + FILL_MAX) {
			memmove(bounds + before, bounds, n * sizeof(*bounds));
			for (int k = 0; k < before; k++)
				bounds[k] = bounds[before] - (uint64_t)(before - k) * period_ns;
			n += (size_t)before;
		}
	}
	if (!n) {
		snprintf(why, why_len, "the RT period timer did not fire in the window: the grid is searched");
		free(bounds);
		return 0;
	}
	/* A window cut just before a firing (aligned end) ends on the kernel's boundary. */
	if (!isnan(prev) && prev > (double)window_ns && prev - (double)window_ns <= END_SLACK_NS &&
	    bounds[n - 1] < window_ns) {
		bounds[n++] = window_ns;
		snprintf(why, why_len, "the kernel's: its RT period timer's firings as traced (%zu boundaries in the "
			 "window), and the window's end %.3f ms before the next", n - 1, (prev - (double)window_ns) / 1e6);
	} else {
		snprintf(why, why_len, "the kernel's: its RT period timer's firings as traced (%zu boundaries in the window)", n);
	}
	*out = bounds;
	return (int)n;
}

double kernel_grid_drift_us(json_object *trace, uint64_t period_ns, uint64_t window_ns, int *intervals, char *why,
			    size_t why_len)
{
	json_object *at = the_timers_firings(trace, why, why_len);
	double prev = NAN, drift = 0, lo = 0, hi = 0;
	int used = 0;

	for (size_t i = 0; at && i < json_object_array_length(at); i++) {
		double ns = json_object_get_double(json_object_array_get_idx(at, i)) * 1e6;

		if (ns <= 0 || ns > (double)window_ns + END_SLACK_NS)
			continue;
		/* Summed interval by interval, so a drift past half a period does not wrap around. */
		if (used++) {
			drift += (ns - prev) - round((ns - prev) / (double)period_ns) * (double)period_ns;
			lo = fmin(lo, drift);
			hi = fmax(hi, drift);
		}
		prev = ns;
	}
	*intervals = used > 1 ? used - 1 : 0;
	if (at && used < 2)
		snprintf(why, why_len, "%d RT period timer firing%s in the window: no interval to measure", used,
			 used == 1 ? "" : "s");
	return at && used >= 2 ? (hi - lo) / 1e3 : -1;
}

int kernel_grid_disturbed(json_object *trace, uint64_t tick_ns, struct disturbance **out, double *listed_from_us)
{
	json_object *tick, *late, *full;
	size_t count;

	*out = NULL;
	*listed_from_us = 0;
	if (!trace || strcmp(json_get_str(trace, "status", ""), "recorded") ||
	    !json_object_object_get_ex(trace, "tick", &tick) || !json_object_object_get_ex(tick, "late", &late) ||
	    !json_object_is_type(late, json_type_array) ||
	    (json_object_object_get_ex(tick, "late_list_full", &full) && json_object_get_boolean(full)))
		return -1;
	count = json_object_array_length(late);
	*listed_from_us = json_get_number(tick, "late_listed_from_us", 0);
	if (!count)
		return 0;
	*out = calloc(count, sizeof(**out));
	if (!*out)
		return -1;
	for (size_t i = 0; i < count; i++) {
		json_object *pair = json_object_array_get_idx(late, i);
		double at_ns = json_object_get_double(json_object_array_get_idx(pair, 0)) * 1e6;
		double late_ns = json_object_get_double(json_object_array_get_idx(pair, 1)) * 1e3;
		double from = at_ns - late_ns - (double)tick_ns;

		(*out)[i] = (struct disturbance){ from > 0 ? (uint64_t)from : 0, at_ns > 0 ? (uint64_t)at_ns : 0,
						  late_ns / 1e3, DISTURBANCE_HELD };
	}
	return (int)count;
}

void disturbance_why(const struct disturbance *d, char *why, size_t len)
{
	if (d->kind == DISTURBANCE_LOST)
		snprintf(why, len, "the trace lost the switches of %.1f ms in it: who ran there is unknown",
			 d->late_us / 1e3);
	else if (d->kind == DISTURBANCE_CFS_ASLEEP)
		snprintf(why, len, "the CFS task slept and the CPU idled %.1f ms in it: a rest nobody asked for",
			 d->late_us / 1e3);
	else
		snprintf(why, len, "the trace saw the machine hold the tick back %.0f us in it", d->late_us);
}

/* Appends the [from_ms, to_ms] pairs of trace.<block>.<key> as disturbances of `kind`. */
static int add_spans(json_object *trace, const char *block, const char *key, enum disturbance_kind kind,
		     struct disturbance **list, int *n)
{
	json_object *holder, *spans;
	struct disturbance *grown;
	size_t count;

	if (!trace || strcmp(json_get_str(trace, "status", ""), "recorded") ||
	    !json_object_object_get_ex(trace, block, &holder) ||
	    !json_object_object_get_ex(holder, key, &spans) || !json_object_is_type(spans, json_type_array))
		return -1;
	count = json_object_array_length(spans);
	if (!count)
		return 0;
	grown = realloc(*list, (size_t)(*n + (int)count) * sizeof(**list));
	if (!grown)
		return -1;
	*list = grown;
	for (size_t i = 0; i < count; i++) {
		json_object *s = json_object_array_get_idx(spans, i);
		double from = json_object_get_double(json_object_array_get_idx(s, 0)) * 1e6;
		double to = json_object_get_double(json_object_array_get_idx(s, 1)) * 1e6;

		from = fmax(from, 0);
		to = fmax(to, from);
		grown[(*n)++] = (struct disturbance){ (uint64_t)from, (uint64_t)to, (to - from) / 1e3, kind };
	}
	return (int)count;
}

int kernel_grid_add_unrecorded(json_object *trace, struct disturbance **list, int *n)
{
	return add_spans(trace, "others", "unrecorded", DISTURBANCE_LOST, list, n);
}

int kernel_grid_add_cfs_asleep(json_object *trace, struct disturbance **list, int *n)
{
	json_object *blocked;

	if (trace && !strcmp(json_get_str(trace, "status", ""), "recorded") &&
	    !json_object_object_get_ex(trace, "cfs_blocked", &blocked))
		return 0;
	return add_spans(trace, "cfs_blocked", "spans", DISTURBANCE_CFS_ASLEEP, list, n);
}

int kernel_grid_others(json_object *trace, struct others_span **out)
{
	json_object *others, *spans;
	size_t count;

	*out = NULL;
	if (!trace || strcmp(json_get_str(trace, "status", ""), "recorded") ||
	    !json_object_object_get_ex(trace, "others", &others) || !json_object_object_get_ex(others, "spans", &spans) ||
	    !json_object_is_type(spans, json_type_array))
		return -1;
	count = json_object_array_length(spans);
	if (!count)
		return 0;
	*out = calloc(count, sizeof(**out));
	if (!*out)
		return -1;
	for (size_t i = 0; i < count; i++) {
		json_object *s = json_object_array_get_idx(spans, i);
		double from = json_object_get_double(json_object_array_get_idx(s, 0)) * 1e6;
		double to = json_object_get_double(json_object_array_get_idx(s, 1)) * 1e6;

		(*out)[i] = (struct others_span){ from > 0 ? (uint64_t)from : 0, to > from ? (uint64_t)to : (uint64_t)fmax(from, 0),
						  json_object_get_double(json_object_array_get_idx(s, 2)) };
	}
	return (int)count;
}

double others_between_us(const struct others_span *s, int n, uint64_t from, uint64_t to)
{
	double sum = 0;

	for (int i = 0; i < n; i++) {
		uint64_t a = s[i].from_ns > from ? s[i].from_ns : from, b = s[i].to_ns < to ? s[i].to_ns : to;

		if (b <= a)
			continue;
		sum += s[i].to_ns > s[i].from_ns ? s[i].ran_us * (double)(b - a) / (double)(s[i].to_ns - s[i].from_ns)
						  : s[i].ran_us;
	}
	return sum;
}
