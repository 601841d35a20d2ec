#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""What each check catches: defects of the size a check exists to detect, put into recorded
healthy windows (`rtthrottle judge --inject`), and the windows judged again.

For every recording folder (a `run --record DIR`, or a soak's DIR/suite-NN.rec/) and every
defect `rtthrottle judge --defects` lists, each window the defect applies to is judged with
it. Per defect and per check that exists to catch it: windows judged, caught (the check
failed), missed (it passed), unjudged or not applicable. The recordings judged unchanged give
the false-alarm rate. Writes power.json and power.txt to --out (default
results/power-<UTC time>) and prints the table. Exit status: 0 written, 2 bad input (no
recording, an unreadable one, no rtthrottle).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

JUDGED = ("pass", "fail")


def recording_dirs(paths):
    """Folders holding *.rec.gz: each path itself, or its suite-NN.rec/ (a soak's)."""
    found = []
    for p in paths:
        if not os.path.isdir(p):
            sys.exit(f"power: {p}: not a folder")
        if any(n.endswith(".rec.gz") for n in os.listdir(p)):
            found.append(p)
            continue
        subs = sorted(os.path.join(p, n) for n in os.listdir(p)
                      if os.path.isdir(os.path.join(p, n))
                      and any(m.endswith(".rec.gz") for m in os.listdir(os.path.join(p, n))))
        if not subs:
            sys.exit(f"power: {p}: no recording (*.rec.gz) in it or its sub-folders "
                     "(record with 'rtthrottle run --record DIR' or 'rtthrottle soak --record')")
        found += subs
    return found


def defects(rtthrottle):
    out = subprocess.run([rtthrottle, "judge", "--defects"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]


def judge(rtthrottle, folder, defect, scratch):
    """The document of `rtthrottle judge` (exit 0, 1 or 125 are verdicts; 2 is bad input)."""
    out = os.path.join(scratch, "judged.json")
    cmd = [rtthrottle, "judge", "--quiet", "--output", out, folder] + (["--inject", defect] if defect else [])
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1, 125):
        sys.exit(f"power: {' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    with open(out) as f:
        return json.load(f)


def check_key(c):
    return f"{c['task']}.{c['metric']}"


def case_of(result):
    name = f"{result['scenario']}.{result['policy']['name']}"
    sweep = result.get("sweep")
    return name + (f".{sweep['param']}={sweep['value']:g}" if sweep else "")


def all_censored(result):
    """Every span where the defect broke the promise lies in a period the check left out: the
    trace saw the machine hold the CPU there (promise.censored), so no check there could see
    it. Those are where RT ran that it would not have (an overrun), else where it did not run."""
    changed = result.get("changed_spans_ms") or {}
    spans = changed.get("rt_runs") or changed.get("rt_idle") or []
    periods = ((result.get("promise") or {}).get("censored") or {}).get("at") or []
    return bool(spans) and all(any(p["from_ms"] - 0.01 <= a and b <= p["to_ms"] + 0.01 for p in periods)
                               for a, b in spans)


def tally_defect(doc, stats, windows):
    """Adds one judged-with-defect document to stats[check] and windows."""
    catches = [k for k in doc["judged_again"].get("change_caught_by", "").split(",") if k]
    for r in doc["results"]:
        if r.get("changed") != "yes":
            windows["not_applied"] += 1
            continue
        windows["changed"] += 1
        by_key = defaultdict(list)
        for c in r.get("checks", []):
            by_key[check_key(c)].append(c["verdict"])
        caught_here = judged_here = False
        for key in catches:
            verdicts = by_key.get(key, [])
            s = stats[key]
            if "fail" in verdicts:
                s["caught"] += 1
                caught_here = judged_here = True
            elif "pass" in verdicts and all_censored(r):
                s["censored"] += 1
            elif "pass" in verdicts:
                s["missed"] += 1
                s["missed_cases"].append(case_of(r))
                judged_here = True
            elif "unjudged" in verdicts:
                s["unjudged"] += 1
            else:
                s["not_applicable"] += 1
        windows["judged"] += judged_here
        windows["caught_by_named"] += caught_here
        windows["caught_by_any"] += any(c["verdict"] == "fail" for c in r.get("checks", []))


def tally_clean(doc, clean):
    for r in doc["results"]:
        for c in r.get("checks", []):
            v = c["verdict"]
            clean["checks"] += 1
            clean["judged"] += v in JUDGED
            clean["false_alarms"] += v == "fail"
            clean["unjudged"] += v == "unjudged"
            if v == "fail":
                clean["false_alarm_checks"].append(f"{case_of(r)} {check_key(c)}")
        clean["windows"] += 1


def recorded_on(doc):
    """Where and by which build the recordings were made, and the build judging them."""
    system = doc.get("system") or {}
    return {"kernel": (system.get("kernel") or {}).get("release"), "host": system.get("host"),
            "recorded": (doc.get("run") or {}).get("start"), "recorded_by": (doc.get("tool") or {}).get("git_commit"),
            "judged_by": doc["judged_again"].get("judged_by_commit")}


def rate(n, d):
    return f"{100 * n / d:5.1f}%" if d else "    - "


def table(report):
    lines = [f"power: {report['folders']} recording folders, {report['clean']['windows']} windows",
             f"unchanged: {report['clean']['judged']} checks judged, {report['clean']['false_alarms']} false alarms, "
             f"{report['clean']['unjudged']} unjudged of {report['clean']['checks']}", "",
             f"{'defect':<22} {'windows':>7} {'caught':>7}  {'check':<26} {'judged':>6} {'caught':>6} "
             f"{'rate':>6} {'censored':>8} {'unjudged':>8} {'n/a':>4}"]
    for name, d in report["defects"].items():
        w = d["windows"]
        first = True
        for key, s in d["checks"].items():
            judged = s["caught"] + s["missed"]
            head = (f"{name:<22} {w['changed']:>7} {rate(w['caught_by_named'], w.get('judged', 0)):>7}" if first
                    else " " * 38)
            lines.append(f"{head}  {key:<26} {judged:>6} {s['caught']:>6} {rate(s['caught'], judged):>6} "
                         f"{s['censored']:>8} {s['unjudged']:>8} {s['not_applicable']:>4}")
            first = False
    lines += ["", "windows: those the defect applied to (the others have no throttle or slot it can move);",
              "caught (per defect): of those a check that exists for it judged, the share it failed;",
              "rate (per check): of the windows that check judged with the",
              "defect in a period it judged; censored: the defect fell only in periods the trace saw",
              "disturbed, which the check leaves out."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recordings", nargs="+", help="recording folders, or soak folders made with --record")
    ap.add_argument("--rtthrottle", default="build/rtthrottle")
    ap.add_argument("--out", default=None)
    ap.add_argument("--defect", action="append", help="only these defects (repeatable)")
    a = ap.parse_args()
    if not os.access(a.rtthrottle, os.X_OK):
        print(f"power: {a.rtthrottle}: not an executable rtthrottle (make first)", file=sys.stderr)
        return 2
    folders = recording_dirs(a.recordings)
    names = a.defect or defects(a.rtthrottle)
    clean = {"windows": 0, "checks": 0, "judged": 0, "false_alarms": 0, "unjudged": 0, "false_alarm_checks": []}
    per = {n: {"windows": defaultdict(int),
               "checks": defaultdict(lambda: {"caught": 0, "missed": 0, "censored": 0, "unjudged": 0,
                                              "not_applicable": 0, "missed_cases": []})} for n in names}
    t0 = time.time()
    about = {}
    with tempfile.TemporaryDirectory(prefix="rtthrottle-power.") as scratch:
        for i, folder in enumerate(folders, 1):
            eta = (time.time() - t0) / (i - 1) * (len(folders) - i + 1) if i > 1 else None
            print(f"power: {folder} ({i} of {len(folders)}"
                  + (f", ETA {eta / 60:.1f} min)" if eta is not None else ")"), file=sys.stderr)
            doc = judge(a.rtthrottle, folder, None, scratch)
            tally_clean(doc, clean)
            about = about or recorded_on(doc)
            for n in names:
                tally_defect(judge(a.rtthrottle, folder, n, scratch), per[n]["checks"], per[n]["windows"])
    report = {"git_commit": about.get("judged_by"), "recorded_by": about.get("recorded_by"),
              "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)), "recorded": about.get("recorded"),
              "kernel": about.get("kernel"), "host": about.get("host"), "folders": len(folders), "recordings": folders, "clean": clean,
              "defects": {n: {"windows": dict(per[n]["windows"]), "checks": {k: dict(v) for k, v in per[n]["checks"].items()}}
                          for n in names}}
    out = a.out or time.strftime("results/power-%Y%m%dT%H%M%SZ", time.gmtime())
    os.makedirs(out, exist_ok=True)
    text = table(report)
    with open(os.path.join(out, "power.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out, "power.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"power: wrote {out}/power.json and power.txt", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
