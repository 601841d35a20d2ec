#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make lab-stop: stops what ci/lava/lab-up.sh started, by the pids it kept in LAB_STATE (default
# /var/lib/rtthrottle-lab): the worker with any job it runs (its QEMU included), the scheduler,
# gunicorn, and PostgreSQL when make lab started it. The lab's database, devices and the lavacli
# identity stay for the next make lab. Exits 1 when a process is still there afterwards.
#   ci/lava/lab-down.sh [--help]
set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
STATE=${LAB_STATE:-/var/lib/rtthrottle-lab}
case "${1:-}" in
-h | --help) sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "lab-down: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
say() { echo "lab-down: $*" >&2; }
groups=""
# The lab's services as their command lines start (gunicorn names its processes itself); a
# command that merely mentions them does not count.
SERVICES='^/usr/bin/python3 /usr/bin/lava-worker |^/usr/bin/python3 /usr/bin/lava-server manage lava-scheduler|^gunicorn: (master|worker) \[lava_server.wsgi\]'

# stop NAME SIGNAL-TARGET: TERM, then KILL after 20 s; the worker and scheduler lead their own
# session (setsid), so their process group goes with them.
stop() {
	pidfile=$STATE/$1.pid
	[ -f "$pidfile" ] || return 0
	pid=$(cat "$pidfile")
	target=$pid
	[ "$2" = group ] && target=-$pid
	[ "$2" = group ] && groups="$groups $pid"
	if kill -0 "$pid" 2>/dev/null; then
		say "stopping $1 ($pid)"
		kill -TERM "$target" 2>/dev/null
		for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$target" 2>/dev/null
	fi
	rm -f "$pidfile"
}
stop worker group
stop scheduler group
stop gunicorn single
if [ -f "$STATE/postgresql.started" ]; then
	say "stopping PostgreSQL $(cat "$STATE/postgresql.started")"
	# shellcheck disable=SC2046 # version and name
	pg_ctlcluster $(cat "$STATE/postgresql.started") stop && rm -f "$STATE/postgresql.started"
fi
# What is left of the groups stopped (a job's lava-run and QEMU) and of any lab service.
left=$(pgrep -f -a "$SERVICES" || true)
for g in $groups; do
	left="$left$(pgrep -a -g "$g" 2>/dev/null)"
done
if [ -n "$left" ]; then
	say "still running: $left"
	exit 1
fi
say "no lab service left"
