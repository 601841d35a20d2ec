/* The measuring loop shared by hog, victim and noise-floor tasks. */
#ifndef RTT_SPIN_MEASURE_H
#define RTT_SPIN_MEASURE_H

#include "task_shm.h"

/*
 * Spins on CLOCK_MONOTONIC from start_ns to end_ns; every step longer than the threshold is a
 * gap (the task was not running). Fills first/last, iterations, cpu_ns and gaps of `rec`.
 */
void spin_measure(struct task_record *rec, uint64_t start_ns, uint64_t end_ns);

/* Log2 bucket of a gap in microseconds (bucket 0 holds gaps below 2 us). */
int gap_bucket(uint64_t len_ns);

#endif
