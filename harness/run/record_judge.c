// SPDX-License-Identifier: GPL-2.0-only
/* Reads a folder of recordings back and judges each window again (record.h). */
#include "record.h"
#include "record_json.h"
#include "json_util.h"
#include "report.h"
#include "results.h"
#include "scenario.h"
#include "tables.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* One recording as read: its context and the tasks' records. */
struct recording {
	char path[PATH_MAX];
	json_object *context;
	struct window_shm *shm;
	struct policy policy;
	struct window_align align;
	int count;
};

static int is_recording(const struct dirent *d)
{
	size_t len = strlen(d->d_name), suffix = strlen(RECORD_SUFFIX);

	return len > suffix && !strcmp(d->d_name + len - suffix, RECORD_SUFFIX);
}

/* The line up to '\n' (dropped), however long; NULL at the end or on an error. */
static char *read_line(gzFile gz)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);

	while (buf && gzgets(gz, buf + len, (int)(cap - len))) {
		len += strlen(buf + len);
		if (len && buf[len - 1] == '\n') {
			buf[len - 1] = '\0';
			return buf;
		}
		if (cap - len < 2) {
			char *bigger = realloc(buf, cap *= 2);

			if (!bigger)
				break;
			buf = bigger;
		}
	}
	free(buf);
	return NULL;
}

