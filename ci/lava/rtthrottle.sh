#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# LAVA test shell for rtthrottle (ci/lava/rtthrottle.yaml): installs it (apt dependencies,
# make, make install), runs a suite, and reports every check as a lava-test-case with its
# measurement and unit, named as in the KCIDB export (scenario.policy.task.metric), plus one
# case per result, one for the run and, with a baseline, one for `rtthrottle compare`.
# The cases are the lines rtthrottle writes with --lava (NAME RESULT [MEASUREMENT UNITS]): nothing but
# a POSIX shell is needed, busybox included. Outside LAVA (no lava-test-case on PATH) the same
# lines are printed, for a dry run.
#   rtthrottle.sh [-s SUITE | -c SCENARIOS] [-d SECONDS] [-r REPEAT] [-b BASELINE] [-i true|false]
set -u
SUITE=quick SCENARIOS="" DURATION=3 REPEAT=1 BASELINE="" SKIP_INSTALL=false
while getopts "s:c:d:r:b:i:" opt; do
	case "$opt" in
	s) SUITE=$OPTARG ;;
	c) SCENARIOS=$OPTARG ;;
	d) DURATION=$OPTARG ;;
	r) REPEAT=$OPTARG ;;
	b) BASELINE=$OPTARG ;;
	i) SKIP_INSTALL=$OPTARG ;;
	*) echo "usage: $0 [-s SUITE | -c SCENARIOS] [-d SECONDS] [-r REPEAT] [-b BASELINE] [-i true|false]" >&2; exit 2 ;;
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
if [ -n "$SCENARIOS" ]; then CHOICE="--scenario $SCENARIOS"; else CHOICE="--suite $SUITE"; fi

# shellcheck disable=SC2086 # CHOICE is an option and its value
"$BIN" run $CHOICE --duration "$DURATION" --repeat "$REPEAT" --quiet --output "$OUTPUT/results.json" \
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
*) cat "$OUTPUT/run.log"; report rtthrottle-run fail; exit 0 ;;
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
exit 0
