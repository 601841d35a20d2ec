/* SPDX-License-Identifier: GPL-2.0-only */
/* SIGINT, SIGTERM and SIGHUP ask the run to stop: it ends the window, restores and reports. */
#ifndef RTT_SIGNALS_H
#define RTT_SIGNALS_H

void signals_install(void);
/* The signal that asked to stop, or 0. */
int signals_stop_requested(void);
void signals_reset_for_child(void);

#endif
