/* SPDX-License-Identifier: GPL-2.0-only */
/* Short forms of the json-c calls every writer and reader of results repeats. */
#ifndef RTT_JSON_UTIL_H
#define RTT_JSON_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

/* obj[key] = v (json-c's own types: int is 32 bits, int64 64). */
void json_add_int(json_object *obj, const char *key, int32_t v);
void json_add_int64(json_object *obj, const char *key, int64_t v);
void json_add_double(json_object *obj, const char *key, double v);
void json_add_str(json_object *obj, const char *key, const char *v);
void json_add_bool(json_object *obj, const char *key, bool v);

/* obj[key] when it is a number (int or double), else fallback. */
double json_get_number(json_object *obj, const char *key, double fallback);
/* A number field truncated to an int64_t; fallback when absent, not a number or out of its range. */
int64_t json_get_int64(json_object *obj, const char *key, int64_t fallback);
/* obj[key] as a string when present, else fallback. */
const char *json_get_str(json_object *obj, const char *key, const char *fallback);

#endif
