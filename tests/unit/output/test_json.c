// SPDX-License-Identifier: GPL-2.0-only
/* JSON in and out: the knobs, the results document and the state file (all in temp folders). */
#include "knobs.h"
#include "results.h"
#include "state.h"
#include "unit.h"
#include "unit_fixtures.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs(text, f);
	return fclose(f) == 0;
}

static bool from_text(const char *text, struct knobs *out)
{
	json_object *obj = json_tokener_parse(text);
	bool ok = knobs_from_json(obj, out);

	json_object_put(obj);
	return ok;
}

TEST(json_knobs_round_trip)
{
	static const struct knobs cases[] = {
		{ { 950000, 1000000, 950000, 1000000 }, true, false },
		{ { -1, 1000000, -1, 1000000 }, true, false },
		{ { -1, 200000, 190000, 200000 }, true, false },
		{ { 950000, 1000000, 0, 0 }, false, false },
		{ { -1, 2147483647, 0, 0 }, false, false },
		{ { INT64_MAX, INT64_MIN, 1, -1 }, true, false },
		{ { 950000, 1000000, 950000, 1000000, 50000000, 1000000000 }, true, true },
		{ { -1, 1000000, 0, 0, 0, 1000000000 }, false, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *obj = knobs_to_json(&cases[i]);
		json_object *reparsed = json_tokener_parse(json_object_to_json_string(obj));
		struct knobs back;

		CHECK(json_object_object_length(obj) == 2 + 2 * cases[i].has_cgroup + 2 * cases[i].has_fair_server,
		      "case %zu: %d fields", i, json_object_object_length(obj));
		CHECK(json_object_object_get_ex(obj, "fair_server_runtime_ns", NULL) == cases[i].has_fair_server,
		      "case %zu: fair server field presence", i);
		CHECK(json_object_object_get_ex(obj, "sched_rt_runtime_us", NULL) &&
			      json_object_object_get_ex(obj, "sched_rt_period_us", NULL),
		      "case %zu: sysctl fields missing", i);
		CHECK(json_object_object_get_ex(obj, "cgroup_rt_runtime_us", NULL) == cases[i].has_cgroup,
		      "case %zu: cgroup field presence", i);
		memset(&back, 0x5a, sizeof(back));
		CHECK(knobs_from_json(reparsed, &back), "case %zu: does not parse back", i);
		CHECK(back.has_cgroup == cases[i].has_cgroup && back.has_fair_server == cases[i].has_fair_server &&
			      knobs_equal(&back, &cases[i]),
		      "case %zu: round trip differs", i);
		if (cases[i].has_fair_server)
			CHECK(back.value[KNOB_FAIR_SERVER_RUNTIME] == cases[i].value[KNOB_FAIR_SERVER_RUNTIME] &&
				      back.value[KNOB_FAIR_SERVER_PERIOD] == cases[i].value[KNOB_FAIR_SERVER_PERIOD],
			      "case %zu: fair server differs", i);
		if (!cases[i].has_cgroup)
			CHECK(back.value[KNOB_CGROUP_RUNTIME] == 0 && back.value[KNOB_CGROUP_PERIOD] == 0,
			      "case %zu: cgroup slots not cleared", i);
		json_object_put(obj);
		json_object_put(reparsed);
	}
}

TEST(json_knobs_malformed)
{
	struct knobs k;

	CHECK(from_text("{\"sched_rt_runtime_us\": 950000, \"sched_rt_period_us\": 1000000}", &k) && !k.has_cgroup &&
		      k.value[KNOB_SYSCTL_RUNTIME] == 950000,
	      "a well-formed sysctl-only object refused");
	CHECK(!from_text("{\"sched_rt_runtime_us\": 950000}", &k), "missing period accepted");
	CHECK(!from_text("{\"sched_rt_period_us\": 1000000}", &k), "missing runtime accepted");
	CHECK(!from_text("{}", &k), "empty object accepted");
	CHECK(!from_text("{\"sched_rt_runtime_us\": \"950000\", \"sched_rt_period_us\": 1000000}", &k),
	      "string runtime accepted");
	CHECK(!from_text("{\"sched_rt_runtime_us\": 950000.5, \"sched_rt_period_us\": 1000000}", &k),
	      "fractional runtime accepted");
	CHECK(!from_text("{\"sched_rt_runtime_us\": null, \"sched_rt_period_us\": 1000000}", &k), "null runtime accepted");
	CHECK(!from_text("{\"sched_rt_runtime_us\": true, \"sched_rt_period_us\": 1000000}", &k), "bool runtime accepted");
	/* A cgroup runtime without its period is half a pair. */
	CHECK(!from_text("{\"sched_rt_runtime_us\": 950000, \"sched_rt_period_us\": 1000000,"
			 " \"cgroup_rt_runtime_us\": 950000}",
			 &k),
	      "cgroup runtime without period accepted");
	CHECK(!from_text("{\"sched_rt_runtime_us\": 950000, \"sched_rt_period_us\": 1000000,"
			 " \"cgroup_rt_runtime_us\": 950000, \"cgroup_rt_period_us\": [1]}",
			 &k),
	      "array cgroup period accepted");
	CHECK(!from_text("[950000, 1000000]", &k), "array accepted");
	CHECK(!from_text("950000", &k), "number accepted");
	CHECK(!knobs_from_json(NULL, &k), "NULL accepted");
}

TEST(json_knobs_equal)
{
	struct knobs a = make_knobs(950000, 1000000, 950000, 1000000, true);
	struct knobs b = a;

	CHECK(knobs_equal(&a, &b), "equal knobs differ");
	b.value[KNOB_CGROUP_PERIOD] = 200000;
	CHECK(!knobs_equal(&a, &b), "cgroup period ignored");
	b = a;
	b.has_cgroup = false;
	CHECK(!knobs_equal(&a, &b) && !knobs_equal(&b, &a), "cgroup presence ignored");
	/* Without the cgroup its slots do not count. */
	a = make_knobs(950000, 1000000, 1, 2, false);
	b = make_knobs(950000, 1000000, 3, 4, false);
	CHECK(knobs_equal(&a, &b), "unused cgroup slots compared");
	b.value[KNOB_SYSCTL_RUNTIME] = -1;
	CHECK(!knobs_equal(&a, &b), "sysctl runtime ignored");
}

static json_object *get_path(json_object *root, const char *a, const char *b)
{
	json_object *v = NULL, *w = NULL;

	if (!root || !json_object_object_get_ex(root, a, &v))
		return NULL;
	if (!b)
		return v;
	return json_object_object_get_ex(v, b, &w) ? w : NULL;
}

static bool looks_utc(const char *s)
{
	/* 2026-12-03T08:40:00Z */
	return s && strlen(s) == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' &&
	       s[19] == 'Z';
}

TEST(json_results_write_and_read_back)
{
	char dir[64], path[PATH_MAX], why[256] = "";
	json_object *root, *back, *v;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	root = results_new("20261203T084000Z-testhost", "rtthrottle run --out /tmp/x/results.json");
	v = get_path(root, "run", "complete");
	CHECK(v && json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v),
	      "a new document is complete");
	CHECK(!get_path(root, "run", "end"), "a new document has an end");
	CHECK(looks_utc(json_object_get_string(get_path(root, "run", "start"))), "start '%s'",
	      json_object_get_string(get_path(root, "run", "start")));
	results_finish(root, true, NULL);

	snprintf(path, sizeof(path), "%s/results.json", dir);
	CHECK(results_path_writable(path, why, sizeof(why)), "temp folder not writable: %s", why);
	CHECK(count_entries(dir) == 0, "results_path_writable left %d files", count_entries(dir));
	CHECK(results_write(root, path), "results_write failed");
	json_object_put(root);
	CHECK(count_entries(dir) == 1, "%d files after the write (temp file left?)", count_entries(dir));

	back = json_object_from_file(path);
	CHECK(back != NULL, "cannot read %s back", path);
	v = get_path(back, "schema_version", NULL);
	CHECK(v && json_object_is_type(v, json_type_int) && json_object_get_int(v) == RESULTS_SCHEMA_VERSION,
	      "schema_version %s", v ? json_object_to_json_string(v) : "missing");
	CHECK(RESULTS_SCHEMA_VERSION == 1, "schema version %d", RESULTS_SCHEMA_VERSION);
	v = get_path(back, "run", "complete");
	CHECK(v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v), "run.complete not true");
	v = get_path(back, "run", "id");
	CHECK(v && !strcmp(json_object_get_string(v), "20261203T084000Z-testhost"), "run.id");
	v = get_path(back, "run", "cmdline");
	CHECK(v && !strcmp(json_object_get_string(v), "rtthrottle run --out /tmp/x/results.json"), "run.cmdline");
	CHECK(looks_utc(json_object_get_string(get_path(back, "run", "end"))), "run.end '%s'",
	      json_object_get_string(get_path(back, "run", "end")));
	CHECK(!get_path(back, "run", "stop_reason"), "stop_reason without a reason");
	v = get_path(back, "tool", "name");
	CHECK(v && !strcmp(json_object_get_string(v), "rtthrottle"), "tool.name");
	CHECK(get_path(back, "tool", "version") && get_path(back, "tool", "git_commit"), "tool version/commit");
	v = get_path(back, "results", NULL);
	CHECK(v && json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0, "results array");
	json_object_put(back);

	/* The text: pretty, slashes unescaped, one trailing newline. */
	{
		char text[8192];
		int fd = open(path, O_RDONLY);
		ssize_t got = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

		if (fd >= 0)
			close(fd);
		CHECK(got > 2, "cannot read the text back");
		if (got > 2) {
			text[got] = '\0';
			CHECK(text[got - 1] == '\n' && text[got - 2] != '\n', "no single trailing newline");
			CHECK(strstr(text, "/tmp/x/results.json") != NULL, "slashes escaped");
			CHECK(strchr(text, '\n') < text + got - 1, "not pretty-printed");
		}
	}

	/* An interrupted run: incomplete with its reason; the rewrite replaces the file. */
	root = results_new("r2", "x");
	results_finish(root, false, "interrupted by SIGINT");
	CHECK(results_write(root, path), "second write failed");
	json_object_put(root);
	back = json_object_from_file(path);
	v = get_path(back, "run", "complete");
	CHECK(v && !json_object_get_boolean(v), "interrupted run complete");
	v = get_path(back, "run", "stop_reason");
	CHECK(v && !strcmp(json_object_get_string(v), "interrupted by SIGINT"), "stop_reason");
	v = get_path(back, "run", "id");
	CHECK(v && !strcmp(json_object_get_string(v), "r2"), "file not replaced");
	json_object_put(back);
	CHECK(count_entries(dir) == 1, "%d files after the rewrite", count_entries(dir));

	remove_temp_dir(dir);
}

