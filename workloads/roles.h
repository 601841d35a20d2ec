/* SPDX-License-Identifier: GPL-2.0-only */
/* Task bodies: each runs from the window start to its end, filling its record. */
#ifndef RTT_ROLES_H
#define RTT_ROLES_H

#include "task_shm.h"

void role_spin(struct window_shm *shm, struct task_record *rec);	/* hog, victim, noise */
void role_probe(struct window_shm *shm, struct task_record *rec);
void role_periodic(struct window_shm *shm, struct task_record *rec);
void role_calibrate(struct window_shm *shm, struct task_record *rec);
/*
 * Loop steps of one calibration sample of sample_us at loop_ns a step (the noise floor's), so a
 * sample lasts as long on an emulated CPU (~1 us a step) as on hardware (~25 ns).
 */
uint64_t calibration_loops(double sample_us, double loop_ns);
void role_admin(struct window_shm *shm, struct task_record *rec);
void role_burst_hog(struct window_shm *shm, struct task_record *rec);
void role_kernel_work(struct window_shm *shm, struct task_record *rec);
void role_cyclictest(struct window_shm *shm, struct task_record *rec);
void role_load(struct window_shm *shm, struct task_record *rec);
void role_invalid_writes(struct window_shm *shm, struct task_record *rec);
void role_timerlat(struct window_shm *shm, struct task_record *rec);
/* Starts rtla before the start barrier: the tracer's thread must be up before a hog spins. */
void timerlat_prepare(struct task_record *rec);

#endif
