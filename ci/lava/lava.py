#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make lava: runs the LAVA job ci/lava/qemu-job.yaml.in on this machine with lava-run (no LAVA
server) against the device ci/lava/qemu-device.yaml, and checks what LAVA recorded.

1. Kernel: a Debian package (--kernel SERIES:FLAVOUR, default 6.1:amd64, fetched and cached as
   `make matrix` does) or a kernel built from source (--image DIR: a folder of
   /var/cache/rtthrottle-kernels/images/ with bzImage and config-<release>).
2. Ramdisk: the matrix initramfs (busybox, rtthrottle and cyclictest with their libraries,
   scenarios, the kernel's config) without arguments, so its init gives LAVA a shell on the console.
3. Job: the template's @FIELDS@ filled in with file:// URLs of the kernel, the ramdisk and this
   repository (its committed HEAD: LAVA clones it for the test definition).
4. lava-run under flock /tmp/rtt-machine.lock (--no-lock when the caller holds it), with a deadline.
5. Checks, from LAVA's own log: the job passed; every KTAP result and check the guest printed is
   one lava-test-case of the rtthrottle definition with the same pass/fail/skip, each measured
   check with its measurement (to the digits KTAP prints) and unit, a result's checks right after
   it in KTAP's order; no case without a KTAP line but the run's own ('rtthrottle',
   'rtthrottle-run').

Output in results/lava/<UTC time>/ (--out): job.yaml, device.yaml, ramdisk.cpio, lava.log (lava-run's log,
a JSON object a line), result.yaml (lava-run's job result), results.yaml (every result LAVA logged, as a LAVA
server lists them), ktap.txt (the KTAP lines from the console), summary.json.
Exit status: 0 the job ran, LAVA's results agree with the KTAP and no case failed (skips and an
unknown rtthrottle-run, a run that exited 125, are no failure; with --checks-may-fail failed
cases are reported only); 1 otherwise (summary.json says why); 2 bad usage. --validate renders the job and only runs
`lava-run --validate`.
"""
import argparse
import datetime
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "ci", "matrix"))
import guest  # noqa: E402

TEMPLATE = os.path.join(HERE, "qemu-job.yaml.in")
DEVICE = os.path.join(HERE, "qemu-device.yaml")
DEFINITION = "0_rtthrottle"  # LAVA's name of the first test definition, "rtthrottle"
OWN_CASES = {"rtthrottle", "rtthrottle-run"}  # the run's cases, no KTAP line of their own
KTAP_LINE = re.compile(r"^( *)(ok|not ok) \d+ (\S+)(?: # (.*))?$")
MEASURED = re.compile(r"^measured (-?[0-9.]+) \S+ \S+ \+- \S+ (\S+)$")


def log(msg):
    print(f"lava: {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ci/lava/lava.py", description=__doc__.split("\n\n")[0])
    k = p.add_mutually_exclusive_group()
    k.add_argument("--kernel", default="6.1:amd64", help="Debian kernel SERIES:FLAVOUR (default 6.1:amd64)")
    k.add_argument("--image", help="a kernel built from source: folder with bzImage and config-<release>")
    p.add_argument("--suite", default="quick", help="suite the guest runs (default quick)")
    p.add_argument("--scenarios", default="", help="comma-separated scenarios instead of the suite")
    p.add_argument("--duration", default="3", help="seconds a window (default 3)")
    p.add_argument("--binary", default=guest.DEFAULT_BINARY,
                   help="rtthrottle for the ramdisk (default build/rtthrottle: make; with the libraries "
                        "ldd lists, and cyclictest with its own)")
    p.add_argument("--cache", default="/var/cache/rtthrottle-matrix", help="Debian kernel packages")
    p.add_argument("--out", help="output folder (default results/lava/<UTC time>)")
    p.add_argument("--timeout", type=int, default=1500, help="seconds for lava-run in all (default 1500)")
    p.add_argument("--no-lock", action="store_true", help="the caller holds /tmp/rtt-machine.lock")
    p.add_argument("--validate", action="store_true", help="only lava-run --validate the rendered job")
    p.add_argument("--checks-may-fail", action="store_true",
                   help="exit 0 also when checks failed, if LAVA's results agree with the KTAP (CI: the "
                        "LAVA path is tested here; the figures under TCG are make matrix's)")
    args = p.parse_args(argv)
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", args.duration):
        p.error(f"--duration {args.duration!r}: seconds")
    if args.image and not os.path.isfile(os.path.join(args.image, "bzImage")):
        p.error(f"--image {args.image}: no bzImage there")
    if not args.validate and not os.path.isfile(args.binary):
        p.error(f"{args.binary}: no rtthrottle binary (make)")
    return args


def render(template, fields):
    """The template with every @NAME@ replaced; a field left over is an error."""
    with open(template) as f:
        text = f.read()
    for name, value in fields.items():
        text = text.replace(f"@{name}@", str(value))
    left = sorted(set(re.findall(r"@([A-Z_]+)@", text)))
    if left:
        raise ValueError(f"{template}: no value for {', '.join(left)}")
    return text


def kernel_files(args):
    """(vmlinuz, config or None, a name for the job) of --image or --kernel."""
    if args.image:
        configs = sorted(n for n in os.listdir(args.image) if n.startswith("config-"))
        meta = {}
        if os.path.isfile(os.path.join(args.image, "meta.json")):
            with open(os.path.join(args.image, "meta.json")) as f:
                meta = json.load(f)
        name = f"{meta.get('release', os.path.basename(args.image))} ({meta.get('config', 'built from source')})"
        return (os.path.join(args.image, "bzImage"), os.path.join(args.image, configs[0]) if configs else None, name)
    series, _, flavour = args.kernel.partition(":")
    package = guest.resolve(series, flavour or "amd64")
    vmlinuz, config = guest.fetch(package, args.cache)
    return vmlinuz, config, package


def job_fields(args, kernel_url, ramdisk_url, kernel_name):
    revision = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    return {"KERNEL_URL": kernel_url, "RAMDISK_URL": ramdisk_url, "KERNEL_NAME": kernel_name,
            "REPOSITORY": f"file://{ROOT}", "REVISION": revision,
            "SUITE": args.suite if not args.scenarios else "scenarios", "SCENARIOS": args.scenarios,
            "DURATION": args.duration, "TEST_MINUTES": 15}


def lava_run(job, out, validate, lock, timeout):
    """Runs lava-run; returns its exit status (None: killed at the deadline) and its seconds (the
    wait for the lock not counted). Log in lava.log."""
    cmd = ["lava-run", "--job-id", "1", "--output-dir", os.path.join(out, "lava-run"), "--device",
           os.path.join(out, "device.yaml")] + (["--validate"] if validate else []) + [job]
    fd = None
    if lock:
        fd = os.open(guest.MACHINE_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)
    start = time.monotonic()
    try:
        with open(os.path.join(out, "lava.log"), "w") as logf:
            proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                status = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 15)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, 9)
                    proc.wait()
                status = None
        return status, round(time.monotonic() - start, 1)
    finally:
        if fd is not None:
            os.close(fd)


def read_log(path):
    """lava-run's log: one mapping a line ({dt, lvl, msg}); a server's job log is the same as a
    YAML list ("- {...}" a line); anything else is skipped."""
    entries = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("- "):
                line = line[2:]
            try:
                entry = json.loads(line)
            except ValueError:
                try:  # results lines tag their numbers as strings (! "0.95"): YAML
                    entry = yaml.safe_load(line)
                except yaml.YAMLError:
                    continue
            if isinstance(entry, dict):
                entries.append(entry)
    return entries


def ktap_of(entries):
    """[(result case name, (result, None, None), [(check name, (result, measured, unit))])] from
    the KTAP lines of the console, in order, named as rtthrottle --lava names results; and the lines."""
    lines = []
    for e in entries:
        if e.get("lvl") == "target" and isinstance(e.get("msg"), str):
            lines.extend(s.rstrip("\r") for s in e["msg"].split("\n"))
    results, pending, kept = [], [], []
    for line in lines:
        m = KTAP_LINE.match(line)
        if not m:
            continue
        kept.append(line)
        indent, ok, name, directive = m.group(1), m.group(2) == "ok", m.group(3), m.group(4) or ""
        measured = MEASURED.match(directive)
        entry = ("skip" if directive.startswith("SKIP") else "pass" if ok else "fail",
                 measured.group(1) if measured else None, measured.group(2) if measured else None)
        if indent:
            pending.append((name, entry))
            continue
        # KCIDB path components: [a-zA-Z0-9_-], a sweep's "param=value" as "param-value".
        parts = name.split(".", 2)
        if len(parts) == 3:
            parts[2] = re.sub(r"[^a-zA-Z0-9_.-]", "_", parts[2].replace("=", "-", 1)).replace(".", "_")
            rep = re.search(r"_(rep\d+)$", parts[2])
            if rep:  # ".repN" stays a component of its own
                parts[2] = parts[2][:rep.start()] + "." + rep.group(1)
        results.append((".".join(parts), entry, pending))
        pending = []
    return results, kept


def agree(name, case, entry):
    """Disagreements of one lava-test-case with its KTAP line."""
    result, measured, unit = entry
    problems = []
    if case.get("result") != result:
        problems.append(f"{name}: KTAP {result}, LAVA {case.get('result')}")
    if measured is not None:
        decimals = len(measured.split(".")[1]) if "." in measured else 0
        value = case.get("measurement")
        try:
            close = abs(float(value) - float(measured)) <= 0.5 * 10 ** -decimals + 1e-9 * abs(float(measured))
        except (TypeError, ValueError):
            close = False
        if not close:
            problems.append(f"{name}: KTAP measured {measured}, LAVA measurement {value}")
        if case.get("units") != unit:
            problems.append(f"{name}: KTAP unit {unit}, LAVA units {case.get('units')}")
    return problems


def compare(cases, ktap):
    """Disagreements between LAVA's test cases (in the order logged) and the KTAP results, one
    sentence each. A result's checks follow its case in the order KTAP prints them; a check's case
    is result.<its KTAP name>, each dotted part reduced to [a-zA-Z0-9_-] as KCIDB paths are: the
    two are matched by position and by that name."""
    problems, order = [], [c["case"] for c in cases]
    by_name = {c["case"]: c for c in cases}
    seen = set(OWN_CASES)
    for base, entry, checks in ktap:
        if base not in by_name:
            problems.append(f"{base}: in the KTAP output, no lava-test-case")
            continue
        seen.add(base)
        problems += agree(base, by_name[base], entry)
        at = order.index(base) + 1
        logged = order[at:at + len(checks)]
        for k, (check, centry) in enumerate(checks):
            name = logged[k] if k < len(logged) else None
            expected = base + "." + ".".join(re.sub(r"[^a-zA-Z0-9_-]", "_", part) for part in check.split("."))
            if name != expected:
                problems.append(f"{base}.{check}: KTAP check {k + 1}, LAVA case there: {name}")
                continue
            seen.add(name)
            problems += agree(name, by_name[name], centry)
    for name in order:
        if name not in seen:
            problems.append(f"{name}: a lava-test-case without a KTAP line")
    return problems


def main(argv):
    args = parse_args(argv)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = os.path.abspath(args.out or os.path.join(ROOT, "results", "lava", stamp))
    os.makedirs(out, exist_ok=True)
    shutil.copy(DEVICE, os.path.join(out, "device.yaml"))
    if args.validate:
        # The artefacts only need to exist for validation: empty stand-ins.
        kernel, ramdisk, name = os.path.join(out, "bzImage"), os.path.join(out, "ramdisk.cpio"), "validate"
        for path in (kernel, ramdisk):
            open(path, "a").close()
    else:
        try:
            kernel, config, name = kernel_files(args)
        except guest.MatrixError as exc:
            log(str(exc))
            return 1
        ramdisk = guest.base_initramfs(os.path.join(out, "work"), args.binary, None, config)
    job = os.path.join(out, "job.yaml")
    with open(job, "w") as f:
        f.write(render(TEMPLATE, job_fields(args, f"file://{os.path.abspath(kernel)}",
                                            f"file://{os.path.abspath(ramdisk)}", name)))
    log(f"{'validating' if args.validate else 'running'} {job} (kernel {name})")
    status, wall = lava_run(job, out, args.validate, not args.no_lock and not args.validate, args.timeout)
    if args.validate:
        log(f"lava-run --validate exited {status}")
        return 0 if status == 0 else 1
    # The ramdisk as booted before LAVA's overlay: what a lab would upload.
    shutil.move(ramdisk, os.path.join(out, "ramdisk.cpio"))
    shutil.rmtree(os.path.join(out, "work"), ignore_errors=True)
    entries = read_log(os.path.join(out, "lava.log"))
    results = [e["msg"] for e in entries if e.get("lvl") == "results" and isinstance(e.get("msg"), dict)]
    with open(os.path.join(out, "results.yaml"), "w") as f:
        yaml.safe_dump(results, f, sort_keys=False)
    if os.path.isfile(os.path.join(out, "lava-run", "result.yaml")):
        shutil.copy(os.path.join(out, "lava-run", "result.yaml"), os.path.join(out, "result.yaml"))
    cases = [r for r in results if r.get("definition") == DEFINITION]
    expected, ktap = ktap_of(entries)
    with open(os.path.join(out, "ktap.txt"), "w") as f:
        f.write("\n".join(ktap) + "\n")
    job_result = next((r.get("result") for r in results if r.get("definition") == "lava" and r.get("case") == "job"),
                      None)
    problems = [] if status == 0 and job_result == "pass" else \
        [f"lava-run exited {status if status is not None else 'at the deadline'}, job {job_result}"]
    if not expected:
        problems.append("no KTAP result in the console log")
    problems += compare(cases, expected)
    counts = {v: sum(c.get("result") == v for c in cases) for v in ("pass", "fail", "skip", "unknown")}
    summary = {"kernel": name, "suite": args.suite, "scenarios": args.scenarios, "wall_s": wall,
               "lava_run_exit": status, "job": job_result, "test_cases": len(cases), "results": counts,
               "measured_cases": sum("measurement" in c for c in cases),
               "ktap_results": len(expected), "ktap_checks": sum(len(c) for _, _, c in expected), "problems": problems,
               "lava_actions": {r["case"]: r.get("result") for r in results if r.get("definition") == "lava"}}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    log(f"{len(cases)} test cases in LAVA's results ({', '.join(f'{v} {n}' for v, n in counts.items() if n)}), "
        f"{summary['measured_cases']} with a measurement; KTAP: {len(expected)} results, {summary['ktap_checks']} checks; "
        f"job {job_result}, {wall} s")
    for p in problems:
        log(f"  {p}")
    log(f"output in {out}")
    return 0 if not problems and cases and (counts["fail"] == 0 or args.checks_may_fail) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
