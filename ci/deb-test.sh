#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package as a distribution's test team uses it: installs the .deb (apt-get resolves
# its Depends), runs the installed /usr/bin/rtthrottle from / (no source tree near it) -- list,
# plan 45000 50000, one short scenario and a plot -- checks it found its scenarios and plot script
# under /usr/share/rtthrottle, then removes the package. Root; the scenario writes the knobs, so
# run it where nothing else measures (make deb-test; CI holds the machine lock already).
# Usage: ci/deb-test.sh PATH/rtthrottle_VERSION_ARCH.deb
set -euo pipefail

deb=${1:?usage: ci/deb-test.sh PATH/rtthrottle_VERSION_ARCH.deb}
[ -f "$deb" ] || { echo "deb-test: $deb: no such file" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "deb-test: installs a package: run as root" >&2; exit 2; }
if dpkg-query -W -f='${Status}' rtthrottle 2>/dev/null | grep -q 'install ok installed'; then
	echo "deb-test: rtthrottle is installed already; not replacing it" >&2
	exit 2
fi
work=$(mktemp -d /tmp/rtt-deb-test.XXXXXX)
cleanup() {
	apt-get remove -y -qq --purge rtthrottle >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends "$(realpath "$deb")" >/dev/null
[ -x /usr/bin/rtthrottle ] || fail "no /usr/bin/rtthrottle after installing"
for f in /usr/share/rtthrottle/rtthrottle_plot.py /usr/share/rtthrottle/scenarios/fifo-hog-share.json \
	 /usr/share/man/man1/rtthrottle.1.gz /usr/share/doc/rtthrottle/copyright; do
	[ -e "$f" ] || fail "$f is not installed"
done
cd /
# RTTHROTTLE_* would point the binary elsewhere: the test is of what it finds by itself.
unset RTTHROTTLE_SCENARIO_DIR RTTHROTTLE_PLOT_SCRIPT RTTHROTTLE_STATE_DIR

/usr/bin/rtthrottle list >"$work/list.txt" || fail "rtthrottle list: exit $?"
grep -q '^Scenarios (from /usr/share/rtthrottle/scenarios)' "$work/list.txt" ||
	fail "list does not read /usr/share/rtthrottle/scenarios: $(head -1 "$work/list.txt")"
grep -q '^  fifo-hog-share ' "$work/list.txt" || fail "list has no fifo-hog-share"

/usr/bin/rtthrottle plan 45000 50000 >"$work/plan.txt" || fail "rtthrottle plan 45000 50000: exit $?"
[ -s "$work/plan.txt" ] || fail "plan printed nothing"

status=0
/usr/bin/rtthrottle run --quiet --scenario fifo-hog-share --policy default --duration 1 --probe-seconds 0 \
	--output "$work/r.json" >"$work/ktap.txt" 2>"$work/run.err" || status=$?
# 0 passed; 1 a check failed and 125 not all judged are the kernel's or the machine's answer, not the package's.
case $status in 0|1|125) ;; *) cat "$work/run.err" >&2; fail "rtthrottle run: exit $status";; esac
# Passed, failed, or left unjudged (a 1 s window's share tolerance is as wide as what it catches).
grep -Eq '^(not )?ok 3 fifo-hog-share\.default( # SKIP unjudged: .*)?$' "$work/ktap.txt" ||
	fail "no KTAP line for fifo-hog-share.default: $(cat "$work/ktap.txt")"
python3 - "$work/r.json" <<'PY' || fail "results file"
import json, sys
doc = json.load(open(sys.argv[1]))
res = [r for r in doc["results"] if r["scenario"] == "fifo-hog-share"]
assert res and res[0]["checks"], "no judged fifo-hog-share result"
assert doc["knobs_restored"] is True, "knobs not restored"
PY
if python3 -c 'import matplotlib' 2>/dev/null; then
	/usr/bin/rtthrottle plot --out "$work/plots" "$work/r.json" >/dev/null 2>"$work/plot.err" ||
		{ cat "$work/plot.err" >&2; fail "rtthrottle plot (the script in /usr/share/rtthrottle)"; }
	ls "$work/plots"/*.png >/dev/null 2>&1 || fail "plot wrote no PNG"
fi
apt-get remove -y -qq --purge rtthrottle >/dev/null
[ ! -e /usr/bin/rtthrottle ] && [ ! -e /usr/share/rtthrottle ] || fail "files left after removing the package"
echo "deb-test: ok: $(basename "$deb") installed, list/plan/run (exit $status)/plot from /usr/bin, removed"