TEST(json_results_unwritable_paths)
{
	char dir[64], path[PATH_MAX], why[256];
	json_object *root;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/no-such-folder/results.json", dir);
	why[0] = '\0';
	CHECK(!results_path_writable(path, why, sizeof(why)), "a missing folder is writable");
	CHECK(why[0] && strstr(why, "no-such-folder"), "the reason does not name the folder: '%s'", why);
	root = results_new("r", "x");
	CHECK(!results_write(root, path), "results_write into a missing folder succeeded");
	json_object_put(root);
	CHECK(access(path, F_OK) != 0, "a file appeared");
	CHECK(count_entries(dir) == 0, "%d files left in the temp folder", count_entries(dir));
	remove_temp_dir(dir);
}

TEST(json_state_save_load)
{
	char dir[64], path[PATH_MAX];
	char *saved_env;
	struct knobs original = make_knobs(950000, 1000000, 950000, 1000000, true), back;
	pid_t owner = 0;

	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	saved_env = env_set("RTTHROTTLE_STATE_DIR", dir);
	CHECK(!strcmp(state_dir(), dir), "state_dir %s, want %s", state_dir(), dir);
	snprintf(path, sizeof(path), "%s/state.json", dir);
	CHECK(!strcmp(state_file_path(), path), "state_file_path %s", state_file_path());

	/* No file: nothing to load. */
	CHECK(state_load(&back, &owner) == 0, "no state file does not give 0");

	/* A malformed file, then valid JSON of the wrong shape. */
	CHECK(write_file(path, "{ this is not json"), "cannot write %s", path);
	CHECK(state_load(&back, &owner) == -1, "malformed state does not give -1");
	CHECK(write_file(path, "{\"pid\": 12, \"knobs\": {\"sched_rt_runtime_us\": \"x\"}}"), "cannot write");
	CHECK(state_load(&back, &owner) == -1, "mistyped knobs do not give -1");
	CHECK(write_file(path, "{\"knobs\": {\"sched_rt_runtime_us\": 1, \"sched_rt_period_us\": 2}}"), "cannot write");
	CHECK(state_load(&back, &owner) == -1, "a state without pid does not give -1");

	/* Save, load, compare. */
	CHECK(state_save(&original, 4242), "state_save failed");
	memset(&back, 0, sizeof(back));
	owner = 0;
	CHECK(state_load(&back, &owner) == 1, "saved state does not load");
	CHECK(owner == 4242, "owner %d", (int)owner);
	CHECK(back.has_cgroup && knobs_equal(&back, &original), "loaded knobs differ");

	/* Without the cgroup, and with -1. */
	original = make_knobs(-1, 1000000, 0, 0, false);
	CHECK(state_save(&original, 7), "second state_save failed");
	CHECK(state_load(&back, &owner) == 1 && owner == 7 && !back.has_cgroup && knobs_equal(&back, &original),
	      "sysctl-only state does not round trip");
	CHECK(count_entries(dir) == 1, "%d files after saving (temp file left?)", count_entries(dir));

	state_remove();
	CHECK(access(path, F_OK) != 0, "state file still there");
	CHECK(state_load(&back, &owner) == 0, "removed state still loads");
	state_remove();	/* removing twice is harmless */

	/* The run lock: held once, refused while held, free again once closed. */
	{
		int fd = state_lock(), fd2;
		char lock_path[PATH_MAX], text[32] = "";

		CHECK(fd >= 0, "state_lock failed");
		fd2 = state_lock();
		CHECK(fd2 < 0, "the lock was taken twice");
		if (fd2 >= 0)
			close(fd2);
		/* A run that writes no knobs takes the existing lock read-only, and is refused too. */
		fd2 = state_lock_if_present();
		CHECK(fd2 == -1, "a held lock was taken read-only (%d)", fd2);
		if (fd2 >= 0)
			close(fd2);
		snprintf(lock_path, sizeof(lock_path), "%s/lock", dir);
		{
			int lfd = open(lock_path, O_RDONLY);
			ssize_t got = lfd >= 0 ? read(lfd, text, sizeof(text) - 1) : -1;

			if (lfd >= 0)
				close(lfd);
			text[got > 0 ? got : 0] = '\0';
			CHECK(atoi(text) == (int)getpid(), "lock holds '%s', want pid %d", text, (int)getpid());
		}
		if (fd >= 0)
			close(fd);
		fd = state_lock_if_present();
		CHECK(fd >= 0, "the free lock was not taken read-only (%d)", fd);
		if (fd >= 0)
			close(fd);
		fd = state_lock();
		CHECK(fd >= 0, "the lock is not free after close");
		if (fd >= 0)
			close(fd);
	}

	/* A state folder that cannot hold the file. */
	{
		char missing[PATH_MAX];

		snprintf(missing, sizeof(missing), "%s/missing", dir);
		setenv("RTTHROTTLE_STATE_DIR", missing, 1);
		CHECK(!state_save(&original, 1), "state_save into a missing folder succeeded");
		CHECK(state_lock_if_present() == -2, "a missing lock file was not told apart");
		CHECK(state_load(&back, &owner) == 0, "a missing folder has a state");
	}

	env_restore("RTTHROTTLE_STATE_DIR", saved_env);
	remove_temp_dir(dir);
}
