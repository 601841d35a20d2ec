#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make evidence`: writes doc/evidence.md from the results files under results/ alone.

Reads the newest soak (results/soak-*/soak.json and its suite files), mutants run
(results/mutants/*/table.json), kernel matrix (results/matrix/*/matrix.json), power run
(results/power-*/power.json) and bench (results/bench-*.json); runs nothing, needs no root.
Each source gets a table with its commit, date, kernel and machine where its files record them,
and a warning when the code that judges it changed in git since that commit; a missing source
gets a line naming the make target that writes it. The output holds no time of its own, so the
same results give the same file.
Usage: ci/evidence.py [--results DIR] [--out FILE] [--repo DIR]
Stdlib only (Debian /usr/bin/python3).
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Where the checks, their tolerances and their `detects` are defined: every verdict rests on them.
JUDGING = ["harness/judge", "workloads/scenarios"]
# What else turns a source's files into its figures.
EXTRA_JUDGING = {
    "soak": ["harness/compare/soak.c"],
    "mutants": ["ci/mutants/judge.py", "harness/compare"],
    "matrix": ["ci/matrix/summary.py"],
    "power": ["ci/power.py", "harness/run/defects.c", "harness/run/timeline_shift.c"],
    "bench": ["ci/bench.py"],
}
TARGETS = {"soak": "make soak", "mutants": "make mutants", "matrix": "make matrix", "power": "make power",
           "bench": "make bench"}
PATTERNS = {"soak": "soak-*/soak.json", "mutants": "mutants/*/table.json", "matrix": "matrix/*/matrix.json",
            "power": "power-*/power.json", "bench": "bench-*.json"}