static bool read_exact(gzFile gz, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		int n = gzread(gz, p, len > (1u << 30) ? 1u << 30 : (unsigned)len);

		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* Text a task wrote into a fixed buffer ends inside it. */
#define TERMINATED(buf) (memchr((buf), '\0', sizeof(buf)) != NULL)

/*
 * What the readers of a record index by: counts within their arrays, names terminated. A
 * record is data from a file: one that breaks these is refused, never read past its arrays.
 */
static bool task_record_sane(const struct task_record *t)
{
	const struct external_stats *x = &t->u.external;

	if (t->config.role < 0 || t->config.role >= ROLE_COUNT || t->config.sched_policy < 0 || t->config.sched_policy > 7 ||
	    t->samples.count > CPU_SAMPLES_MAX || t->gaps.long_stored > LONG_GAPS_MAX ||
	    !TERMINATED(t->config.name) || !TERMINATED(t->config.cgroup) || !TERMINATED(t->error_msg))
		return false;
	switch (t->config.role) {
	case ROLE_INVALID_WRITES:
		if (t->u.invalid.tried < 0 || t->u.invalid.tried > INVALID_WRITES_MAX)
			return false;
		for (int i = 0; i < t->u.invalid.tried; i++)
			if (!TERMINATED(t->u.invalid.write[i].file) || !TERMINATED(t->u.invalid.write[i].why))
				return false;
		return true;
	case ROLE_CALIBRATE:
		return t->u.calibration.samples >= 0 && t->u.calibration.samples <= 16;
	case ROLE_CYCLICTEST:
	case ROLE_TIMERLAT:
	case ROLE_LOAD:
		return TERMINATED(x->output) && TERMINATED(x->error) && TERMINATED(x->command) && TERMINATED(x->cpus);
	default:
		return true;
	}
}

/* Reads one file; false with why ("not a recording", a layout of another build, ...). */
static bool recording_read(struct recording *r, char *why, size_t why_len)
{
	gzFile gz = gzopen(r->path, "rb");
	char *line = NULL;
	int format = 0;
	bool ok = false;

	if (!gz) {
		snprintf(why, why_len, "cannot open it: %s", strerror(errno));
		return false;
	}
	line = read_line(gz);
	if (!line || sscanf(line, "rtthrottle-record %d", &format) != 1) {
		snprintf(why, why_len, "not a recording (no 'rtthrottle-record' line)");
		goto out;
	}
	if (format != RECORD_FORMAT) {
		snprintf(why, why_len, "recording format %d; this build reads %d", format, RECORD_FORMAT);
		goto out;
	}
	free(line);
	line = read_line(gz);
	r->context = line ? json_tokener_parse(line) : NULL;
	if (!r->context) {
		snprintf(why, why_len, "its context line is not JSON");
		goto out;
	}
	if (json_get_int64(r->context, "task_record_bytes", 0) != (int64_t)sizeof(struct task_record)) {
		snprintf(why, why_len, "recorded by a build whose task records are %lld bytes (commit %s); this one's "
			 "are %zu: record it again with this build",
			 (long long)json_get_int64(r->context, "task_record_bytes", 0),
			 json_get_str(r->context, "commit", "?"), sizeof(struct task_record));
		goto out;
	}
	r->count = (int)json_get_int64(r->context, "count", 0);
	r->shm = calloc(1, sizeof(*r->shm));
	if (r->count < 1 || r->count > TASKS_MAX || !r->shm) {
		snprintf(why, why_len, "%d tasks: not a window's", r->count);
		goto out;
	}
	if (!read_exact(gz, r->shm, offsetof(struct window_shm, task)) ||
	    !read_exact(gz, r->shm->task, (size_t)r->count * sizeof(struct task_record))) {
		snprintf(why, why_len, "its task records are cut short");
		goto out;
	}
	r->shm->task_count = r->count;
	for (int i = 0; i < r->count; i++)
		if (!task_record_sane(&r->shm->task[i])) {
			snprintf(why, why_len, "task record %d is corrupt (a count beyond its array, a name not ended)", i);
			goto out;
		}
	ok = true;
out:
	free(line);
	gzclose(gz);
	return ok;
}

static void recording_free(struct recording *r)
{
	json_object_put(r->context);
	free(r->shm);
	memset(r, 0, sizeof(*r));
}

static json_object *context_get(json_object *context, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(context, key, &v);
	return v;
}

/* The scenario by name, or from the file it came from when it is not in the catalogue. */
static const struct scenario *recording_scenario(json_object *context)
{
	const char *name = json_get_str(context, "scenario", ""), *source = json_get_str(context, "scenario_source", "");
	const struct scenario *s = scenario_find(name);

	if (!s && source[0] && access(source, R_OK) == 0)
		s = scenario_add_file(source);
	return s && !strcmp(s->name, name) ? s : NULL;
}

/*
 * The files external tools wrote (cyclictest's JSON), written back into a folder of our own
 * for the metrics to read (and remove) as they did live.
 */
static bool files_restore(struct recording *r, const char *tmp_dir, char *why, size_t why_len)
{
	json_object *files = context_get(r->context, "files");

	for (size_t i = 0; files && i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i);
		int task = (int)json_get_int64(f, "task", -1);
		const char *content = json_get_str(f, "content", "");
		char *path;
		FILE *out;

		if (task < 0 || task >= r->count) {
			snprintf(why, why_len, "a file of task %d, which the window does not have", task);
			return false;
		}
		path = r->shm->task[task].u.external.output;
		if (snprintf(path, sizeof(r->shm->task[task].u.external.output), "%.200s/task-%d", tmp_dir, task) >=
		    (int)sizeof(r->shm->task[task].u.external.output)) {
			snprintf(why, why_len, "the temporary folder's path is too long");
			return false;
		}
		out = fopen(path, "we");
		if (!out || fputs(content, out) < 0 || fclose(out)) {
			snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
			return false;
		}
	}
	return true;
}

/* The context as run_judge_window reads it; false with why. */
static bool context_restore(struct recording *r, struct run_ctx *ctx, struct run_options *opt, char *why,
			    size_t why_len)
{
	json_object *c = r->context;

	if (!record_model_from(context_get(c, "model"), &ctx->model) ||
	    !record_noise_from(context_get(c, "noise"), &ctx->noise) ||
	    !record_policy_from(context_get(c, "policy"), &r->policy) ||
	    !record_align_from(context_get(c, "align"), &r->align) || !context_get(c, "res")) {
		snprintf(why, why_len, "its context lacks the model, noise floor, policy, alignment or result");
		return false;
	}
	opt->cpu = (int)json_get_int64(c, "cpu", 0);
	ctx->opt = opt;
	ctx->shm = r->shm;
	ctx->last_steal_us = json_get_number(c, "steal_us", -1);
	ctx->last_timer_irqs = json_get_number(c, "timer_irqs", -1);
	ctx->last_others_us = json_get_number(c, "others_us", -1);
	return true;
}

