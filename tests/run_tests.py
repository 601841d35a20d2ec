#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs the unit tests (C), the kernel tests (real knobs, real tasks) and the fault-injection
tests (tests/faults: killed harness, killed tasks, signals, full or read-only results folder).

Prints one line per test and a closing 'N passed, N failed, N skipped'. After every kernel or
fault test it checks that the knobs are back, tracefs is as it was (mounts, rtthrottle-*
instances) and no realtime task of ours is left; a test that leaves any behind fails.
Usage: tests/run_tests.py [--unit-only|--kernel-only] [NAME-SUBSTRING]
(--kernel-only runs the kernel and the fault tests; NAME-SUBSTRING also matches 'faults'.)
"""
import importlib.util
import os
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernel"))
import rtt  # noqa: E402


def run_unit(name_filter):
    binary = os.path.join(rtt.ROOT, "build", "unit-tests")
    proc = subprocess.run([binary] + ([name_filter] if name_filter else []), capture_output=True, text=True)
    passed = failed = 0
    for line in proc.stdout.splitlines():
        if line.startswith("ok "):
            passed += 1
            print(f"ok unit {line.split(' ', 2)[2]}")
        elif line.startswith("not ok "):
            failed += 1
            print(f"not ok unit {line.split(' ', 3)[3]}")
        elif line.startswith("# ") and not line.startswith("# unit:"):
            print(line)
    if proc.returncode not in (0, 1) or (passed + failed == 0 and not name_filter):
        print(f"not ok unit runner exited {proc.returncode}\n{proc.stderr}")
        failed += 1
    return passed, failed


def kernel_tests(name_filter, folder="kernel"):
    tests = []
    kdir = os.path.join(HERE, folder)
    for fname in sorted(os.listdir(kdir)):
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(kdir, fname))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name in dir(module):
            fn = getattr(module, name)
            if name.startswith("test_") and callable(fn):
                full = f"{fname[5:-3]}.{name[5:]}"
                if not name_filter or name_filter in full or name_filter == folder:
                    tests.append((full, fn, getattr(fn, "__code__").co_firstlineno))
    tests.sort(key=lambda t: (t[0].split(".")[0], t[2]))
    return tests


def leftovers(knobs_before, tracefs_before):
    problems = []
    knobs = rtt.read_knobs()
    if knobs != knobs_before:
        problems.append(f"knobs changed: {knobs_before} -> {knobs}")
    tracefs = rtt.tracefs_state()
    if tracefs != tracefs_before:
        problems.append(f"tracefs changed: {tracefs_before} -> {tracefs}")
    tasks = rtt.rt_tasks_of()
    if tasks:
        problems.append(f"realtime tasks left: {tasks}")
    return problems


def run_kernel(name_filter):
    passed = failed = skipped = 0
    knobs_before = rtt.read_knobs()
    tracefs_before = rtt.tracefs_state()
    tests = [("kernel",) + t for t in kernel_tests(name_filter)]
    tests += [("faults",) + t for t in kernel_tests(name_filter, "faults")]
    for suite, full, fn, _ in tests:
        start = time.monotonic()
        try:
            fn()
            problems = leftovers(knobs_before, tracefs_before)
            if problems:
                raise AssertionError("; ".join(problems))
            passed += 1
            print(f"ok {suite} {full} ({time.monotonic() - start:.1f} s)")
        except rtt.Skip as skip:
            skipped += 1
            print(f"ok {suite} {full} # SKIP {skip}")
        except Exception as exc:  # a failed assertion or an unexpected error: both fail the test
            failed += 1
            print(f"not ok {suite} {full} ({time.monotonic() - start:.1f} s)")
            for line in traceback.format_exception_only(type(exc), exc):
                for sub in line.rstrip().splitlines():
                    print(f"# {sub}")
            if leftovers(knobs_before, tracefs_before):
                subprocess.run([rtt.BINARY, "restore"], capture_output=True)
        sys.stdout.flush()
    return passed, failed, skipped


def keep_off_measured_cpus():
    """The runner (and what it polls with) stays on CPU 0, off the CPUs the suite measures."""
    if len(os.sched_getaffinity(0)) > 1 and 0 in os.sched_getaffinity(0):
        os.sched_setaffinity(0, {0})


def main(argv):
    # Stopped with SIGTERM, the tests' finally blocks still run (spinners killed, knobs checked).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    keep_off_measured_cpus()
    unit_only = "--unit-only" in argv
    kernel_only = "--kernel-only" in argv
    rest = [a for a in argv if not a.startswith("--")]
    name_filter = rest[0] if rest else None
    passed = failed = skipped = 0
    if not kernel_only:
        p, f = run_unit(name_filter)
        passed, failed = passed + p, failed + f
    if not unit_only:
        p, f, s = run_kernel(name_filter)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
