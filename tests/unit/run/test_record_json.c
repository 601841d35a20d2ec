// SPDX-License-Identifier: GPL-2.0-only
/* A recording's judging context through JSON and back: every field, doubles to the last bit. */
#include "record_json.h"
#include "unit.h"

#include <string.h>

/* Through the text a recording holds, as json-c writes and parses it. */
static json_object *through_text(json_object *o)
{
	json_object *back = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return back;
}

TEST(record_json_round_trip)
{
	struct kernel_model m = { .fair_server = true, .rt_bandwidth = true, .timer_thread_priority = 1,
				  .fs_runtime_us = 50000, .fs_period_us = 1000000, .tick_us = 4000.000000001 };
	struct noise_floor n = { .window_s = 3, .gap_max_us = 123.456789012345, .loss_share = 0.0281,
				 .cpu_loss_share = 1.0 / 3, .loop_ns = 25.5 };
	struct policy p = { .runtime_us = 475000, .period_us = 500000,
			    .grid = { .cell = 3, .cells = 42, .ratio = 0.95, .by_runtime = true },
			    .fair_server = { .set = true, .runtime_us = 0, .period_us = 1000000 } };
	struct window_align a = { .period_ns = 1000000000ull, .cut_ns = 12345678, .firing_ns = 987654321012345ull,
				  .after = { .armed = true, .last_in_ns = -5, .now_ns = 987654321099999ll } };
	struct kernel_model m2;
	struct noise_floor n2;
	struct policy p2;
	struct window_align a2;
	json_object *o;

	snprintf(m.basis, sizeof(m.basis), "6.18: fair server");
	snprintf(p.name, sizeof(p.name), "r0.95p500ms");
	CHECK(record_model_from(o = through_text(record_model_json(&m)), &m2), "model read");
	json_object_put(o);
	CHECK(m2.fair_server && !m2.fair_server_kernel && m2.rt_bandwidth && m2.timer_thread_priority == 1 &&
	      m2.fs_runtime_us == 50000 && m2.fs_period_us == 1000000 && !strcmp(m2.basis, m.basis), "model differs");
	CHECK(m2.tick_us == m.tick_us, "tick %.17g, want %.17g", m2.tick_us, m.tick_us);
	CHECK(record_noise_from(o = through_text(record_noise_json(&n)), &n2), "noise read");
	json_object_put(o);
	CHECK(n2.gap_max_us == n.gap_max_us && n2.cpu_loss_share == n.cpu_loss_share && n2.loop_ns == n.loop_ns,
	      "noise %.17g %.17g", n2.gap_max_us, n2.cpu_loss_share);
	CHECK(record_policy_from(o = through_text(record_policy_json(&p)), &p2), "policy read");
	json_object_put(o);
	CHECK(!strcmp(p2.name, p.name) && p2.runtime_us == p.runtime_us && p2.grid.cells == 42 && p2.grid.ratio == 0.95 &&
	      p2.grid.by_runtime && p2.fair_server.set && p2.fair_server.runtime_us == 0 &&
	      p2.fair_server.period_us == 1000000, "policy differs");
	CHECK(record_align_from(o = through_text(record_align_json(&a)), &a2), "align read");
	json_object_put(o);
	CHECK(a2.cut_ns == a.cut_ns && a2.firing_ns == a.firing_ns && a2.after.armed && a2.after.last_in_ns == -5 &&
	      a2.after.now_ns == a.after.now_ns, "align differs");
	CHECK(!record_model_from(NULL, &m2), "no object: refused");
}
