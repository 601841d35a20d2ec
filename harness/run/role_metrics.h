/* SPDX-License-Identifier: GPL-2.0-only */
/* Which file writes the metrics of which role, for metrics_to_json (measure/metrics.h). */
#ifndef RTT_ROLE_METRICS_H
#define RTT_ROLE_METRICS_H

#include "metrics.h"

/* Ends with a NULL writer. */
extern const struct role_metrics role_metrics[];

#endif
