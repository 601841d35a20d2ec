// SPDX-License-Identifier: GPL-2.0-only
/*
 * The export front: the options `run` and `export` share, checks on them, and the atomic writes.
 * One table names the formats (as stress-ng's names its stressors); everything here iterates it.
 */
#include "export.h"
#include "results.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A results document as text with its closing newline; takes doc. NULL when out of memory. */
static char *json_text(json_object *doc)
{
	const char *text = doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									  JSON_C_TO_STRING_NOSLASHESCAPE)
			       : NULL;
	char *with_newline = NULL;

	if (text && asprintf(&with_newline, "%s\n", text) < 0)
		with_newline = NULL;
	json_object_put(doc);
	return with_newline;
}

static char *junit_text(json_object *root, const struct export_options *o)
{
	(void)o;
	return export_junit(root);
}

static char *kcidb_text(json_object *root, const struct export_options *o)
{
	return json_text(export_kcidb(root, o->kcidb_origin ? o->kcidb_origin : KCIDB_ORIGIN_DEFAULT,
				      o->kcidb_build_id));
}

static char *rttests_text(json_object *root, const struct export_options *o)
{
	(void)o;
	return json_text(export_rttests(root));
}

static char *lava_text(json_object *root, const struct export_options *o)
{
	(void)o;
	return export_lava(root);
}

static const struct exporter {
	int opt;		/* its getopt code (EXPORT_LONG_OPTIONS) */
	const char *option;	/* its option, in messages */
	const char *what;	/* the format, in messages */
	size_t path;		/* offset of its path in struct export_options */
	char *(*text)(json_object *root, const struct export_options *o);	/* NULL: out of memory */
} exporters[] = {
	{ EXPORT_OPT_JUNIT, "--junit", "JUnit XML", offsetof(struct export_options, junit), junit_text },
	{ EXPORT_OPT_KCIDB, "--kcidb", "KCIDB JSON", offsetof(struct export_options, kcidb), kcidb_text },
	{ EXPORT_OPT_RTTESTS, "--rt-tests-json", "rt-tests JSON", offsetof(struct export_options, rttests),
	  rttests_text },
	{ EXPORT_OPT_LAVA, "--lava", "lava-test-case lines", offsetof(struct export_options, lava), lava_text },
};
#define EXPORTERS (sizeof(exporters) / sizeof(exporters[0]))

static const char **path_of(const struct export_options *o, const struct exporter *e)
{
	return (const char **)((const char *)o + e->path);
}

bool export_option(struct export_options *o, int c, const char *arg)
{
	for (size_t i = 0; i < EXPORTERS; i++)
		if (c == exporters[i].opt)
			return *path_of(o, &exporters[i]) = arg, true;
	switch (c) {
	case EXPORT_OPT_ORIGIN: o->kcidb_origin = arg; return true;
	case EXPORT_OPT_BUILD_ID: o->kcidb_build_id = arg; return true;
	default: return false;
	}
}

bool export_wanted(const struct export_options *o)
{
	for (size_t i = 0; i < EXPORTERS; i++)
		if (*path_of(o, &exporters[i]))
			return true;
	return false;
}

static bool matches(const char *text, const char *pattern)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return false;
	ok = !regexec(&re, text, 0, NULL, 0);
	regfree(&re);
	return ok;
}

bool export_options_check(const struct export_options *o, const char *command, const char *also,
			  const char *also_name)
{
	const char *paths[EXPORTERS + 1], *names[EXPORTERS + 1];
	char why[PATH_MAX + 64];

	for (size_t i = 0; i < EXPORTERS; i++) {
		paths[i] = *path_of(o, &exporters[i]);
		names[i] = exporters[i].option;
	}
	paths[EXPORTERS] = also;
	names[EXPORTERS] = also_name;
	/* KCIDB v5: origin [a-z0-9_]+; every id is ORIGIN:ANYTHING. */
	if (o->kcidb_origin && !matches(o->kcidb_origin, "^[a-z0-9_]+$")) {
		rtt_cmd_err(command, "--kcidb-origin '%s': KCIDB wants lowercase letters, digits and _ only", o->kcidb_origin);
		return false;
	}
	if (o->kcidb_build_id && !matches(o->kcidb_build_id, "^[a-z0-9_]+:.+$")) {
		rtt_cmd_err(command, "--kcidb-build-id '%s': KCIDB wants ORIGIN:ID (e.g. myci:build-1234)", o->kcidb_build_id);
		return false;
	}
	for (size_t i = 0; i < EXPORTERS; i++) {
		if (!paths[i])
			continue;
		for (size_t k = i + 1; k <= EXPORTERS; k++)
			if (paths[k] && !strcmp(paths[i], paths[k])) {
				rtt_cmd_err(command, "%s %s: the same file as %s", names[i], paths[i],
					names[k]);
				return false;
			}
		if (strlen(paths[i]) >= PATH_MAX - 32) {
			rtt_cmd_err(command, "%s: path too long", names[i]);
			return false;
		}
		if (!results_path_writable(paths[i], why, sizeof(why))) {
			rtt_cmd_err(command, "%s %s: cannot write there: %s", names[i], paths[i], why);
			return false;
		}
	}
	return true;
}

static bool write_text(const char *path, const char *what, const char *text)
{
	size_t len = text ? strlen(text) : 0;
	int err = text ? write_file_atomic(path, text, len) : ENOMEM;

	if (err)
		rtt_err("cannot write %s to %s: %s", what, path, strerror(err));
	else
		rtt_err("%s in %s", what, path);
	return !err;
}

bool export_write_all(json_object *root, const struct export_options *o)
{
	bool ok = true;

	for (size_t i = 0; i < EXPORTERS; i++) {
		const char *path = *path_of(o, &exporters[i]);
		char *text;

		if (!path)
			continue;
		text = exporters[i].text(root, o);
		ok &= write_text(path, exporters[i].what, text);
		free(text);
	}
	return ok;
}
