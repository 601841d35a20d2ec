// SPDX-License-Identifier: GPL-2.0-only
/* The harness side of the timerlat role: its settings, rtla's histogram checked line by line, metrics. */
#include "timerlat.h"
#include "json_util.h"
#include "latency.h"
#include "metrics.h"
#include "scenario_task.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOKENS_MAX 16

/* Where the CPU's two columns are among a row's values (the index or label is value -1). */
struct columns {
	int irq, thread, count;
	bool summary_done;	/* past "ALL:": the summary over all CPUs, which repeats the rows */
};

static int split(char *line, char **tok)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t && n < TOKENS_MAX; t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	return n;
}

static bool whole_number(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

/* "Index IRQ-001 Thr-001 [Usr-001]": one CPU's columns, both kinds. */
static bool read_header(char **tok, int n, struct columns *col, int *cpu, char *why, size_t len)
{
	col->irq = col->thread = -1;
	col->count = n - 1;
	*cpu = -1;
	for (int i = 1; i < n; i++) {
		int c;
		char kind[4];

		if (sscanf(tok[i], "%3[A-Za-z]-%d", kind, &c) != 2) {
			snprintf(why, len, "header: column \"%.32s\" is not KIND-CPU", tok[i]);
			return false;
		}
		if (*cpu >= 0 && c != *cpu) {
			snprintf(why, len, "header: CPUs %d and %d: one CPU (-c N) is read", *cpu, c);
			return false;
		}
		*cpu = c;
		if (!strcmp(kind, "IRQ"))
			col->irq = i - 1;
		else if (!strcmp(kind, "Thr"))
			col->thread = i - 1;
	}
	if (col->thread < 0) {
		snprintf(why, len, "header: no Thr- column (--no-thread is not read)");
		return false;
	}
	return true;
}

/* A row's value of one column; false when the row has none or it is not a whole number. */
static bool value_of(char **tok, int n, int column, uint64_t *out)
{
	return column >= 0 && column + 1 < n && whole_number(tok[column + 1], out);
}

static bool bucket_row(char **tok, int n, const struct columns *col, struct timerlat_result *r, char *why, size_t len)
{
	uint64_t us, v;

	if (!whole_number(tok[0], &us) || n != col->count + 1) {
		snprintf(why, len, "row \"%.32s\": not an index and %d counts", tok[0], col->count);
		return false;
	}
	if (value_of(tok, n, col->thread, &v))
		latency_add_bucket(&r->thread.latency, us, v);
	if (value_of(tok, n, col->irq, &v))
		latency_add_bucket(&r->irq.latency, us, v);
	return true;
}

/* One summary field of a column; avg and a min or max of no samples ("-", ~0) stay unset. */
static void summary_value(struct timerlat_column *c, const char *label, const char *text)
{
	uint64_t v;
	char *end;

	if (!strcmp(label, "avg:")) {
		double mean = strtod(text, &end);

		/* The mean's ns for now (rtla prints whole us or two decimals): times count once all is read. */
		if (end != text && !*end && mean >= 0)
			c->avg_ns = mean * 1000;
		return;
	}
	if (!whole_number(text, &v))
		return;
	c->seen = true;
	if (!strcmp(label, "over:"))
		c->overflows = v;
	else if (!strcmp(label, "count:"))
		c->latency.count = v;
	else if (!strcmp(label, "min:") && v != UINT64_MAX)
		c->latency.min_ns = v * 1000;
	else if (!strcmp(label, "max:") && v != UINT64_MAX)
		c->latency.max_ns = v * 1000;
}

static bool summary_row(char **tok, int n, const struct columns *col, struct timerlat_result *r)
{
	static const char *const labels[] = { "over:", "count:", "min:", "avg:", "max:" };

	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(tok[0], labels[i])) {
			if (col->thread >= 0 && col->thread + 1 < n)
				summary_value(&r->thread, tok[0], tok[col->thread + 1]);
			if (col->irq >= 0 && col->irq + 1 < n)
				summary_value(&r->irq, tok[0], tok[col->irq + 1]);
			return true;
		}
	return false;
}

/* The column's figures agree with each other: its buckets and overflows make its count. */
static bool column_complete(struct timerlat_column *c, const char *name, char *why, size_t len)
{
	uint64_t in_hist = 0;

	for (int i = 0; i < LATENCY_LINEAR_US; i++)
		in_hist += c->latency.linear[i];
	for (int i = 0; i < LATENCY_LOG_BUCKETS; i++)
		in_hist += c->latency.log[i];
	if (!c->seen || !c->latency.count) {
		snprintf(why, len, "%s: count 0 or missing, nothing was measured", name);
		return false;
	}
	if (in_hist + c->overflows != c->latency.count) {
		snprintf(why, len, "%s: %llu samples in the histogram and %llu over are not its count %llu", name,
			 (unsigned long long)in_hist, (unsigned long long)c->overflows, (unsigned long long)c->latency.count);
		return false;
	}
	if (c->latency.min_ns > c->latency.max_ns) {
		snprintf(why, len, "%s: min above max", name);
		return false;
	}
	c->latency.sum_ns = (uint64_t)llround(c->avg_ns * (double)c->latency.count);
	return true;
}

