// SPDX-License-Identifier: GPL-2.0-only
/* The roles that write their own metrics; every other role's are metrics.c's own. */
#include "role_metrics.h"
#include "cyclictest.h"
#include "load.h"
#include "timerlat.h"

const struct role_metrics role_metrics[] = {
	{ ROLE_CYCLICTEST, cyclictest_metrics_json },
	{ ROLE_LOAD, load_metrics_json },
	{ ROLE_TIMERLAT, timerlat_metrics_json },
	{ ROLE_COUNT, NULL },
};
