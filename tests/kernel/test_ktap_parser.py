# SPDX-License-Identifier: GPL-2.0-only
"""The KTAP a run prints, read by the kernel's own KTAP parser (tools/testing/kunit/kunit_parser.py
from Debian's linux-source, as kunit.py reads it): no parse error, and every test named, the
nested blocks of checks by their "# Subtest:" line, which must match the result line after them."""
import glob
import inspect
import io
import os
import subprocess
import sys
import tempfile

import rtt

KUNIT = "tools/testing/kunit"


def _kunit_dir():
    """A folder holding kunit_parser.py and kunit_printer.py: a kernel tree the mutants built, or
    the two files taken from /usr/src/linux-source-*.tar.xz (apt-get install linux-source-6.12)."""
    trees = sorted(glob.glob(f"/var/cache/rtthrottle-kernels/trees/*/{KUNIT}/kunit_parser.py"))
    if trees:
        return os.path.dirname(trees[-1])
    sources = sorted(glob.glob("/usr/src/linux-source-*.tar.xz"))
    if not sources:
        raise rtt.Skip("no kernel source: apt-get install linux-source-6.12 (ci/install-deps.sh --kernel-build)")
    out = tempfile.mkdtemp(prefix="rtt-kunit-")
    top = os.path.basename(sources[-1])[:-len(".tar.xz")]
    members = [f"{top}/{KUNIT}/{n}" for n in ("kunit_parser.py", "kunit_printer.py")]
    subprocess.run(["tar", "-xJf", sources[-1], "-C", out, "--strip-components=4", *members], check=True, timeout=300)
    return out


def _walk(test, depth=0):
    yield test, depth
    for sub in test.subtests:
        yield from _walk(sub, depth + 1)


def test_kunit_parser_reads_a_run_without_errors_and_names_every_test():
    folder = _kunit_dir()
    sys.path.insert(0, folder)
    try:
        import kunit_parser
        import kunit_printer
    finally:
        sys.path.remove(folder)
    kunit_printer.stdout._output = io.StringIO()  # its own summary of the run: not ours to print
    tmp = tempfile.mkdtemp(prefix="rtt-ktap-")
    args = ["run", "--quiet", "--scenario", "fifo-hog-share", "--policy", "default", "--duration", "1",
            "--probe-seconds", "0", "--output", os.path.join(tmp, "r.json")]
    # Root: the scenario's checks as a nested block too; otherwise only kernel-defaults has one.
    proc = rtt.run(args)
    assert proc.returncode in (0, 1, 4, 125), (proc.returncode, proc.stderr[-2000:])
    lines = proc.stdout.splitlines()
    assert any(line.startswith("    # Subtest: ") for line in lines), proc.stdout
    # Newer trees (7.x) hand the printer in; older ones print to their module's stdout.
    takes_printer = "printer" in inspect.signature(kunit_parser.parse_run_tests).parameters
    parsed = kunit_parser.parse_run_tests(lines, kunit_printer.stdout) if takes_printer else \
        kunit_parser.parse_run_tests(lines)
    assert parsed.counts.errors == 0, [(t.name, t.log) for t, _ in _walk(parsed) if t.counts.errors]
    assert parsed.status != kunit_parser.TestStatus.FAILURE_TO_PARSE_TESTS, parsed.status
    doc = rtt.load(os.path.join(tmp, "r.json"))
    results = doc.get("kernel_results", []) + doc["results"]
    tops = [t for t, depth in _walk(parsed) if depth == 1]
    assert len(tops) == len(results), ([t.name for t in tops], len(results))
    nested = 0
    for t, depth in _walk(parsed):
        if depth:
            assert t.name, f"an unnamed test at depth {depth}"
        if depth == 1 and t.subtests:
            nested += 1
            result = results[tops.index(t)]
            assert len(t.subtests) == len(result.get("checks", [])), (t.name, len(t.subtests))
            for sub, c in zip(t.subtests, result["checks"]):
                assert sub.name == f"{c['task']}.{c['metric']}" + (f".{c['name']}" if "name" in c else ""), sub.name
    assert nested >= 1 + (os.geteuid() == 0), nested
    subprocess.run(["rm", "-rf", tmp])
