// SPDX-License-Identifier: GPL-2.0-only
/* The error lines every command writes: who speaks, the message, and where to read more. */
#include "util.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <string.h>

/* What fn(ctx) wrote to stderr, in out; false (after a failed check) when it could not be caught. */
static bool captured(void (*fn)(void *ctx), void *ctx, char *out, size_t len)
{
	char dir[64];
	struct stderr_capture cap;

	if (!make_temp_dir(dir, sizeof(dir)))
		return false;
	if (!stderr_capture_begin(&cap, dir)) {
		remove_temp_dir(dir);
		return false;
	}
	fn(ctx);
	stderr_capture_end(&cap, out, len);
	remove_temp_dir(dir);
	return true;
}

/* What a message is given, and what a usage error returned. */
struct say {
	int n;
	int status;
};

static void say_cmd_err(void *ctx)
{
	rtt_cmd_err("compare", "--json %s: cannot write: %d", "x.json", ((struct say *)ctx)->n);
}

static void say_err(void *ctx)
{
	rtt_err("step %d of 2: refused", ((struct say *)ctx)->n);
}

static void say_usage(void *ctx)
{
	struct say *say = ctx;

	say->status = usage_error("export", "unknown option '--%d'", say->n);
}

TEST(command_errors_name_the_command_and_end_the_line)
{
	char out[256];
	struct say five = { .n = 5 }, one = { .n = 1 };

	if (captured(say_cmd_err, &five, out, sizeof(out)))
		CHECK(!strcmp(out, "rtthrottle compare: --json x.json: cannot write: 5\n"), "got '%s'", out);
	if (captured(say_err, &one, out, sizeof(out)))
		CHECK(!strcmp(out, "rtthrottle: step 1 of 2: refused\n"), "got '%s'", out);
}

TEST(usage_errors_point_to_the_commands_help_and_exit_2)
{
	char out[256];
	struct say seven = { .n = 7, .status = -1 };

	if (captured(say_usage, &seven, out, sizeof(out)))
		CHECK(!strcmp(out, "rtthrottle export: unknown option '--7'\n(see 'rtthrottle export --help')\n") &&
			      seven.status == EXIT_USAGE && EXIT_USAGE == 2,
		      "got '%s', status %d", out, seven.status);
}
