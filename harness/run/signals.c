// SPDX-License-Identifier: GPL-2.0-only
/* The handler only notes the signal (no SA_RESTART: waits return early); children get the defaults back. */
#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;
static const int handled[] = { SIGINT, SIGTERM, SIGHUP };

static void on_stop(int sig)
{
	stop_signal = sig;
}

void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigaction(handled[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int signals_stop_requested(void)
{
	return stop_signal;
}

void signals_reset_for_child(void)
{
	for (unsigned i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}
