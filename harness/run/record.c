// SPDX-License-Identifier: GPL-2.0-only
/* Writes a window's recording (record.h); record_judge.c reads them back. */
#include "record.h"
#include "record_json.h"
#include "json_util.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int recorded_windows;	/* numbers the files, in the order the results are */

bool record_dir_prepare(const char *dir)
{
	int err = make_dirs(dir, 0755);

	if (err)
		rtt_cmd_err("run", "--record %s: cannot make the folder: %s", dir, strerror(err));
	return !err;
}

/* A file an external tool wrote for the harness to read (cyclictest's JSON, rtla's histogram), as a string. */
static json_object *file_json(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;
	json_object *o = NULL;

	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) >= 0)
		o = json_object_new_string(text);
	free(text);
	fclose(f);
	return o;
}

static json_object *files_json(const struct window_shm *shm, int count)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < count; i++) {
		const struct task_record *t = &shm->task[i];
		json_object *content, *o;

		if ((t->config.role != ROLE_CYCLICTEST && t->config.role != ROLE_TIMERLAT) || !t->u.external.output[0] ||
		    !(content = file_json(t->u.external.output)))
			continue;
		o = json_object_new_object();
		json_add_int(o, "task", i);
		json_object_object_add(o, "content", content);
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *context_json(const struct run_ctx *ctx, const struct window_taken *w)
{
	json_object *o = json_object_new_object();

	json_add_int(o, "format", RECORD_FORMAT);
	json_add_str(o, "commit", RTT_GIT_COMMIT);
	json_add_int64(o, "task_record_bytes", (int64_t)sizeof(struct task_record));
	json_add_str(o, "name", w->name);
	json_add_str(o, "scenario", w->scenario->name);
	json_add_str(o, "scenario_source", w->scenario->source);
	json_object_object_add(o, "policy", record_policy_json(w->policy));
	json_add_int(o, "sweep", w->sweep);
	json_add_int(o, "count", w->count);
	json_add_int(o, "traced", w->traced);
	json_add_double(o, "window_s", w->window_s);
	json_object_object_add(o, "align", record_align_json(w->align));
	json_add_int(o, "cpu", ctx->opt->cpu);
	json_object_object_add(o, "model", record_model_json(&ctx->model));
	json_object_object_add(o, "noise", record_noise_json(&ctx->noise));
	json_add_double(o, "steal_us", ctx->last_steal_us);
	json_add_double(o, "timer_irqs", ctx->last_timer_irqs);
	json_add_double(o, "others_us", ctx->last_others_us);
	json_object_object_add(o, "files", files_json(ctx->shm, w->count));
	json_object_object_add(o, "res", json_object_get(w->res));
	json_object_object_add(o, "trace", json_object_get(w->trace));
	return o;
}

static bool write_all(gzFile gz, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		unsigned step = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		int n = gzwrite(gz, p, step);

		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool write_recording(const char *path, const struct run_ctx *ctx, const struct window_taken *w)
{
	json_object *context = context_json(ctx, w);
	const char *text = json_object_to_json_string_ext(context, JSON_C_TO_STRING_PLAIN);
	gzFile gz = gzopen(path, "wb6");
	bool ok = gz && gzprintf(gz, "rtthrottle-record %d\n", RECORD_FORMAT) > 0 && write_all(gz, text, strlen(text)) &&
		  write_all(gz, "\n", 1) && write_all(gz, ctx->shm, offsetof(struct window_shm, task)) &&
		  write_all(gz, ctx->shm->task, (size_t)w->count * sizeof(struct task_record));

	if (gz && gzclose(gz) != Z_OK)
		ok = false;
	json_object_put(context);
	return ok;
}

void record_window(const struct run_ctx *ctx, const struct window_taken *w, char *path, size_t path_len)
{
	char safe[sizeof(w->name)];

	snprintf(safe, sizeof(safe), "%s", w->name);
	for (char *c = safe; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
	path[0] = '\0';
	if (snprintf(path, path_len, "%s/%04d-%s%s", ctx->opt->record_dir, ++recorded_windows, safe, RECORD_SUFFIX) >=
	    (int)path_len) {
		rtt_err("warning: %s: recording path too long, not recorded", w->name);
		path[0] = '\0';
		return;
	}
	if (!write_recording(path, ctx, w)) {
		rtt_err("warning: %s: cannot write %s: %s; the window is judged but not recorded", w->name, path,
			strerror(errno));
		unlink(path);
		path[0] = '\0';
	}
}

void record_discard(const char *path)
{
	if (path[0])
		unlink(path);
}

void record_run_document(const char *dir, json_object *root, const struct kernel_model *model)
{
	char path[PATH_MAX];
	json_object *copy = NULL;

	if (snprintf(path, sizeof(path), "%s/run.json", dir) >= (int)sizeof(path) ||
	    json_object_deep_copy(root, &copy, NULL)) {
		rtt_err("warning: cannot write %s/run.json", dir);
		return;
	}
	/* The system's model, which the summary tables of a document judged again are built by. */
	json_object_object_add(copy, "recording_model", record_model_json(model));
	if (json_object_to_file_ext(path, copy, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE))
		rtt_err("warning: cannot write %s: %s", path, json_util_get_last_err());
	json_object_put(copy);
}
