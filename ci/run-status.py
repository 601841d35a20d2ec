#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make run`'s last line and exit status, from `rtthrottle run`'s status and its results file.

rtthrottle run exits 125 when nothing failed but a result was left unjudged (for `git bisect
run`, which skips such a commit). A person running the quick suite wants 0 then: nothing failed,
nothing erred and every knob was put back. Usage: run-status.py STATUS RESULTS.json
"""
import json
import sys


def main(argv):
    if len(argv) != 3 or not argv[1].isdigit():
        print("usage: run-status.py STATUS RESULTS.json", file=sys.stderr)
        return 2
    status, path = int(argv[1]), argv[2]
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"make run: no results to count ({path}: {e}); rtthrottle run exited {status}")
        return status or 2
    results = doc.get("kernel_results", []) + doc.get("results", [])
    count = {v: sum(r.get("verdict") == v for r in results) for v in ("pass", "fail", "unjudged", "skip", "error")}
    restored = doc.get("knobs_restored") is True
    complete = doc.get("run", {}).get("complete") is True
    print(f"make run: {len(results)} results: {count['pass']} passed, {count['fail']} failed, "
          f"{count['unjudged']} unjudged (measured, no verdict), {count['skip']} skipped, {count['error']} errors; "
          f"knobs {'restored' if restored else 'NOT restored'}; {path}")
    if status == 125 and restored and complete and not count["fail"] and not count["error"]:
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
