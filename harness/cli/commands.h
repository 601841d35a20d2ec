/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands; each parses its own options with getopt_long and has --help. */
#ifndef RTT_COMMANDS_H
#define RTT_COMMANDS_H

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_soak(int argc, char **argv);
int cmd_judge(int argc, char **argv);

#endif