def load(path, needs=None):
    """The JSON object in path when it holds the key `needs` (any object without one), else None."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and (needs is None or needs in doc) else None


def newest(results, source):
    """The newest file of a source: names carry a UTC time (YYYYmmddTHHMMSSZ), so they sort."""
    found = sorted(glob.glob(os.path.join(results, PATTERNS[source])))
    return found[-1] if found else None


def pct(part, whole):
    return f"{100.0 * part / whole:.2f}%" if whole else "-"


def num(v, digits=4):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def iso_of_run(name):
    """20261207T031400Z -> 2026-12-07 03:14:00 UTC; anything else as it is."""
    m = re.fullmatch(r"(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z", name or "")
    return f"{m[1]}-{m[2]}-{m[3]} {m[4]}:{m[5]}:{m[6]} UTC" if m else (name or "-")


def results_identity(doc):
    """(commit, kernel release, machine) a results file of `rtthrottle run` records."""
    doc = doc or {}
    system = doc.get("system") or {}
    kernel = system.get("kernel") or {}
    cpus = (system.get("cpus") or {}).get("online_count")
    machine = ", ".join(x for x in (system.get("host"), kernel.get("machine"),
                                     f"{cpus} CPUs" if cpus else None) if x)
    return (doc.get("tool") or {}).get("git_commit"), kernel.get("release"), machine or None


# --- git -----------------------------------------------------------------------------------------

def git(repo, *args):
    try:
        proc = subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def staleness(repo, commits, paths):
    """A warning line when the code at paths changed in git since the commit(s), else None."""
    commits = sorted({c for c in commits if c})
    if not commits or commits == ["unknown"]:
        return ("**Warning**: the files record no commit, so whether the judging code "
                f"({', '.join(paths)}) changed since cannot be told.")
    if git(repo, "rev-parse", "--git-dir") is None:
        return f"**Warning**: {repo} is not a git checkout: whether the judging code changed since cannot be told."
    notes = []
    for commit in commits:
        if git(repo, "cat-file", "-e", f"{commit}^{{commit}}") is None:
            notes.append(f"commit {commit} is not in this repository's history: whether the judging code "
                         "changed since cannot be told")
            continue
        log = git(repo, "log", "--format=%h %s", f"{commit}..HEAD", "--", *paths) or ""
        changes = [line for line in log.splitlines() if line.strip()]
        if changes:
            shown = "; ".join(f"`{c.split(' ', 1)[0]}` {c.split(' ', 1)[1][:60].rstrip()}" for c in changes[:3])
            more = f" and {len(changes) - 3} more" if len(changes) > 3 else ""
            notes.append(f"the judging code ({', '.join(paths)}) changed in {len(changes)} commit(s) since "
                         f"{commit}: {shown}{more}; these figures predate HEAD's judging")
    return ("**Warning**: " + ". ".join(notes) + ".") if notes else None


def header_lines(path, results, commit, date, kernel, machine, warning):
    rel = os.path.relpath(path, os.path.dirname(results))
    lines = [f"Source: `{rel}`", "",
             f"Commit {commit or 'not recorded'} · {date or 'date not recorded'} · kernel {kernel or 'not recorded'}"
             f" · machine {machine or 'not recorded'}", ""]
    if warning:
        lines += [warning, ""]
    return lines


# --- soak ----------------------------------------------------------------------------------------

def soak_section(path, results, repo):
    doc = load(path, "totals")
    if not doc:
        return None, [f"`{path}` is not a soak.json."]
    suites = [load(p) for p in sorted(glob.glob(os.path.join(os.path.dirname(path), "suite-*.json")))]
    suites = [s for s in suites if s]
    commits = {results_identity(s)[0] for s in suites}
    machine = results_identity(suites[0])[2] if suites else doc.get("host")
    commit = ", ".join(sorted(c for c in commits if c)) or None
    date = f"{doc.get('start') or '?'} to {doc.get('end') or '?'}"
    warning = staleness(repo, commits, JUDGING + EXTRA_JUDGING["soak"])
    t = doc.get("totals") or {}
    judged, alarms, unjudged = t.get("judged", 0), t.get("false_alarms", 0), t.get("unjudged", 0)
    applied = judged + unjudged + t.get("not_measured", 0)
    summary = (f"Soak: {doc.get('suites', 0)} suites, {judged} checks judged, {alarms} false alarms "
               f"({pct(alarms, judged)} of judged), {unjudged} unjudged ({pct(unjudged, applied)} of the checks "
               f"that applied)")
    lines = header_lines(path, results, commit, date, doc.get("kernel"), machine, warning)
    lines += table(["suites", "checks judged", "false alarms", "false-alarm rate", "unjudged", "unjudged rate",
                    "not measured", "not applicable", "flagged"],
                   [[doc.get("suites", 0), judged, alarms, pct(alarms, judged), unjudged, pct(unjudged, applied),
                     t.get("not_measured", 0), t.get("not_applicable", 0), t.get("flagged_checks", 0)]])
    lines += ["", "False-alarm rate: failed checks over judged ones, on a kernel taken to be healthy. Unjudged "
              "rate: unjudged over the checks that applied (judged, unjudged and not measured).", ""]
    rows = []
    for sc in doc.get("scenarios") or []:
        c = sc.get("checks") or {}
        worst = (sc.get("margin") or {}).get("worst")
        rows.append([sc.get("scenario"), sc.get("results"), sc.get("passed"), sc.get("failed"), sc.get("unjudged"),
                     c.get("judged"), c.get("false_alarms"), c.get("unjudged"), num(worst, 3),
                     sc.get("worst_check") or "-"])
    if rows:
        lines += ["Per scenario (results by verdict, then its checks):", ""]
        lines += table(["scenario", "results", "pass", "fail", "unjudged", "checks judged", "false alarms",
                        "checks unjudged", "worst margin", "worst check"], rows)
        lines.append("")
    flagged = [c for c in doc.get("checks") or [] if c.get("flagged")]
    if flagged:
        lines += ["Flagged checks (failed, or within "
                  f"{100 * (doc.get('near_margin') or 0.1):.0f}% of their bound):", ""]
        lines += table(["case", "check", "judged", "false alarms", "worst margin"],
                       [[c.get("case"), c.get("check"), c.get("judged"), c.get("false_alarms"),
                         num((c.get("margin") or {}).get("worst"), 3)]
                        for c in flagged])
        lines.append("")
    lines += debate_lines(suites)
    return summary, lines


def debate_lines(suites):
    """The 2008 debate's figures per policy, the median over the suites that have them."""
    per = {}
    for s in suites:
        for row in s.get("debate") or []:
            per.setdefault(row.get("policy"), []).append(row)
    if not per:
        return []
    fields = [("rt_share", "RT share", 4), ("cfs_starvation_max_ms", "CFS starved ms", 5),
              ("admin_recovery_ms", "admin back ms", 5), ("app90_deadline_misses", "90% app misses", 3),
              ("collateral_latency_max_us", "collateral us", 5)]
    rows = []
    for policy, got in per.items():
        row = [policy]
        for key, _, digits in fields:
            values = [r[key] for r in got if isinstance(r.get(key), (int, float))]
            row.append(num(float(statistics.median(values)), digits) if values else "-")
        rows.append(row)
    return [f"The 2008 debate, median over {len(suites)} suites (each figure the worst of its suite):", ""] + \
        table(["policy"] + [f[1] for f in fields], rows) + [""]


