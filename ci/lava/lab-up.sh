#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make lab: a LAVA lab on this machine from Debian's packages, started without systemd: PostgreSQL,
# lava-server's REST API under gunicorn on 127.0.0.1:8000, the scheduler, one lava-worker and
# LAB_DEVICES (default 2) QEMU devices (TCG, as ci/lava/qemu-device.yaml), a user `rtthrottle`
# with an API token, written as the lavacli identity `rtthrottle-lab` (~/.config/lavacli.yaml;
# `make matrix LAB=local` uses it). Run it again: what is there is kept. Pids and logs in
# LAB_STATE (default /var/lib/rtthrottle-lab); `make lab-stop` (ci/lava/lab-down.sh) stops all.
#   ci/lava/lab-up.sh [--help]
set -eu
# Debian's python3 and tools first: a python3 elsewhere on PATH lacks Debian's modules.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
STATE=${LAB_STATE:-/var/lib/rtthrottle-lab}
DEVICES=${LAB_DEVICES:-2}
URL=http://127.0.0.1:8000
WORKER=rtthrottle-worker
USER_NAME=rtthrottle
IDENTITY=rtthrottle-lab
DEVICE_DIR=/etc/lava-server/dispatcher-config/devices
here=$(cd "$(dirname "$0")" && pwd)

case "${1:-}" in
-h | --help) sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "lab-up: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
case "$DEVICES" in
'' | *[!0-9]* | 0) echo "lab-up: LAB_DEVICES=$DEVICES: a number of devices, 1 or more" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "lab-up: needs root (packages, PostgreSQL, the worker runs QEMU)" >&2; exit 2; }
say() { echo "lab-up: $*" >&2; }
manage() { lava-server manage "$@"; }
running() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }
mkdir -p "$STATE/log"

if ! dpkg -s lava-server lavacli lava-dispatcher >/dev/null 2>&1; then
	say "installing lava-server, lava-dispatcher, lavacli (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q lava-server lava-dispatcher lavacli >"$STATE/log/apt.log" 2>&1 ||
		{ tail -20 "$STATE/log/apt.log" >&2; say "apt-get install failed (log: $STATE/log/apt.log)"; exit 1; }
fi

# PostgreSQL: without systemd nobody starts it; remember that we did, so lab-down stops it.
cluster=$(pg_lsclusters -h | awk 'NR == 1 {print $1 " " $2}')
[ -n "$cluster" ] || { say "no PostgreSQL cluster (pg_lsclusters shows none)"; exit 1; }
# shellcheck disable=SC2086 # version and name
if ! pg_lsclusters -h | awk 'NR == 1 {print $4}' | grep -q online; then
	say "starting PostgreSQL $cluster"
	pg_ctlcluster $cluster start
	echo "$cluster" >"$STATE/postgresql.started"
fi

# The package's setup skipped the database while PostgreSQL was down: run it again.
if ! manage showmigrations lava_scheduler_app >/dev/null 2>&1 || manage showmigrations lava_scheduler_app 2>/dev/null | grep -q '\[ \]'; then
	say "setting up lava-server's database (dpkg-reconfigure lava-server)"
	dpkg-reconfigure -f noninteractive lava-server >"$STATE/log/reconfigure.log" 2>&1 ||
		{ tail -20 "$STATE/log/reconfigure.log" >&2; say "dpkg-reconfigure lava-server failed"; exit 1; }
fi

if ! running gunicorn; then
	say "starting lava-server (gunicorn on $URL)"
	nice -n 10 gunicorn3 lava_server.wsgi --bind 127.0.0.1:8000 -u lavaserver -g lavaserver --workers 2 \
		--timeout 120 --log-file "$STATE/log/gunicorn.log" --pid "$STATE/gunicorn.pid" --daemon
fi
if ! running scheduler; then
	say "starting lava-scheduler"
	setsid nice -n 10 lava-server manage lava-scheduler --level INFO --log-file "$STATE/log/lava-scheduler.log" \
		</dev/null >"$STATE/log/scheduler.out" 2>&1 &
	echo $! >"$STATE/scheduler.pid"
fi

# The user, its token and lavacli's identity: a token that still works is kept.
manage users list 2>/dev/null | grep -qx "\* $USER_NAME" ||
	manage users add "$USER_NAME" --superuser --staff --passwd "$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
for _ in $(seq 30); do
	curl -sf -o /dev/null "$URL/api/v0.2/" && break
	sleep 1
done
curl -sf -o /dev/null "$URL/api/v0.2/" || { tail -20 "$STATE/log/gunicorn.log" >&2; say "lava-server does not answer on $URL"; exit 1; }
if ! lavacli -i "$IDENTITY" system whoami 2>/dev/null | grep -qx "$USER_NAME"; then
	token=$(manage tokens add --user "$USER_NAME" --description "make lab" | tail -1)
	lavacli identities add --uri "$URL/RPC2" --username "$USER_NAME" --token "$token" "$IDENTITY"
	say "API token of $USER_NAME written as the lavacli identity $IDENTITY"
fi

# The worker, its QEMU devices (dictionaries extending Debian's qemu.jinja2) and the device type.
manage workers list 2>/dev/null | grep -q "^\* $WORKER " || manage workers add "$WORKER" >/dev/null
manage device-types list 2>/dev/null | grep -q '^\* qemu ' || manage device-types add qemu
n=1
while [ "$n" -le "$DEVICES" ]; do
	name=$(printf 'qemu%02d' "$n")
	cp "$here/lab-qemu-device.jinja2" "$DEVICE_DIR/$name.jinja2"
	chown lavaserver:lavaserver "$DEVICE_DIR/$name.jinja2"
	manage devices list -a 2>/dev/null | grep -q "^\* $name " ||
		manage devices add --device-type qemu --worker "$WORKER" "$name"
	n=$((n + 1))
done
if ! running worker; then
	say "starting lava-worker $WORKER"
	worker_token=$(manage workers details "$WORKER" | awk '$1 == "token" {print $3}')
	setsid lava-worker --level INFO --url "$URL/" --name "$WORKER" --token "$worker_token" --ping-interval 5 \
		--worker-dir "$STATE/worker" --log-file "$STATE/log/lava-worker.log" \
		</dev/null >"$STATE/log/worker.out" 2>&1 &
	echo $! >"$STATE/worker.pid"
fi
for _ in $(seq 30); do
	curl -sf "$URL/api/v0.2/workers/$WORKER/" | grep -q '"state":"Online"' && break
	sleep 1
done
curl -sf "$URL/api/v0.2/workers/$WORKER/" | grep -q '"state":"Online"' ||
	{ tail -20 "$STATE/log/lava-worker.log" >&2; say "worker $WORKER is not online"; exit 1; }
say "lab up: $URL, worker $WORKER, devices: $(manage devices list 2>/dev/null | grep -c '^\* qemu') qemu; identity $IDENTITY"
say "run: make matrix LAB=local; stop: make lab-stop"
