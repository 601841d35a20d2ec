// SPDX-License-Identifier: GPL-2.0-only
/* Short forms of the json-c calls every writer and reader of results repeats. */
#include "json_util.h"

#include <math.h>

void json_add_int(json_object *obj, const char *key, int32_t v)
{
	json_object_object_add(obj, key, json_object_new_int(v));
}

void json_add_int64(json_object *obj, const char *key, int64_t v)
{
	json_object_object_add(obj, key, json_object_new_int64(v));
}

void json_add_double(json_object *obj, const char *key, double v)
{
	json_object_object_add(obj, key, json_object_new_double(v));
}

void json_add_str(json_object *obj, const char *key, const char *v)
{
	json_object_object_add(obj, key, json_object_new_string(v));
}

void json_add_bool(json_object *obj, const char *key, bool v)
{
	json_object_object_add(obj, key, json_object_new_boolean(v));
}

double json_get_number(json_object *obj, const char *key, double fallback)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return fallback;
	return json_object_get_double(v);
}

int64_t json_get_int64(json_object *obj, const char *key, int64_t fallback)
{
	double v = json_get_number(obj, key, NAN);

	/* Casting a double outside the range is undefined; 2^63 is exact as a double. */
	return isfinite(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : fallback;
}

const char *json_get_str(json_object *obj, const char *key, const char *fallback)
{
	json_object *v;

	return obj && json_object_object_get_ex(obj, key, &v) && v ? json_object_get_string(v) : fallback;
}
