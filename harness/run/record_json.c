// SPDX-License-Identifier: GPL-2.0-only
/* The judging context of a recording, both ways, by one table of fields per struct. */
#include "record_json.h"
#include "json_util.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum field_type { F_BOOL, F_INT, F_I64, F_U64, F_DOUBLE, F_TEXT };

struct field {
	const char *name;
	size_t offset;
	enum field_type type;
	size_t size;		/* F_TEXT: the buffer's */
};

#define FIELD(s, m, t) { #m, offsetof(s, m), t, sizeof(((s *)0)->m) }

static const struct field model_fields[] = {
	FIELD(struct kernel_model, fair_server, F_BOOL),
	FIELD(struct kernel_model, fair_server_kernel, F_BOOL),
	FIELD(struct kernel_model, rt_bandwidth, F_BOOL),
	FIELD(struct kernel_model, rt_runtime_share, F_BOOL),
	FIELD(struct kernel_model, timer_thread_priority, F_INT),
	FIELD(struct kernel_model, fs_runtime_us, F_I64),
	FIELD(struct kernel_model, fs_period_us, F_I64),
	FIELD(struct kernel_model, fs_from_debugfs, F_BOOL),
	FIELD(struct kernel_model, tick_us, F_DOUBLE),
	FIELD(struct kernel_model, basis, F_TEXT),
	{ 0 },
};

static const struct field noise_fields[] = {
	FIELD(struct noise_floor, window_s, F_DOUBLE),
	FIELD(struct noise_floor, gap_max_us, F_DOUBLE),
	FIELD(struct noise_floor, loss_share, F_DOUBLE),
	FIELD(struct noise_floor, cpu_loss_share, F_DOUBLE),
	FIELD(struct noise_floor, loop_ns, F_DOUBLE),
	{ 0 },
};

static const struct field policy_fields[] = {
	FIELD(struct policy, name, F_TEXT),
	FIELD(struct policy, runtime_us, F_I64),
	FIELD(struct policy, period_us, F_I64),
	{ "grid_cell", offsetof(struct policy, grid.cell), F_INT, sizeof(int) },
	{ "grid_cells", offsetof(struct policy, grid.cells), F_INT, sizeof(int) },
	{ "grid_ratio", offsetof(struct policy, grid.ratio), F_DOUBLE, sizeof(double) },
	{ "grid_by_runtime", offsetof(struct policy, grid.by_runtime), F_BOOL, sizeof(bool) },
	{ "fair_server_set", offsetof(struct policy, fair_server.set), F_BOOL, sizeof(bool) },
	{ "fair_server_runtime_us", offsetof(struct policy, fair_server.runtime_us), F_I64, sizeof(int64_t) },
	{ "fair_server_period_us", offsetof(struct policy, fair_server.period_us), F_I64, sizeof(int64_t) },
	{ 0 },
};

static const struct field align_fields[] = {
	FIELD(struct window_align, period_ns, F_U64),
	FIELD(struct window_align, cut_ns, F_U64),
	FIELD(struct window_align, firing_ns, F_U64),
	{ "after_armed", offsetof(struct window_align, after.armed), F_BOOL, sizeof(bool) },
	{ "after_last_in_ns", offsetof(struct window_align, after.last_in_ns), F_I64, sizeof(int64_t) },
	{ "after_now_ns", offsetof(struct window_align, after.now_ns), F_I64, sizeof(int64_t) },
	{ 0 },
};

static json_object *fields_json(const void *base, const struct field *f)
{
	json_object *o = json_object_new_object();

	for (; f->name; f++) {
		const char *at = (const char *)base + f->offset;

		switch (f->type) {
		case F_BOOL: json_add_bool(o, f->name, *(const bool *)at); break;
		case F_INT: json_add_int(o, f->name, *(const int *)at); break;
		case F_I64: json_add_int64(o, f->name, *(const int64_t *)at); break;
		/* Nanoseconds of CLOCK_MONOTONIC fit an int64 for centuries. */
		case F_U64: json_add_int64(o, f->name, (int64_t)*(const uint64_t *)at); break;
		case F_DOUBLE: json_add_double(o, f->name, *(const double *)at); break;
		case F_TEXT: json_add_str(o, f->name, at); break;
		}
	}
	return o;
}

static bool fields_from(json_object *o, void *base, const struct field *f)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return false;
	for (; f->name; f++) {
		char *at = (char *)base + f->offset;
		json_object *v = NULL;

		json_object_object_get_ex(o, f->name, &v);
		switch (f->type) {
		case F_BOOL: *(bool *)at = json_object_get_boolean(v); break;
		case F_INT: *(int *)at = json_object_get_int(v); break;
		case F_I64: *(int64_t *)at = json_object_get_int64(v); break;
		case F_U64: *(uint64_t *)at = (uint64_t)json_object_get_int64(v); break;
		case F_DOUBLE: *(double *)at = json_object_get_double(v); break;
		case F_TEXT: snprintf(at, f->size, "%s", v ? json_object_get_string(v) : ""); break;
		}
	}
	return true;
}

json_object *record_model_json(const struct kernel_model *m) { return fields_json(m, model_fields); }
json_object *record_noise_json(const struct noise_floor *n) { return fields_json(n, noise_fields); }
json_object *record_policy_json(const struct policy *p) { return fields_json(p, policy_fields); }
json_object *record_align_json(const struct window_align *a) { return fields_json(a, align_fields); }

bool record_model_from(json_object *o, struct kernel_model *m)
{
	memset(m, 0, sizeof(*m));
	return fields_from(o, m, model_fields);
}

bool record_noise_from(json_object *o, struct noise_floor *n)
{
	memset(n, 0, sizeof(*n));
	return fields_from(o, n, noise_fields);
}

bool record_policy_from(json_object *o, struct policy *p)
{
	memset(p, 0, sizeof(*p));
	return fields_from(o, p, policy_fields);
}

bool record_align_from(json_object *o, struct window_align *a)
{
	memset(a, 0, sizeof(*a));
	return fields_from(o, a, align_fields);
}
