#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make mutants`: does the suite catch a broken throttle? Kernels with injected bugs, judged.

Builds Debian's linux-source kernel (--series, default 6.12) with the config fragments
ci/kconfig/base.config + <--config>.config, once unmodified and once per mutant patch
(ci/mutants/*.patch, or the --patch files), boots each under QEMU like `make matrix` and runs
`rtthrottle run` inside (default: the quick suite). A mutant is caught when its run fails a
check or ends in an error, the regime probe disagrees with the model, its run does not finish
while the unmodified kernel's did, or `rtthrottle compare` of the unmodified kernel's results
(same run) against the mutant's reports a regression. Writes into --out/<UTC time>/: each
guest's results (<label>.json), console log and compare table (<label>.compare.json), and
table.txt and table.json: per mutant whether it was caught and by what, and the unmodified
kernel's verdict.

Exit status: 0 the unmodified kernel passed and every mutant was caught, 1 otherwise, 2 bad
usage (a missing patch, no static rtthrottle). Builds are cached in --kernel-cache (by source
version, fragments and patch); guests run one at a time under flock /tmp/rtt-machine.lock
(--no-lock when the caller holds it). Progress on stderr.
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
import guest  # noqa: E402
import kbuild  # noqa: E402
import matrix  # noqa: E402
import summary  # noqa: E402

BASE_LABEL = "unmodified"
HEADER_FIELD = re.compile(r"^(Mutant|Breaks|Promise|Shape|Against):\s*(.*)$")
FINISHED = ("ok",)                 # statuses of a guest whose run was judged
NOT_BOOTED = ("build-failure", "boot-failure")


def log(msg):
    print(f"mutants: {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ci/mutants/run.py", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Arguments after -- go to `rtthrottle run` in every guest "
                                       "(default: --suite quick). Exit status: 0 the unmodified kernel passed "
                                       "and every mutant was caught, 1 otherwise, 2 bad usage.")
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
                   help="boot the unmodified kernel N times (default 1): it must pass every run, so a "
                        "check that fails now and then on a good kernel shows up as a false alarm")
    matrix.add_guest_options(p, os.path.join(guest.ROOT, "results", "mutants"))
    args = p.parse_args(argv)
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
        if not header(path).get("Mutant"):
            p.error(f"--patch {path}: no 'Mutant:' line in its header (see ci/mutants/README.md)")
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


# --- judging ------------------------------------------------------------------------------------

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def check_failures(doc):
    """'case: task.metric measured M, expected ...' for each failed check (and 'case:
    task.metric not measured' in a failed result: the signal never came), and 'case: error:
    why' for each result that is an error, as two lists."""
    found = summary.failed_checks(doc)
    errors = [f for f in found if ": error: " in f]
    fails = [f for f in found if ": error: " not in f]
    for r in doc.get("results") or []:
        if r.get("verdict") == "fail":
            case = f"{r.get('scenario')}.{(r.get('policy') or {}).get('name')}"
            seen = set()
            for c in r.get("checks") or []:
                name = f"{c.get('task')}.{c.get('metric')}"
                if c.get("verdict") == "not-measured" and name not in seen:
                    seen.add(name)
                    fails.append(f"{case}: {name} not measured")
    return fails, errors


def regime_disagrees(doc):
    model = doc.get("kernel_model") or {}
    if model.get("agrees") is False:
        observed = model.get("observed") or {}
        return f"regime probe disagrees with the model: {observed.get('evidence') or observed}"
    return None


def compare_regressions(cmp_doc):
    """'case task.metric base -> new (why)' for every regressed line of a compare --json table."""
    out = []
    for row in (cmp_doc or {}).get("rows") or []:
        if row.get("verdict") == "regressed":
            out.append(f"{row.get('case')} {row.get('task')}.{row.get('metric')} "
                       f"{fmt(row.get('base_median'))} -> {fmt(row.get('new_median'))} {row.get('unit') or ''}".rstrip())
    return out


def fmt(value):
    return "-" if value is None else f"{value:.4g}"


def judge_base(entry, doc):
    """The unmodified kernel's verdict: 'pass', or 'fail: why'."""
    if entry.get("status") != "ok" or doc is None:
        return f"fail: {entry.get('status')}: {entry.get('reason')}"
    fails, errors = check_failures(doc)
    why = fails + errors + ([regime_disagrees(doc)] if regime_disagrees(doc) else [])
    return "pass" if not why else f"fail: {len(why)} finding(s): {why[0]}"


def finding_key(text):
    """What a finding is about ('case: task.metric' or 'case'), to match it across kernels."""
    return text.split(" measured ")[0].split(" not measured")[0].split(": error: ")[0]


def judge_mutant(entry, doc, cmp_status, cmp_doc, base_finished, base_doc=None, other_base_docs=()):
    """Caught or not, and by what: {'caught': bool, 'by': {'checks': [...], 'errors': [...],
    'regime': str|None, 'compare': [...], 'run': str|None, 'also_unmodified': [...]}}. A check
    that failed (or a case that erred) on the unmodified kernel too catches nothing: it is
    listed under also_unmodified."""
    by = {"checks": [], "errors": [], "regime": None, "compare": [], "run": None, "also_unmodified": []}
    status = entry.get("status")
    if doc is not None:
        by["checks"], by["errors"] = check_failures(doc)
        by["regime"] = regime_disagrees(doc)
    if base_doc is not None:
        base_keys = {finding_key(f) for d in (base_doc, *other_base_docs) for found in check_failures(d) for f in found}
        for key in ("checks", "errors"):
            by["also_unmodified"] += [f for f in by[key] if finding_key(f) in base_keys]
            by[key] = [f for f in by[key] if finding_key(f) not in base_keys]
        if regime_disagrees(base_doc) and by["regime"]:
            by["also_unmodified"].append(by["regime"])
            by["regime"] = None
    if cmp_status == 1:
        by["compare"] = compare_regressions(cmp_doc)
    if status not in FINISHED and status not in NOT_BOOTED and base_finished:
        # The guest booted but its run did not finish (or sent nothing) while the unmodified
        # kernel's did: a CI job would have failed.
        by["run"] = f"{status}: {entry.get('reason')}"
    caught = bool(by["checks"] or by["errors"] or by["regime"] or by["compare"] or by["run"])
    return {"caught": caught, "by": by}


def first_finding(judged):
    by = judged["by"]
    for key, label in (("checks", "check"), ("errors", "error"), ("compare", "compare"), ("regime", "regime"),
                       ("run", "run")):
        value = by[key]
        if value:
            return f"{label}: {value[0] if isinstance(value, list) else value}"
    return "-"


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


def table_text(doc):
    """table.txt: the unmodified kernel's verdict, then one line per mutant and what caught it."""
    base = doc["unmodified"]
    lines = [f"mutants run {doc['run']}: linux-source-{doc['series']} {doc.get('source_version') or ''}, "
             f"config {doc['config']}, rtthrottle run {' '.join(doc['rtthrottle_args'])}",
             f"unmodified kernel: {base['verdict']} ({base['status']}"
             + (f", {base['checks_passed']} checks passed" if base.get("checks_passed") is not None else "") + ")"
             + "".join(f"; {a['label']}: {a.get('verdict', a.get('status'))}" for a in base.get("again", [])),
             ""]
    head = f"{'mutant':38} {'status':12} {'caught':6} {'checks':>6} {'cmp':>4}  {'fifo-hog-share hog/victim':26} first finding"
    lines += [head, "-" * len(head)]
    lines.append(f"{'(unmodified)':38} {base['status']:12} {'-':6} {'-':>6} {'-':>4}  {base.get('shares') or '-':26} "
                 f"{base['verdict']}")
    for m in doc["mutants"]:
        by = m["by"]
        lines.append(f"{m['name']:38} {m['status']:12} {'yes' if m['caught'] else 'NO':6} "
                     f"{len(by['checks']) + len(by['errors']):>6} {len(by['compare']):>4}  {m.get('shares') or '-':26} "
                     f"{m['first_finding'][:150]}")
    caught = sum(m["caught"] for m in doc["mutants"])
    lines += ["", f"{caught} of {len(doc['mutants'])} mutants caught; checks: failed checks and errors (not "
              "counting those that failed on the unmodified kernel too); cmp: metrics `rtthrottle compare` calls "
              "regressed against the unmodified kernel; hog/victim: CPU shares at d(efault), h(alf), u(nlimited)."]
    for m in doc["mutants"]:
        if not m["caught"]:
            lines.append(f"  NOT CAUGHT {m['name']}: breaks: {m.get('breaks') or '?'}")
    return "\n".join(lines)


# --- running ------------------------------------------------------------------------------------

def compare(binary, base_json, new_json, out_json):
    """rtthrottle compare BASE NEW --json OUT: (exit status, table or None, stderr)."""
    proc = subprocess.run([binary, "compare", "--json", out_json, base_json, new_json], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    return proc.returncode, load(out_json), proc.stderr.strip()


def guest_run(label, patches, args, run_dir, base_cpio):
    """Builds and boots one kernel; its matrix-style entry (status, build, figures, ...)."""
    k = {"label": label, "series": args.series, "flavour": f"source:{args.config}", "config": args.config,
         "patches": patches}
    return matrix.run_kernel(k, args, run_dir, base_cpio)


def judge_all(run_dir, doc, binary):
    """Fills the unmodified kernel's verdict and each mutant's caught/by from the results files
    in run_dir (compare runs again); returns the exit status."""
    base_json = os.path.join(run_dir, f"{BASE_LABEL}.json")
    base = doc["unmodified"]
    base_doc = load(base_json) if base.get("status") in ("ok", "incomplete") else None
    base["verdict"] = judge_base(base, base_doc)
    base["shares"] = share_text(base_doc)
    base_ok = base["verdict"] == "pass"
    # Every further run of the unmodified kernel must pass too; what fails in any of them
    # catches nothing when a mutant fails it.
    others = []
    for again in base.get("again", []):
        again_doc = load(os.path.join(run_dir, f"{again['label']}.json")) if again.get("status") == "ok" else None
        again["verdict"] = judge_base(again, again_doc)
        base_ok &= again["verdict"] == "pass"
        if again_doc is not None:
            others.append(again_doc)
    for m in doc["mutants"]:
        mut_json = os.path.join(run_dir, f"{m['name']}.json")
        mut_doc = load(mut_json) if os.path.exists(mut_json) else None
        cmp_status, cmp_doc, cmp_err = None, None, None
        if base_doc is not None and mut_doc is not None:
            cmp_status, cmp_doc, cmp_err = compare(binary, base_json, mut_json,
                                                   os.path.join(run_dir, f"{m['name']}.compare.json"))
        judged = judge_mutant(m, mut_doc, cmp_status, cmp_doc, base.get("status") == "ok", base_doc, others)
        m.update(compare_exit=cmp_status, compare_error=cmp_err if cmp_status == 2 else None,
                 shares=share_text(mut_doc), **judged, first_finding=first_finding(judged))
    doc["exit"] = 0 if base_ok and all(m["caught"] for m in doc["mutants"]) else 1
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


def main(argv):
    args = parse_args(argv)
    args.cache = matrix.DEFAULT_CACHE     # run_kernel's package cache: unused for source kernels
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    if not os.access(args.binary, os.X_OK):
        print(f"mutants: {args.binary}: no static rtthrottle (make static)", file=sys.stderr)
        return 2
    if args.rejudge:
        return rejudge(args.rejudge, args.binary)
    run = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_dir = os.path.join(args.out, run)
    os.makedirs(os.path.join(run_dir, "work"))
    base_cpio = guest.base_initramfs(os.path.join(run_dir, "work"), args.binary, args.rtt_args)
    log(f"unmodified kernel + {len(args.patch)} mutant(s), rtthrottle run {' '.join(args.rtt_args)}; results in {run_dir}")
    start = time.monotonic()

    base_entry = guest_run(BASE_LABEL, [], args, run_dir, base_cpio)
    figures = base_entry.get("figures") or {}
    doc = {"run": run, "series": args.series, "config": args.config, "rtthrottle_args": args.rtt_args,
           "source_version": (base_entry.get("package") or "").partition(" ")[2] or None,
           "unmodified": {"status": base_entry.get("status"), "reason": base_entry.get("reason"),
                          "checks_passed": figures.get("checks_passed"), "checks_failed": figures.get("checks_failed"),
                          "build": base_entry.get("build"), "wall_s": base_entry.get("wall_s")},
           "mutants": []}
    base_doc = load(os.path.join(run_dir, f"{BASE_LABEL}.json"))
    log(f"{BASE_LABEL}: {judge_base(base_entry, base_doc)}")
    for n in range(2, args.unmodified_runs + 1):
        label = f"{BASE_LABEL}-{n}"
        entry = guest_run(label, [], args, run_dir, base_cpio)
        doc["unmodified"].setdefault("again", []).append(
            {"label": label, "status": entry.get("status"), "reason": entry.get("reason")})
        log(f"{label}: {judge_base(entry, load(os.path.join(run_dir, f'{label}.json')))}")
    for i, path in enumerate(args.patch, 1):
        label = label_of(path)
        log(f"[{i}/{len(args.patch)}] {label}")
        entry = guest_run(label, [path], args, run_dir, base_cpio)
        fields = header(path)
        doc["mutants"].append({"name": label, "patch": os.path.relpath(os.path.abspath(path), guest.ROOT),
                               "breaks": fields.get("Breaks"), "promise": fields.get("Promise"),
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