# --- mutants -------------------------------------------------------------------------------------

def checks_of(doc):
    results = (doc or {}).get("kernel_results", []) + (doc or {}).get("results", [])
    return [c for r in results for c in r.get("checks") or []]


def mutants_section(path, results, repo):
    doc = load(path, "mutants")
    if not doc:
        return None, [f"`{path}` is not a mutants table."]
    run_dir = os.path.dirname(path)
    base = doc.get("unmodified") or {}
    labels = [base.get("label", "unmodified")] + [r.get("label") for r in base.get("again") or []]
    runs = [(label, load(os.path.join(run_dir, f"{label}.json"))) for label in labels]
    commits = {results_identity(d)[0] for _, d in runs if d}
    _, kernel, machine = results_identity(next((d for _, d in runs if d), None))
    warning = staleness(repo, commits, JUDGING + EXTRA_JUDGING["mutants"])
    mutants = doc.get("mutants") or []
    caught = [m for m in mutants if m.get("caught")]
    promised = [m for m in caught if m.get("promise") == "yes"]
    alarms = doc.get("false_alarms") or []
    run_rows, judged_all, unjudged_all, applied_all = [], 0, 0, 0
    for label, d in runs:
        verdicts = [c.get("verdict") for c in checks_of(d)]
        judged = verdicts.count("pass") + verdicts.count("fail")
        unjudged = verdicts.count("unjudged")
        applied = judged + unjudged + verdicts.count("not-measured") + verdicts.count("skip")
        judged_all, unjudged_all, applied_all = judged_all + judged, unjudged_all + unjudged, applied_all + applied
        run_rows.append([label, "read" if d else "missing", judged, verdicts.count("fail"), unjudged,
                         pct(unjudged, applied)])
    summary = (f"Mutants: {len(caught)} of {len(mutants)} caught ({len(promised)} by a check their Promise names), "
               f"{len(alarms)} false alarms in {len(runs)} unmodified runs, {pct(unjudged_all, applied_all)} of "
               "their checks unjudged")
    lines = header_lines(path, results, ", ".join(sorted(c for c in commits if c)) or None,
                         iso_of_run(doc.get("run")), kernel, machine, warning)
    lines += [f"{len(caught)} of {len(mutants)} mutants caught, {len(promised)} by a check their Promise names; "
              f"detection rate {pct(len(caught), len(mutants))}. False alarms (findings on the unmodified kernel): "
              f"{len(alarms)}.", "", "Unmodified runs (the false-alarm and unjudged rates):", ""]
    lines += table(["run", "results file", "checks judged", "failed (false alarms)", "unjudged", "unjudged rate"],
                   run_rows)
    lines += ["", "Per mutant:", ""]
    rows = []
    for m in mutants:
        by = m.get("by") or {}
        first = m.get("first") or {}
        finding = f"{first.get('source', '')}: {first.get('text', '')}".strip(": ") or "-"
        rows.append([m.get("name"), m.get("status"), "yes" if m.get("caught") else "**no**", m.get("promise", "-"),
                     len(by.get("checks") or []), len(by.get("compare") or []), finding[:140],
                     first.get("tolerance") or "-"])
    lines += table(["mutant", "status", "caught", "by its Promise", "checks", "compare", "first finding",
                    "tolerance"], rows)
    per_check = {}
    for m in mutants:
        for f in (m.get("by") or {}).get("checks") or []:
            key = f"{f.get('case')}: {f.get('check')}"
            per_check.setdefault(key, set()).add(m.get("name"))
    if per_check:
        lines += ["", "Per check (the mutants each failed check caught):", ""]
        lines += table(["check", "mutants caught", "which"],
                       [[k, len(v), ", ".join(sorted(v))] for k, v in
                        sorted(per_check.items(), key=lambda kv: (-len(kv[1]), kv[0]))])
    if alarms:
        lines += ["", "False alarms:", ""]
        lines += [f"- {a.get('label')}: {a.get('source')}: {str(a.get('text'))[:160]}" for a in alarms]
    return summary, lines + [""]