struct judge_run {
	const char *dir;
	char tmp_dir[PATH_MAX];
	struct run_ctx ctx;
	struct run_options *opt;
	record_change_fn change;
	const void *arg;
	struct record_judgement *sum;
};

/* Judges one recording again; false when it cannot be read (why says so). */
static bool judge_recording(struct judge_run *j, const char *file, char *why, size_t why_len)
{
	struct recording r = { 0 };
	struct window_taken w = { 0 };
	struct run_ctx *ctx = &j->ctx;
	bool ok = false;

	snprintf(r.path, sizeof(r.path), "%s/%s", j->dir, file);
	if (!recording_read(&r, why, why_len) || !context_restore(&r, ctx, j->opt, why, why_len) ||
	    !files_restore(&r, j->tmp_dir, why, why_len))
		goto out;
	if (!(w.scenario = recording_scenario(r.context))) {
		snprintf(why, why_len, "scenario '%s' is neither in the catalogue nor at '%s'",
			 json_get_str(r.context, "scenario", ""), json_get_str(r.context, "scenario_source", ""));
		goto out;
	}
	snprintf(w.name, sizeof(w.name), "%s", json_get_str(r.context, "name", file));
	w.policy = &r.policy;
	w.sweep = (int)json_get_int64(r.context, "sweep", 0);
	w.count = r.count;
	w.traced = (int)json_get_int64(r.context, "traced", -1);
	w.window_s = json_get_number(r.context, "window_s", 0);
	w.align = &r.align;
	/* The checks name the scenario's tasks by place: the recorded ones must be those. */
	for (int i = 0; i < w.scenario->task_count; i++)
		if (i >= w.count || strcmp(r.shm->task[i].config.name, w.scenario->tasks[i].name)) {
			snprintf(why, why_len, "scenario '%s' now has task '%s' where the window recorded '%s': judge it "
				 "with the scenario it ran", w.scenario->name, w.scenario->tasks[i].name,
				 i < w.count ? r.shm->task[i].config.name : "none");
			goto out;
		}
	if (w.traced < -1 || w.traced >= w.count) {
		snprintf(why, why_len, "traced task %d of a window of %d", w.traced, w.count);
		goto out;
	}
	if (w.sweep < 0 || (w.scenario->sweep_count && w.sweep >= w.scenario->sweep_count)) {
		snprintf(why, why_len, "sweep value %d of a scenario with %d", w.sweep, w.scenario->sweep_count);
		goto out;
	}
	json_object_deep_copy(context_get(r.context, "res"), &w.res, NULL);
	json_object_deep_copy(context_get(r.context, "trace"), &w.trace, NULL);
	if (!w.trace)
		w.trace = json_object_new_object();
	if (j->change) {
		struct record_window_view view = { .shm = r.shm, .trace = w.trace, .policy = &r.policy,
						   .model = &ctx->model, .cpu = j->opt->cpu,
						   .changed = json_object_new_object() };
		char change_why[256] = "";
		bool applied = j->change(&view, j->arg, change_why, sizeof(change_why));

		applied ? j->sum->changed++ : j->sum->not_changed++;
		json_add_str(w.res, "changed", applied ? "yes" : change_why);
		json_object_object_add(w.res, "changed_spans_ms", applied ? view.changed : NULL);	/* rt_runs, rt_idle */
		if (!applied)
			json_object_put(view.changed);
	}
	run_judge_window(ctx, &w, false);
	j->sum->windows++;
	ok = true;
out:
	recording_free(&r);
	return ok;
}

