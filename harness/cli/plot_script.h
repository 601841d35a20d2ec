/* SPDX-License-Identifier: GPL-2.0-only */
/* Where rtthrottle_plot.py and its interpreter are, for the subcommands that draw (plot, report, soak). */
#ifndef RTT_PLOT_SCRIPT_H
#define RTT_PLOT_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#define PYTHON_DEFAULT "/usr/bin/python3"

/* harness/output/rtthrottle_plot.py beside the binary's build folder, under PREFIX/share, or
 * $RTTHROTTLE_PLOT_SCRIPT; false after saying where it looked. */
bool plot_script_find(char *path, size_t len);
/* $RTTHROTTLE_PYTHON, else PYTHON_DEFAULT. */
const char *plot_python(void);

#endif
