/* Latency distributions for probes and kernel-work waits. */
#ifndef RTT_LATENCY_H
#define RTT_LATENCY_H

#include "task_shm.h"

/* Records one latency observed at `at_ns` (from the window start). */
void latency_record(struct latency_stats *s, uint64_t at_ns, uint64_t latency_ns);
/* Counts n samples of `us` whole microseconds in the histogram only (not count, min, max, sum). */
void latency_add_bucket(struct latency_stats *s, uint64_t us, uint64_t n);
/* The value below which `fraction` of the samples lie (bucket upper bound), in us. */
double latency_percentile_us(const struct latency_stats *s, double fraction);

#endif
