#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the unit tests and the command-line cases that change nothing on the system (help, info,
# list, export of the fixtures, bad input, restore with nothing or garbage to restore, a run as
# an unprivileged user, which skips everything) under a memory checker. Used by `make valgrind` and `make sanitize`.
#   tests/memcheck.sh BUILD [WRAPPER...]
# BUILD holds rtthrottle and unit-tests; WRAPPER (e.g. valgrind ...) goes before each command.
# A case fails on an unexpected exit status or on any valgrind/ASan/UBSan/LSan report.
# Never starts a measuring run: as root the run drops to uid 65534 (setpriv) first.
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
wrapper=("$@")
bin=$build/rtthrottle
tmp=$(mktemp -d /tmp/rtt-memcheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
failed=0 count=0

# check EXPECTED-STATUS NAME COMMAND...
check() {
	local want=$1 name=$2 status
	shift 2
	count=$((count + 1))
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	status=$?
	if [ "$status" -ne "$want" ] ||
		grep -Eq '^==[0-9]+== |ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer' "$tmp/err"; then
		failed=$((failed + 1))
		echo "not ok $count $name (exit $status, expected $want)"
		sed 's/^/# /' "$tmp/err" | tail -60
	else
		echo "ok $count $name"
	fi
}

run_bad() {
	local named=$1
	shift
	check 2 "run $named: exit 2" "${wrapper[@]}" "$bin" run "$@"
}

check 0 "unit tests" "${wrapper[@]}" "$build/unit-tests"
check 0 "--help" "${wrapper[@]}" "$bin" --help
check 0 "--version" "${wrapper[@]}" "$bin" --version
for cmd in run info list restore plan export soak judge; do
	check 0 "$cmd --help" "${wrapper[@]}" "$bin" "$cmd" --help
done
check 0 "info" "${wrapper[@]}" "$bin" info
check 0 "info --compact" "${wrapper[@]}" "$bin" info --compact
check 0 "list" "${wrapper[@]}" "$bin" list
check 0 "list scenarios" "${wrapper[@]}" "$bin" list scenarios
check 0 "list policies" "${wrapper[@]}" "$bin" list policies
check 0 "list quantities" "${wrapper[@]}" "$bin" list quantities
check 0 "list roles" "${wrapper[@]}" "$bin" list roles
check 2 "no command" "${wrapper[@]}" "$bin"
check 2 "unknown command" "${wrapper[@]}" "$bin" frobnicate
check 2 "list nonsense" "${wrapper[@]}" "$bin" list nonsense
check 2 "info --bogus" "${wrapper[@]}" "$bin" info --bogus
check 2 "info extra" "${wrapper[@]}" "$bin" info extra
check 2 "restore extra" "${wrapper[@]}" "$bin" restore extra
check 0 "plan 45000 50000" "${wrapper[@]}" "$bin" plan 45000 50000
check 0 "plan --json --from --no-cgroup" "${wrapper[@]}" "$bin" plan --json --from 45000/50000 --no-cgroup -1 1000000
check 2 "plan below the floor" "${wrapper[@]}" "$bin" plan --fair-server 50000/1000000 40000 1000000
check 2 "plan abc" "${wrapper[@]}" "$bin" plan abc 1
check 2 "plan one operand" "${wrapper[@]}" "$bin" plan 45000

out=(--output "$tmp/r.json")
run_bad "--runtime-us abc" --runtime-us abc "${out[@]}"
run_bad "--runtime-us > period" --runtime-us 1200000 --period-us 1000000 "${out[@]}"
run_bad "--runtime-us -5" --runtime-us -5 "${out[@]}"
run_bad "--settle bogus" --settle bogus "${out[@]}"
run_bad "--runtime-us overflow" --runtime-us 99999999999999999999 "${out[@]}"
run_bad "--period-us 0" --period-us 0 --runtime-us 1 "${out[@]}"
run_bad "--period-us alone" --period-us 1000 "${out[@]}"
run_bad "--cpu 99999" --cpu 99999 "${out[@]}"
run_bad "--cpu x1" --cpu x1 "${out[@]}"
run_bad "--cpu 1,1" --cpu 1,1 "${out[@]}"
run_bad "--cpu per_node" --cpu per_node "${out[@]}"
run_bad "--cpu 3-2" --cpu 3-2 "${out[@]}"
run_bad "--scenario unknown" --scenario no-such-scenario "${out[@]}"
run_bad "--scenario empty" --scenario , "${out[@]}"
run_bad "--policy unknown" --policy no-such-policy "${out[@]}"
run_bad "--suite bogus" --suite bogus "${out[@]}"
run_bad "--suite and --scenario" --suite quick --scenario fifo-hog-share "${out[@]}"
run_bad "--duration -3" --duration -3 "${out[@]}"
run_bad "--duration nan" --duration nan "${out[@]}"
run_bad "--probe-seconds 0.5" --probe-seconds 0.5 "${out[@]}"
run_bad "--repeat 0" --repeat 0 "${out[@]}"
run_bad "--load unknown" --load sysbench "${out[@]}"
run_bad "--site-setting unknown" --site-setting no_such_knob=1 "${out[@]}"
run_bad "--site-setting runtime over period" --site-setting sched_rt_runtime_us=1200000 "${out[@]}"
run_bad "--output missing folder" --output /nonexistent-folder/r.json
run_bad "--output /proc" --output /proc/r.json
run_bad "--output too long" --output "/tmp/$(printf 'x%.0s' {1..5000})"
run_bad "--bogus-option" --bogus-option
run_bad "--duration without value" --duration
run_bad "extra argument" extra-argument
run_bad "--junit missing folder" --junit /nonexistent-folder/j.xml "${out[@]}"
run_bad "--kcidb-origin invalid" --kcidb "$tmp/k.json" --kcidb-origin Bad-Origin "${out[@]}"

# export: every format from the fixtures (checks, probes, skips, failures), then bad input.
for fixture in quick-1rep regression-3rep all-skipped kernel-defaults-1rep; do
	check 0 "export $fixture" "${wrapper[@]}" "$bin" export --junit "$tmp/$fixture.xml" --kcidb "$tmp/$fixture.kcidb.json" \
		--rt-tests-json "$tmp/$fixture.rt.json" --lava "$tmp/$fixture.lava.txt" --kcidb-origin ci --kcidb-build-id ci:1 \
		"tests/fixtures/$fixture.json"
done
check 2 "export malformed" "${wrapper[@]}" "$bin" export --junit "$tmp/m.xml" tests/fixtures/malformed.json
check 2 "export nothing to write" "${wrapper[@]}" "$bin" export tests/fixtures/quick-1rep.json
check 2 "export missing folder" "${wrapper[@]}" "$bin" export --kcidb /nonexistent-folder/k.json tests/fixtures/quick-1rep.json

# soak --from: the tables of two fixtures (one holds a failed check: exit 1), then bad input.
check 1 "soak --from" "${wrapper[@]}" "$bin" soak --from tests/fixtures/quick-1rep.json \
	tests/fixtures/kernel-defaults-1rep.json
check 2 "soak --from malformed" "${wrapper[@]}" "$bin" soak --from tests/fixtures/malformed.json
check 2 "soak --runs 0" "${wrapper[@]}" "$bin" soak --runs 0

# judge: the defects, then folders without a readable recording (exit 2, nothing judged).
check 0 "judge --defects" "${wrapper[@]}" "$bin" judge --defects
mkdir -p "$tmp/rec"
check 2 "judge: no recording" "${wrapper[@]}" "$bin" judge "$tmp/rec"
printf 'rtthrottle-record 1\n{"count": 1, "task_record_bytes": 1}\n' | gzip >"$tmp/rec/0001-x.rec.gz"
check 2 "judge: another build's recording" "${wrapper[@]}" "$bin" judge "$tmp/rec"
printf 'garbage' | gzip >"$tmp/rec/0001-x.rec.gz"
check 2 "judge: not a recording" "${wrapper[@]}" "$bin" judge --inject rt-short-5pct "$tmp/rec"
check 2 "judge --inject unknown" "${wrapper[@]}" "$bin" judge --inject nonsense "$tmp/rec"

# restore in a private state folder: nothing to restore, then a malformed state file.
export RTTHROTTLE_STATE_DIR=$tmp/state
check 0 "restore: nothing to restore" "${wrapper[@]}" "$bin" restore
printf '{"pid": 1, "knobs": {"sched_rt_runtime_us": "x"' >"$RTTHROTTLE_STATE_DIR/state.json"
check 1 "restore: malformed state file" "${wrapper[@]}" "$bin" restore
unset RTTHROTTLE_STATE_DIR

# A whole run that skips everything (not root): exercises results, sysinfo, JSON, exit 4.
chmod 777 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null; then
		check 4 "unprivileged run skips (uid 65534)" setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all "${wrapper[@]}" "$bin" run --duration 1 --output "$tmp/nobody.json" \
			--junit "$tmp/nobody.xml" --kcidb "$tmp/nobody.kcidb.json" --rt-tests-json "$tmp/nobody.rt.json"
	else
		echo "# setpriv missing: unprivileged run not checked"
	fi
else
	check 4 "unprivileged run skips" "${wrapper[@]}" "$bin" run --duration 1 --output "$tmp/nobody.json" \
		--junit "$tmp/nobody.xml" --kcidb "$tmp/nobody.kcidb.json" --rt-tests-json "$tmp/nobody.rt.json"
fi

echo "# memcheck: $((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
