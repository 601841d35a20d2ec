#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# LAVA test shell for rtthrottle (ci/lava/rtthrottle.yaml): installs it (apt dependencies,
# make, make install), runs a suite, and reports every check as a lava-test-case with its
# measurement and unit, named as in the KCIDB export (scenario.policy.task.metric), plus one
# case per result, one for the run and, with a baseline, one for `rtthrottle compare`.
# The cases are the lines rtthrottle writes with --lava (NAME RESULT [MEASUREMENT UNITS]): nothing but
# a POSIX shell is needed, busybox included. Outside LAVA (no lava-test-case on PATH) the same
# lines are printed, for a dry run. -a gives `rtthrottle run` its arguments as they are (as `make
# matrix` does, instead of -s/-c/-d/-r); -f true then sends the facts, the kernel's messages and
# the results file back framed on the console (ci/matrix/report.sh in the matrix ramdisk), so a
# lab client rebuilds `make matrix`'s table from the job log.
#   rtthrottle.sh [-s SUITE | -c SCENARIOS] [-d SECONDS] [-r REPEAT] [-a RUN-ARGS] [-b BASELINE]
#                 [-i true|false] [-f true|false]
set -u
SUITE=quick SCENARIOS="" DURATION=3 REPEAT=1 RUN_ARGS="" BASELINE="" SKIP_INSTALL=false FRAME=false
USAGE="usage: $0 [-s SUITE | -c SCENARIOS] [-d SECONDS] [-r REPEAT] [-a RUN-ARGS] [-b BASELINE] [-i true|false] [-f true|false]"
while getopts "s:c:d:r:a:b:i:f:" opt; do
	case "$opt" in
	s) SUITE=$OPTARG ;;
	c) SCENARIOS=$OPTARG ;;
	d) DURATION=$OPTARG ;;
	r) REPEAT=$OPTARG ;;
	a) RUN_ARGS=$OPTARG ;;
	b) BASELINE=$OPTARG ;;
	i) SKIP_INSTALL=$OPTARG ;;
	f) FRAME=$OPTARG ;;
	*) echo "$USAGE" >&2; exit 2 ;;
	esac
done
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUTPUT=$(pwd)/output
mkdir -p "$OUTPUT"

report() {	# report NAME RESULT [MEASUREMENT UNITS]
	if command -v lava-test-case >/dev/null 2>&1; then
		if [ $# -ge 4 ]; then
			lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
		else
			lava-test-case "$1" --result "$2"
		fi
	else
		echo "$*"
	fi
}

if [ "$SKIP_INSTALL" != "true" ]; then
	if (cd "$TOP" && ci/install-deps.sh && make && make install PREFIX=/usr/local) >"$OUTPUT/install.log" 2>&1; then
		report rtthrottle-install pass
	else
		tail -40 "$OUTPUT/install.log"
		report rtthrottle-install fail
		exit 0
	fi
fi
BIN=$(command -v rtthrottle || echo /usr/local/bin/rtthrottle)
if [ -n "$RUN_ARGS" ]; then CHOICE=$RUN_ARGS
elif [ -n "$SCENARIOS" ]; then CHOICE="--scenario $SCENARIOS --duration $DURATION --repeat $REPEAT"
else CHOICE="--suite $SUITE --duration $DURATION --repeat $REPEAT"; fi
REPORT=/usr/share/rtthrottle/report.sh
if [ "$FRAME" = "true" ] && [ -f "$REPORT" ]; then
	# shellcheck disable=SC1091 # ci/matrix/report.sh, at this path in the ramdisk
	. /usr/share/rtthrottle/report.sh
	write_facts "$OUTPUT/facts.txt"
fi
send_back() {	# send_back STATUS: with -f true, the files framed on the console and the end marker
	[ "$FRAME" = "true" ] && [ -f "$REPORT" ] || return 0
	fact rtthrottle_exit "$1"
	write_dmesg "$OUTPUT/dmesg.txt"
	send "$OUTPUT/facts.txt" facts.txt
	send "$OUTPUT/dmesg.txt" dmesg.txt
	send "$OUTPUT/results.json" results.json
	echo "RTT-MATRIX-DONE $1"
}

# shellcheck disable=SC2086 # CHOICE is options and their values
"$BIN" run $CHOICE --quiet --output "$OUTPUT/results.json" \
	--junit "$OUTPUT/junit.xml" --kcidb "$OUTPUT/kcidb.json" --rt-tests-json "$OUTPUT/rt-tests.json" \
	--lava "$OUTPUT/cases.txt" >"$OUTPUT/ktap.txt" 2>"$OUTPUT/run.log"
status=$?
cat "$OUTPUT/ktap.txt"
# 0 passed, 1 a check failed, 4 all skipped: the files are there; 125 too, but something could
# not be judged (a result in error, a result skipped although the run had every privilege: the
# cases below say which): unknown. 2 or a signal: nothing to parse.
case $status in
0 | 1 | 4) report rtthrottle-run pass ;;
125) report rtthrottle-run unknown ;;
*) cat "$OUTPUT/run.log"; report rtthrottle-run fail; send_back "$status"; exit 0 ;;
esac

while read -r name result measurement units; do
	if [ -n "$measurement" ]; then
		report "$name" "$result" "$measurement" "$units"
	else
		report "$name" "$result"
	fi
done <"$OUTPUT/cases.txt"

if [ -n "$BASELINE" ]; then
	case "$BASELINE" in
	http://* | https://*) wget -q -O "$OUTPUT/baseline.json" "$BASELINE" && BASELINE=$OUTPUT/baseline.json ;;
	esac
	"$BIN" compare --json "$OUTPUT/compare.json" "$BASELINE" "$OUTPUT/results.json" >"$OUTPUT/compare.txt" 2>&1
	case $? in
	0) report rtthrottle-compare pass ;;
	1) report rtthrottle-compare fail ;;
	*) report rtthrottle-compare unknown ;;
	esac
	cat "$OUTPUT/compare.txt"
fi
send_back "$status"
exit 0