# --- matrix --------------------------------------------------------------------------------------

def matrix_section(path, results, repo):
    doc = load(path, "kernels")
    if not doc:
        return None, [f"`{path}` is not a matrix.json."]
    run_dir = os.path.dirname(path)
    docs = [load(os.path.join(run_dir, f"{k.get('label')}.json")) for k in doc["kernels"]]
    commits = {results_identity(d)[0] for d in docs if d}
    host_machine = next((results_identity(d)[2] for d in docs if d), None)
    accel = sorted({k.get("accel") for k in doc["kernels"] if k.get("accel")})
    machine = f"QEMU guests ({', '.join(accel) or 'accel not recorded'})" + \
        (f"; guest {host_machine}" if host_machine else "")
    warning = staleness(repo, commits, JUDGING + EXTRA_JUDGING["matrix"])
    rows, failed_total, judged_total, unjudged_total, applied_total = [], 0, 0, 0, 0
    for k in doc["kernels"]:
        f = k.get("figures") or {}
        judged = (f.get("checks_passed") or 0) + (f.get("checks_failed") or 0)
        unjudged = f.get("checks_unjudged") or 0
        applied = judged + unjudged + (f.get("checks_not_measured") or 0)
        failed_total += f.get("checks_failed") or 0
        judged_total, unjudged_total, applied_total = judged_total + judged, unjudged_total + unjudged, \
            applied_total + applied
        res = f.get("results") or {}
        rows.append([k.get("label"), f.get("release") or "-", k.get("status"), f.get("checks_passed", "-"),
                     f.get("checks_failed", "-"), f.get("checks_unjudged", "-"), pct(unjudged, applied),
                     f.get("checks_not_measured", "-"),
                     f.get("checks_not_applicable", "-"),
                     "/".join(str(res.get(v, 0)) for v in ("pass", "fail", "unjudged", "skip", "error")) if res else "-",
                     num(f.get("agrees"))])
    ok = sum(k.get("status") == "ok" for k in doc["kernels"])
    summary = (f"Matrix: {ok} of {len(doc['kernels'])} kernels ran, {judged_total} checks judged, {failed_total} "
               f"failed ({pct(failed_total, judged_total)}), {pct(unjudged_total, applied_total)} unjudged")
    lines = header_lines(path, results, ", ".join(sorted(c for c in commits if c)) or None,
                         iso_of_run(doc.get("run")), "per row", machine, warning)
    lines += [f"`rtthrottle run {' '.join(doc.get('rtthrottle_args') or [])}` in each guest. A failed check on a "
              "distro kernel is a finding to classify: the kernel's or the harness's.", ""]
    lines += table(["kernel", "release", "status", "checks passed", "failed", "unjudged", "unjudged rate",
                    "not measured", "not applicable", "results pass/fail/unjudged/skip/error", "regime as predicted"],
                   rows)
    failed = [(k.get("label"), c) for k in doc["kernels"] for c in k.get("failed_checks") or []]
    if failed:
        lines += ["", "Failed checks:", ""] + [f"- {label}: {str(c)[:200]}" for label, c in failed]
    return summary, lines + [""]


# --- power ---------------------------------------------------------------------------------------

def power_section(path, results, repo):
    """ci/power.py's layout: git_commit (the judging build), start, kernel, host; clean {windows,
    checks, judged, false_alarms, unjudged}; defects {name: {windows {changed, judged, caught_by_named},
    checks {task.metric: {caught, missed, unjudged, not_applicable}}}}."""
    doc = load(path)
    if not doc:
        return None, [f"`{path}` could not be read as JSON."]
    commit = doc.get("git_commit")
    warning = staleness(repo, {commit}, JUDGING + EXTRA_JUDGING["power"])
    clean = doc.get("clean") or {}
    judged, alarms = clean.get("judged", 0), clean.get("false_alarms", 0)
    rows, rates = [], []
    for name, d in (doc.get("defects") or {}).items():
        w = d.get("windows") or {}
        for check, c in (d.get("checks") or {}).items():
            n = c.get("caught", 0) + c.get("missed", 0)
            rows.append([name, check, w.get("changed", 0), n, c.get("caught", 0), pct(c.get("caught", 0), n),
                         c.get("censored", 0), c.get("unjudged", 0)])
        judged_windows = w.get("judged", w.get("changed", 0))
        if judged_windows:
            rates.append((w.get("caught_by_named", 0) / judged_windows, name))
    worst = min(rates) if rates else None
    summary = (f"Power: {len(rates)} defects put into {clean.get('windows', 0)} recorded windows, caught in "
               + (f"{pct(worst[0], 1)} of their windows at worst ({worst[1]})" if worst else "- (none applied)")
               + f"; {alarms} false alarms in {judged} checks judged unchanged")
    lines = header_lines(path, results, commit, doc.get("start"), doc.get("kernel"), doc.get("host"), warning)
    lines += [f"Unchanged recordings: {clean.get('windows', 0)} windows, {judged} checks judged, {alarms} false "
              f"alarms ({pct(alarms, judged)}), {clean.get('unjudged', 0)} unjudged.", ""]
    lines += table(["defect", "check", "windows changed", "judged", "caught", "detection rate", "censored",
                    "unjudged"], rows)
    return summary, lines + [""]


