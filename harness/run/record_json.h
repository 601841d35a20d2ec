/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The judging context of a recording as JSON, both ways: every field, numbers as json-c writes
 * doubles (17 digits), so a window judged again reads the very values the live run judged by.
 */
#ifndef RTT_RECORD_JSON_H
#define RTT_RECORD_JSON_H

#include <stdbool.h>

#include <json-c/json.h>

#include "expect.h"
#include "kernel_model.h"
#include "policy.h"
#include "window.h"

json_object *record_model_json(const struct kernel_model *m);
json_object *record_noise_json(const struct noise_floor *n);
json_object *record_policy_json(const struct policy *p);
json_object *record_align_json(const struct window_align *a);
/* Each false when o is not such an object; absent fields read 0. */
bool record_model_from(json_object *o, struct kernel_model *m);
bool record_noise_from(json_object *o, struct noise_floor *n);
bool record_policy_from(json_object *o, struct policy *p);
bool record_align_from(json_object *o, struct window_align *a);

#endif
