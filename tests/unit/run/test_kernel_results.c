// SPDX-License-Identifier: GPL-2.0-only
/* The run's results about the kernel (kernel_results.c): a regime-probe disagreement fails. */
#include "kernel_results.h"
#include "report.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* stdout into a temp file while `fn` prints KTAP; the text in buf. */
static void capture_stdout(void (*fn)(struct run_ctx *), struct run_ctx *ctx, char *buf, size_t len)
{
	char dir[256], path[300];
	int saved, fd;
	ssize_t n;

	buf[0] = '\0';
	if (!make_temp_dir(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/stdout.txt", dir);
	fflush(stdout);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	saved = dup(1);
	if (fd < 0 || saved < 0 || dup2(fd, 1) < 0) {
		CHECK(0, "cannot redirect stdout: %s", strerror(errno));
		return;
	}
	fn(ctx);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	remove_temp_dir(dir);
}

static void emit_regime(struct run_ctx *ctx)
{
	kernel_results_regime(ctx, NULL, NULL);
}

static void emit_regime_skipped(struct run_ctx *ctx)
{
	kernel_results_regime(ctx, "--probe-seconds 0: not asked for", NULL);
}

TEST(regime_disagreement_is_a_failed_result)
{
	struct kernel_facts k;
	struct run_ctx ctx;
	json_object *res;
	char out[4096];

	memset(&ctx, 0, sizeof(ctx));
	k = make_kernel_facts(6, 18, 1, 250);
	progress_begin(true, 1);
	kernel_model_predict(&k, &ctx.model);
	ctx.kernel_results = json_object_new_array();
	/* Throttling predicted, a lone hog ran unthrottled. */
	ctx.observed = make_regime_probe(&ctx.model, 0.0505);
	ctx.observed.hog_alone_gap_max_us = 900;
	regime_observation_judge(&ctx.model, &ctx.observed);
	capture_stdout(emit_regime, &ctx, out, sizeof(out));
	CHECK(strstr(out, "not ok 1 regime-probe\n") && strstr(out, "    not ok 1 probe.hog_alone_gap_max_us"), "%s", out);
	CHECK(strstr(out, "# regime-probe: the kernel does not behave as predicted"), "%s", out);
	CHECK(ctx.failed == 1 && ctx.errors == 0, "counted as a failure: failed %d, errors %d", ctx.failed, ctx.errors);
	res = json_object_array_get_idx(ctx.kernel_results, 0);
	CHECK(res && !strcmp(json_object_get_string(json_object_object_get(res, "verdict")), "fail") &&
	      !strcmp(json_object_get_string(json_object_object_get(res, "name")), "regime-probe") &&
	      json_object_object_get(res, "evidence"), "%s", json_object_to_json_string(res));
	/* Skipped on request: SKIP with why, not counted. */
	capture_stdout(emit_regime_skipped, &ctx, out, sizeof(out));
	CHECK(strstr(out, "ok 2 regime-probe # SKIP --probe-seconds 0: not asked for"), "%s", out);
	CHECK(ctx.failed == 1 && ctx.passed == 0 && ctx.skipped == 0, "a requested skip counts nowhere");
	/* An agreeing probe passes. */
	ctx.observed = make_regime_probe(&ctx.model, 0.0505);
	capture_stdout(emit_regime, &ctx, out, sizeof(out));
	CHECK(strstr(out, "ok 3 regime-probe\n") && !strstr(out, "not ok"), "%s", out);
	json_object_put(ctx.kernel_results);
}