# --- bench ---------------------------------------------------------------------------------------

def bench_section(path, results, repo):
    doc = load(path, "figures")
    if not doc:
        return None, [f"`{path}` is not a bench results file."]
    commit = doc.get("git_commit")
    warning = staleness(repo, {commit}, EXTRA_JUDGING["bench"])
    figures = doc["figures"]
    misses = [f for f in figures if f.get("verdict") != "ok"]
    summary = (f"Bench: {len(figures) - len(misses)} of {len(figures)} accuracy figures on target"
               + (f" (missed: {', '.join(f.get('key', '?') for f in misses)})" if misses else ""))
    lines = header_lines(path, results, commit, iso_of_run(doc.get("start")), doc.get("kernel"),
                         ", ".join(x for x in (doc.get("host"), f"CPU {doc['cpu']}" if "cpu" in doc else None) if x),
                         warning)
    lines += table(["figure", "value", "target", "verdict"],
                   [[f.get("title"), f"{num(f.get('value'))}{f.get('unit') or ''}", f.get("target"),
                     f.get("verdict")] for f in figures])
    return summary, lines + [""]


SECTIONS = [("soak", "False alarms on a healthy kernel (soak)", soak_section),
            ("mutants", "Detection of broken kernels (mutants)", mutants_section),
            ("matrix", "Distribution kernels (matrix)", matrix_section),
            ("power", "Detection power on recorded windows (power)", power_section),
            ("bench", "Accuracy of the measurements (bench)", bench_section)]


def has_target(repo, target):
    try:
        with open(os.path.join(repo, "Makefile")) as f:
            return re.search(rf"^{re.escape(target)}:", f.read(), re.M) is not None
    except OSError:
        return False


def render(results, repo):
    summaries, body = [], []
    for source, title, section in SECTIONS:
        body += [f"## {title}", ""]
        path = newest(results, source)
        if path is None:
            target = TARGETS[source]
            made = "" if has_target(repo, target.split()[1]) else " (no such target in this tree's Makefile yet)"
            line = (f"No {source} results: no `results/{PATTERNS[source]}`. `{target}` writes them{made}.")
            summaries.append(line)
            body += [line, ""]
            continue
        summary, lines = section(path, results, repo)
        summaries.append(summary or lines[0])
        body += lines
    head = ["# Evidence: what the results files say", "",
            "The figures a CI owner adopts the suite on: its false-alarm rate on a healthy kernel, how often it "
            "cannot judge, which broken kernels it catches and by which check, and how accurately it measures. "
            "Written by `make evidence` (ci/evidence.py) from the newest results of each kind under `results/`, "
            "and nothing else: edit the runs, not this file. Each section names its source, the commit, date, "
            "kernel and machine its files record, and warns where the judging code changed since that commit.",
            "", "## Summary", ""]
    return "\n".join(head + [f"- {s}" for s in summaries] + [""] + body).rstrip() + "\n"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default=os.path.join(ROOT, "results"), help="the results folder (results/)")
    p.add_argument("--out", default=os.path.join(ROOT, "doc", "evidence.md"), help="the file written (doc/evidence.md)")
    p.add_argument("--repo", default=ROOT, help="the git checkout whose judging code is compared (this one)")
    args = p.parse_args(argv)
    text = render(os.path.abspath(args.results), args.repo)
    tmp = f"{args.out}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, args.out)
    print(f"evidence: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