/* The run's document from run.json, its results replaced; a bare one without it. */
static json_object *document_for(const char *dir, struct kernel_model *model)
{
	char path[PATH_MAX];
	json_object *root = NULL;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (access(path, R_OK) == 0)
		root = json_object_from_file(path);
	if (root && json_object_is_type(root, json_type_object)) {
		record_model_from(context_get(root, "recording_model"), model);
		json_object_object_del(root, "recording_model");
		json_object_object_del(root, "tables");
		json_object_object_add(root, "results", json_object_new_array());
		return root;
	}
	json_object_put(root);
	return results_new("judged-again", dir);
}

static json_object *rejudged_json(const char *dir, const char *change_name, const char *change_catches,
				  const struct record_judgement *sum)
{
	json_object *o = json_object_new_object();

	json_add_str(o, "from", dir);
	json_add_str(o, "judged_by_commit", RTT_GIT_COMMIT);
	if (change_name) {
		json_add_str(o, "change", change_name);
		json_add_str(o, "change_caught_by", change_catches ? change_catches : "");
		json_add_int(o, "windows_changed", sum->changed);
		json_add_int(o, "windows_not_changed", sum->not_changed);
	}
	return o;
}

int record_judge_dir(const char *dir, const char *out_path, bool quiet, record_change_fn change, const void *arg,
		     const char *change_name, const char *change_catches, struct record_judgement *summary)
{
	struct dirent **names = NULL;
	struct record_judgement local = { 0 };
	struct judge_run j = { .dir = dir, .change = change, .arg = arg, .sum = summary ? summary : &local };
	struct kernel_model system = { 0 };
	int n = scandir(dir, &names, is_recording, alphasort), status = EXIT_USAGE;
	char why[512];
	bool made = false;

	memset(j.sum, 0, sizeof(*j.sum));
	if (n < 0) {
		rtt_cmd_err("judge", "%s: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	if (n == 0) {
		free(names);
		rtt_cmd_err("judge", "%s holds no recording (*%s): record one with 'rtthrottle run --record %s'", dir,
			    RECORD_SUFFIX, dir);
		return EXIT_USAGE;
	}
	j.opt = calloc(1, sizeof(*j.opt));
	snprintf(j.tmp_dir, sizeof(j.tmp_dir), "%s/rtthrottle-judge.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	made = j.opt && mkdtemp(j.tmp_dir);
	if (!made) {
		rtt_cmd_err("judge", "cannot make a folder for the tools' files: %s", j.opt ? strerror(errno) : "out of memory");
		goto out;
	}
	if (!scenario_read_catalogue())	/* it said why */
		goto out;
	j.ctx.root = document_for(dir, &system);
	json_object_object_get_ex(j.ctx.root, "results", &j.ctx.results);
	progress_begin(quiet, n);
	ktap_plan(n);
	for (int i = 0; i < n; i++) {
		if (!judge_recording(&j, names[i]->d_name, why, sizeof(why))) {
			rtt_cmd_err("judge", "%s/%s: %s", dir, names[i]->d_name, why);
			goto out_root;
		}
		progress_advance(1);
	}
	j.sum->passed = j.ctx.passed;
	j.sum->failed = j.ctx.failed - j.ctx.errors;
	j.sum->unjudged = j.ctx.skipped;
	j.sum->errors = j.ctx.errors;
	json_object_object_add(j.ctx.root, "judged_again", rejudged_json(dir, change_name, change_catches, j.sum));
	tables_add(j.ctx.root, j.ctx.results, &system);
	status = j.ctx.failed ? EXIT_CHECK_FAILED : j.ctx.skipped ? EXIT_NOT_JUDGED : EXIT_ALL_PASSED;
	if (out_path[0] && !results_write(j.ctx.root, out_path))
		status = EXIT_CHECK_FAILED;
	else if (out_path[0] && !quiet)
		rtt_err("results in %s", out_path);
out_root:
	json_object_put(j.ctx.root);
out:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (made)
		rmdir(j.tmp_dir);
	free(j.opt);
	return status;
}
