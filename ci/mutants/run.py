#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make mutants`: does the suite catch a broken throttle? Kernels with injected bugs, judged.

Builds Debian's linux-source kernel (--series, default 6.12) with the config fragments
ci/kconfig/base.config + <--config>.config, once unmodified and once per mutant patch
(ci/mutants/*.patch, or the --patch files), boots each under QEMU like `make matrix` and runs
`rtthrottle run` inside (default: --suite mutants, the quick suite and fair-server-defer). A
mutant is caught by a finding (a failed check of a judged result, or a metric `rtthrottle
compare` of the first unmodified run against the mutant calls regressed, beyond the spread
between the unmodified runs) that no unmodified run shows; the rule needs --unmodified-runs 3 or more (ci/mutants/judge.py). A finding on an
unmodified run is a false alarm. Timeouts, boot failures and results in error are reported as
run problems and never catch. Each patch's `Checks:` header names the checks its Promise maps
to, and the table says whether a catch is one of them; a patch that reverts an upstream fix
names it (`Upstream:` commit, date, subject) and the table lists it. Writes into
--out/<UTC time>/: each guest's results (<label>.json), console log and compare table
(<label>.compare.json), and table.txt and table.json: the false alarms, per mutant whether it
was caught and by what.

Exit status: 0 every unmodified run finished without a false alarm and every mutant was caught,
1 otherwise, 2 bad usage (a missing patch, no rtthrottle binary). --build-only builds (or finds
cached) every kernel and boots nothing, so builds can run pinned and niced apart from the guests. Builds are cached in --kernel-cache (by source
version, fragments and patch); guests run one at a time under flock /tmp/rtt-machine.lock
(--no-lock when the caller holds it). Progress on stderr. With --lab the kernels are built here
and boot as jobs on a LAVA lab, all at once (ci/lava/lab.py, doc/lava-lab.md).
"""
import argparse
import datetime
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.path.insert(0, HERE)
import guest  # noqa: E402
import judge  # noqa: E402
import kbuild  # noqa: E402
import matrix  # noqa: E402
import summary  # noqa: E402

BASE_LABEL = "unmodified"
HEADER_FIELD = re.compile(r"^(Mutant|Breaks|Promise|Shape|Upstream|Against|Checks):\s*(.*)$")


def log(msg):
    print(f"mutants: {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ci/mutants/run.py", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Arguments after -- go to `rtthrottle run` in every guest "
                                       "(default: --suite mutants: the quick suite and the scenarios the mutants' Promises "
                                       "need besides). Exit status: 0 no false alarm and every "
                                       "mutant caught, 1 otherwise, 2 bad usage.")
    p.add_argument("--patch", action="append", metavar="FILE",
                   help="a mutant patch (repeat for more; default: every ci/mutants/*.patch)")
    p.add_argument("--series", default="6.12", help="linux-source-<series> to build (default 6.12)")
    p.add_argument("--config", default="rt-group",
                   help="config fragment ci/kconfig/<CONFIG>.config on top of base.config (default rt-group)")
    p.add_argument("--jobs", type=int, default=os.cpu_count(), help="make -j for kernel builds (default: CPUs)")
    p.add_argument("--rejudge", metavar="DIR",
                   help="judge an earlier run's folder again (after a change to the judging or to compare's "
                        "rules): rewrites its table.txt and table.json; builds and boots nothing")
    p.add_argument("--unmodified-runs", type=int, default=1, metavar="N",
                   help="boot the unmodified kernel N times (default 1; the rule needs 3): a finding on any "
                        "of them is a false alarm and catches nothing, and their spread is what a compare "
                        "regression must exceed")
    p.add_argument("--build-only", action="store_true",
                   help="build (or find cached) the unmodified kernel and every mutant, boot nothing; e.g. "
                        "under `taskset -c 0 nice -n 19` with --jobs 1 before the guests run")
    matrix.add_guest_options(p, os.path.join(guest.ROOT, "results", "mutants"))
    args = p.parse_args(argv)
    args.rtt_args = args.rtt_args or ["--suite", "mutants"]
    matrix.check_guest_options(p, args)
    if args.jobs < 1:
        p.error(f"--jobs: {args.jobs} is below 1")
    if not 1 <= args.unmodified_runs <= 10:
        p.error(f"--unmodified-runs: {args.unmodified_runs} is outside 1..10")
    if args.patch is None:
        args.patch = sorted(glob.glob(os.path.join(HERE, "*.patch")))
        if not args.patch:
            p.error(f"no patches in {HERE} and no --patch")
    for path in args.patch:
        if not os.path.isfile(path):
            p.error(f"--patch {path}: no such file")
        fields = header(path)
        if not fields.get("Mutant"):
            p.error(f"--patch {path}: no 'Mutant:' line in its header (see ci/mutants/README.md)")
        try:
            judge.parse_upstream(fields.get("Upstream"))
        except ValueError as exc:
            p.error(f"--patch {path}: {exc} (see ci/mutants/README.md)")
    labels = [label_of(path) for path in args.patch]
    if len(set(labels)) != len(labels) or BASE_LABEL in labels:
        p.error(f"--patch: two patches share a name, or one is called {BASE_LABEL}: {', '.join(labels)}")
    if not os.path.isfile(os.path.join(kbuild.KCONFIG_DIR, f"{args.config}.config")):
        p.error(f"--config {args.config}: no ci/kconfig/{args.config}.config")
    return args


def label_of(path):
    return os.path.basename(path)[:-len(".patch")] if path.endswith(".patch") else os.path.basename(path)


def header(path):
    """The fields of a patch's header (text before the first '--- '): Mutant, Breaks, Promise, ..."""
    fields, key = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("--- ", "diff ")):
                break
            m = HEADER_FIELD.match(line.rstrip())
            if m:
                key = m.group(1)
                fields[key] = m.group(2)
            elif key and line.startswith((" ", "\t")) and line.strip():
                fields[key] += " " + line.strip()
            else:
                key = None
    return fields


# --- judging (the rule: judge.py) -----------------------------------------------------------------

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_verdict(entry, doc):
    """One unmodified run: 'pass', or 'fail: why' (a finding on it is a false alarm)."""
    problems = judge.run_problems(entry, doc)
    found = judge.check_findings(doc)
    if not problems and not found:
        return "pass"
    why = [f["text"] for f in found] + problems
    return f"fail: {len(why)} finding(s) or problem(s): {why[0]}"


def shares(doc):
    """{policy: (hog share, victim share)} of fifo-hog-share (worst over repetitions)."""
    out = {}
    for r in (doc or {}).get("results") or []:
        if r.get("scenario") != "fifo-hog-share" or r.get("verdict") not in ("pass", "fail"):
            continue
        policy = (r.get("policy") or {}).get("name")
        got = {}
        for t in r.get("tasks") or []:
            m = t.get("metrics") or {}
            got[t.get("role")] = m.get("cpu_share_periods", m.get("cpu_share"))
        out.setdefault(policy, (got.get("hog"), got.get("victim")))
    return out


def share_text(doc):
    s = shares(doc)
    parts = []
    for policy in ("default", "half", "unlimited"):
        if policy in s and None not in s[policy]:
            parts.append(f"{policy[0]} {s[policy][0]:.2f}/{s[policy][1]:.2f}")
    return " ".join(parts) or "-"


def finding_text(f):
    return f"{f['source']}: {f['text']}" if f else "-"


def table_text(doc):
    """table.txt: the rule, the unmodified runs and their false alarms, then one line per mutant:
    caught or not, by which finding, its tolerance, whether the Promise names it, run problems."""
    base = doc["unmodified"]
    runs = [base] + base.get("again", [])
    n = doc.get("unmodified_finished", 0)
    lines = [f"mutants run {doc['run']}: linux-source-{doc['series']} {doc.get('source_version') or ''}, "
             f"config {doc['config']}, rtthrottle run {' '.join(doc['rtthrottle_args'])}",
             f"rule: caught = a failed check of a judged result, or a compare regression outside the spread of "
             f"the unmodified runs, absent from every unmodified run; {n} unmodified run(s) finished"
             + ("" if n >= judge.MIN_UNMODIFIED else
                f" (the rule needs {judge.MIN_UNMODIFIED}: every catch below is provisional)"),
             "unmodified kernel: " + "; ".join(f"{r.get('label', BASE_LABEL)}: {r.get('verdict')}" for r in runs)]
    alarms = doc.get("false_alarms") or []
    lines.append(f"false alarms (findings on the unmodified kernel): {len(alarms)}")
    lines += [f"  {a['label']}: {a['source']}: {a['text'][:160]}" for a in alarms]
    lines.append("")
    head = (f"{'mutant':38} {'status':12} {'caught':6} {'promise':7} {'checks':>6} {'cmp':>4}  "
            f"{'finding (the first the Promise names, else the first)':110} {'tolerance':40} run problems")
    lines += [head, "-" * len(head)]
    for m in doc["mutants"]:
        by, first = m["by"], m.get("first")
        lines.append(f"{m['name']:38} {m['status']:12} {'yes' if m['caught'] else 'NO':6} {m['promise']:7} "
                     f"{len(by['checks']):>6} {len(by['compare']):>4}  {finding_text(first)[:110]:110} "
                     f"{((first or {}).get('tolerance') or '-')[:40]:40} {'; '.join(by['run'])[:100] or '-'}")
    caught = [m for m in doc["mutants"] if m["caught"]]
    promised = [m for m in caught if m["promise"] == "yes"]
    missed = [m for m in doc["mutants"] if not m["caught"]]
    lines += ["", f"{len(caught)} of {len(doc['mutants'])} mutants caught ({len(promised)} by a check their "
              f"Promise names); {len(missed)} missed; {len(alarms)} false alarm(s). checks: failed checks not seen "
              "on any unmodified run; cmp: compare regressions outside the unmodified runs' spread; promise: "
              "whether a catch is one of the header's Checks; run problems (timeouts, boot failures, errors) "
              "never catch."]
    for m in missed:
        lines.append(f"  MISSED {m['name']}: breaks: {m.get('breaks') or '?'}")
    for m in caught:
        if m["promise"] != "yes":
            lines.append(f"  CAUGHT ELSEWHERE {m['name']}: none of its Checks ({', '.join(m.get('checks') or []) or '-'}) "
                         "failed")
    for m in doc["mutants"]:
        up = m.get("upstream")
        if up:
            lines.append(f"  UPSTREAM {m['name']}: reverts {up['commit']} ({up['date']}) \"{up['subject']}\": "
                         f"{'caught' if m['caught'] else 'MISSED'}")
    return "\n".join(lines)


# --- running ------------------------------------------------------------------------------------

def compare(binary, base_json, new_json, out_json):
    """rtthrottle compare BASE NEW --json OUT: (exit status, table or None, stderr)."""
    proc = subprocess.run([binary, "compare", "--json", out_json, base_json, new_json], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    return proc.returncode, load(out_json), proc.stderr.strip()


def kernel_spec(label, patches, args):
    """One kernel of the run as make matrix's list names a kernel built from source."""
    return {"label": label, "series": args.series, "flavour": f"source:{args.config}", "config": args.config,
            "patches": patches}


def judge_all(run_dir, doc, binary):
    """Fills the verdict of each unmodified run, the false alarms and each mutant's caught/by
    from the results files in run_dir (compare runs again: the first unmodified run against
    the others and against each mutant); returns the exit status."""
    base_json = os.path.join(run_dir, f"{BASE_LABEL}.json")
    base = doc["unmodified"]
    base.setdefault("label", BASE_LABEL)
    runs, pairs = [], []
    for r in [base] + base.get("again", []):
        path = os.path.join(run_dir, f"{r['label']}.json")
        rdoc = load(path) if r.get("status") in ("ok", "incomplete") else None
        r["verdict"] = run_verdict(r, rdoc)
        runs.append((r["label"], r, rdoc))
        if r is not base and rdoc is not None and runs[0][2] is not None:
            pairs.append((r["label"], compare(binary, base_json, path,
                                              os.path.join(run_dir, f"{r['label']}.compare.json"))[1]))
    base_doc = runs[0][2]
    base["shares"] = share_text(base_doc)
    unmodified = judge.unmodified_summary(runs, pairs)
    doc["unmodified_finished"] = unmodified["finished"]
    doc["false_alarms"] = unmodified["false_alarms"]
    for m in doc["mutants"]:
        mut_json = os.path.join(run_dir, f"{m['name']}.json")
        mut_doc = load(mut_json) if os.path.exists(mut_json) else None
        cmp_status, cmp_doc, cmp_err = None, None, None
        if base_doc is not None and mut_doc is not None:
            cmp_status, cmp_doc, cmp_err = compare(binary, base_json, mut_json,
                                                   os.path.join(run_dir, f"{m['name']}.compare.json"))
        patch = os.path.join(guest.ROOT, m.get("patch") or "")
        if os.path.isfile(patch):
            fields = header(patch)
            m["checks"] = judge.parse_checks(fields.get("Checks"))
            m["upstream"] = judge.parse_upstream(fields.get("Upstream"))
        judged = judge.judge_mutant(m, mut_doc, cmp_doc, unmodified, m.get("checks") or [])
        m.update(compare_exit=cmp_status, compare_error=cmp_err if cmp_status == 2 else None,
                 shares=share_text(mut_doc), **judged)
    healthy = all(r.get("status") == "ok" for _, r, _ in runs) and not doc["false_alarms"]
    doc["exit"] = 0 if healthy and all(m["caught"] for m in doc["mutants"]) else 1
    return doc["exit"]


def write_tables(run_dir, doc):
    with open(os.path.join(run_dir, "table.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    text = table_text(doc)
    print(text)
    with open(os.path.join(run_dir, "table.txt"), "w") as f:
        f.write(text + "\n")


def rejudge(run_dir, binary):
    """--rejudge DIR: the tables of an earlier run again, from its files (no build, no boot)."""
    doc = load(os.path.join(run_dir, "table.json"))
    if not doc or "unmodified" not in doc or "mutants" not in doc:
        print(f"mutants: --rejudge {run_dir}: no table.json of a mutants run there", file=sys.stderr)
        return 2
    status = judge_all(run_dir, doc, binary)
    write_tables(run_dir, doc)
    return status


def build_only(args):
    """--build-only: every kernel of the run built or found in the cache; 1 when one fails."""
    status = 0
    for patches in [[]] + [[p] for p in args.patch]:
        name = label_of(patches[0]) if patches else BASE_LABEL
        try:
            built = kbuild.build(args.series, args.config, patches, args.kernel_cache, args.jobs)
            log(f"{name}: {'cached' if built['cached'] else 'built'} {built['key']}")
        except (guest.MatrixError, subprocess.SubprocessError, OSError) as exc:
            log(f"{name}: build failure: {exc}")
            status = 1
    return status


def main(argv):
    args = parse_args(argv)
    args.cache = matrix.DEFAULT_CACHE     # run_kernel's package cache: unused for source kernels
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    if args.build_only:
        return build_only(args)
    if not os.access(args.binary, os.X_OK):
        print(f"mutants: {args.binary}: no rtthrottle binary (make)", file=sys.stderr)
        return 2
    if args.rejudge:
        return rejudge(args.rejudge, args.binary)
    run = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_dir = os.path.join(args.out, run)
    os.makedirs(os.path.join(run_dir, "work"))
    # A lab's guests get the ramdisk without arguments (the job runs rtthrottle): lab.py builds it.
    base_cpio = None if args.lab else guest.base_initramfs(os.path.join(run_dir, "work"), args.binary, args.rtt_args)
    log(f"unmodified kernel + {len(args.patch)} mutant(s), rtthrottle run {' '.join(args.rtt_args)}"
        + (f" on the lab {args.lab_name}" if args.lab else "") + f"; results in {run_dir}")
    start = time.monotonic()
    again = [f"{BASE_LABEL}-{n}" for n in range(2, args.unmodified_runs + 1)]
    kernels = [kernel_spec(label, [], args) for label in [BASE_LABEL] + again] + \
        [kernel_spec(label_of(path), [path], args) for path in args.patch]
    try:
        entries = {e["label"]: e for e in matrix.run_kernels(kernels, args, run_dir, base_cpio)}
    except matrix.lab.LabError as exc:
        log(f"lab: {exc}; no table written")
        return 2 if exc.usage else 1

    base_entry = entries[BASE_LABEL]
    figures = base_entry.get("figures") or {}
    doc = {"run": run, "series": args.series, "config": args.config, "rtthrottle_args": args.rtt_args,
           "source_version": (base_entry.get("package") or "").partition(" ")[2] or None,
           "unmodified": {"status": base_entry.get("status"), "reason": base_entry.get("reason"),
                          "checks_passed": figures.get("checks_passed"), "checks_failed": figures.get("checks_failed"),
                          "build": base_entry.get("build"), "wall_s": base_entry.get("wall_s")},
           "mutants": []}
    if args.lab:
        doc["lab"] = {"url": args.lab_url, "device_type": args.device_type}
    base_doc = load(os.path.join(run_dir, f"{BASE_LABEL}.json"))
    log(f"{BASE_LABEL}: {run_verdict(base_entry, base_doc)}")
    for label in again:
        entry = entries[label]
        doc["unmodified"].setdefault("again", []).append(
            {"label": label, "status": entry.get("status"), "reason": entry.get("reason")})
        log(f"{label}: {run_verdict(entry, load(os.path.join(run_dir, f'{label}.json')))}")
    for path in args.patch:
        label = label_of(path)
        entry = entries[label]
        fields = header(path)
        doc["mutants"].append({"name": label, "patch": os.path.relpath(os.path.abspath(path), guest.ROOT),
                               "breaks": fields.get("Breaks"), "promise": fields.get("Promise"),
                               "checks": judge.parse_checks(fields.get("Checks")),
                               "upstream": judge.parse_upstream(fields.get("Upstream")),
                               "status": entry.get("status"), "reason": entry.get("reason"),
                               "build": entry.get("build"), "wall_s": entry.get("wall_s")})
        mut_doc = load(os.path.join(run_dir, f"{label}.json"))
        found = summary.failed_checks(mut_doc) if mut_doc else []
        log(f"{label}: {entry.get('status')}, {len(found)} failed check(s)" + (f" ({found[0][:140]})" if found else ""))
    status = judge_all(run_dir, doc, args.binary)
    doc["wall_s"] = round(time.monotonic() - start, 1)
    write_tables(run_dir, doc)
    subprocess.run(["rm", "-rf", os.path.join(run_dir, "work")], check=False)
    log(f"wrote {run_dir}/table.txt, table.json ({doc['wall_s']:.0f} s)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