/* One line; false with why. `col` is unset (count 0) until the header. */
static bool parse_line(char *line, struct columns *col, struct timerlat_result *r, char *why, size_t len)
{
	char *tok[TOKENS_MAX];
	int d, h, m, s, n;

	if (strstr(line, "hit stop tracing")) {
		r->threshold_stop = true;
		return true;
	}
	if (line[0] == '#') {
		if (strstr(line, "nanoseconds")) {
			snprintf(why, len, "values in ns (-n) are not read; run without -n");
			return false;
		}
		if (sscanf(line, "# Duration: %d %d:%d:%d", &d, &h, &m, &s) == 4)
			r->duration_s = ((d * 24.0 + h) * 60 + m) * 60 + s;
		return true;
	}
	n = split(line, tok);
	if (!n || r->threshold_stop || col->summary_done)
		return true;	/* after the stop line: rtla's analysis of the stop, in words */
	if (!strcmp(tok[0], "Index"))
		return read_header(tok, n, col, &r->cpu, why, len);
	if (!strcmp(tok[0], "ALL:")) {
		col->summary_done = true;
		return true;
	}
	if (!col->count) {
		snprintf(why, len, "\"%.32s\" before the Index header", tok[0]);
		return false;
	}
	return summary_row(tok, n, col, r) || bucket_row(tok, n, col, r, why, len);
}

bool timerlat_parse(FILE *in, struct timerlat_result *out, char *why, size_t why_len)
{
	struct columns col = { .irq = -1, .thread = -1 };
	char *line = NULL, detail[200] = "";
	size_t cap = 0;
	int number = 0;
	bool ok = true;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->duration_s = -1;
	while (ok && getline(&line, &cap, in) >= 0) {
		number++;
		ok = parse_line(line, &col, out, detail, sizeof(detail));
	}
	free(line);
	if (!ok) {
		snprintf(why, why_len, "line %d: %s", number, detail);
		return false;
	}
	if (!col.count) {
		snprintf(why, why_len, "no Index header: not rtla timerlat hist output");
		return false;
	}
	if (!column_complete(&out->thread, "Thr", why, why_len))
		return false;
	/* The IRQ column is a second opinion: kept when whole, else left out. */
	if (col.irq < 0 || !column_complete(&out->irq, "IRQ", detail, sizeof(detail)))
		memset(&out->irq, 0, sizeof(out->irq));
	return true;
}

bool timerlat_ingest(const char *path, struct timerlat_result *out, char *why, size_t why_len)
{
	FILE *f = fopen(path, "re");
	char detail[240];
	bool ok;

	if (!f) {
		snprintf(why, why_len, "rtla output %s: %s", path, strerror(errno));
		return false;
	}
	ok = timerlat_parse(f, out, detail, sizeof(detail));
	fclose(f);
	if (!ok)
		snprintf(why, why_len, "rtla output %s: %s", path, detail);
	return ok;
}

void timerlat_configure(const struct scenario_task *t, struct task_config *c)
{
	c->interval_ns = (uint64_t)(task_param(t, "interval_us") * 1000);
	c->histogram_us = (uint64_t)task_param(t, "histogram_us");
	c->stop_us = (uint64_t)task_param(t, "stop_us");
	c->avoid_cpu = c->cpu;	/* only the tracer's thread goes there (-c) */
}

/* The window's span rtla measured: its lags at the start and past the end. */
static void span_json(json_object *obj, const struct task_record *rec)
{
	const struct external_stats *x = &rec->u.external;
	uint64_t end = rec->first_ns + rec->config.window_ns;

	if (x->measuring_ns)
		json_add_double(obj, "start_lag_us", x->measuring_ns > rec->first_ns ? (double)(x->measuring_ns - rec->first_ns) / 1000 : 0);
	if (x->stopped_ns)
		json_add_double(obj, "stop_lag_us", ((double)x->stopped_ns - (double)end) / 1000);
}

void timerlat_metrics_json(json_object *obj, const struct task_record *rec)
{
	const struct external_stats *x = &rec->u.external;
	struct timerlat_result *r;
	char why[320];

	if (x->unavailable) {
		json_add_str(obj, "skipped", x->error);
		return;
	}
	r = malloc(sizeof(*r));
	json_add_str(obj, "command", x->command);
	if (r && timerlat_ingest(x->output, r, why, sizeof(why))) {
		/* rtla 6.x's exit code 2, or older rtla's line: a threshold stopped the trace early. */
		bool stopped = r->threshold_stop || (WIFEXITED(x->exit_status) && WEXITSTATUS(x->exit_status) == 2);

		json_add_int64(obj, "cycles", (int64_t)r->thread.latency.count);
		json_object_object_add(obj, "latency_us", tool_latency_to_json(&r->thread.latency, r->thread.overflows));
		json_add_int64(obj, "overflows", (int64_t)r->thread.overflows);
		if (r->irq.seen) {
			json_object_object_add(obj, "irq_latency_us", tool_latency_to_json(&r->irq.latency, r->irq.overflows));
			json_add_int64(obj, "irq_overflows", (int64_t)r->irq.overflows);
		}
		json_add_int64(obj, "histogram_us", (int64_t)rec->config.histogram_us);
		json_add_int64(obj, "stop_us", (int64_t)rec->config.stop_us);
		json_object_object_add(obj, "threshold_stop", json_object_new_boolean(stopped));
		json_add_int(obj, "exit_status", WIFEXITED(x->exit_status) ? WEXITSTATUS(x->exit_status) : -1);
		if (r->duration_s >= 0)
			json_add_double(obj, "duration_s", r->duration_s);
		span_json(obj, rec);
	} else {
		/* No latency metrics: checks on them are not measured, and fail. */
		json_add_str(obj, "timerlat_error", r ? why : "out of memory");
	}
	free(r);
	unlink(x->output);
}
