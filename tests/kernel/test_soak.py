# SPDX-License-Identifier: GPL-2.0-only
"""`rtthrottle soak` without running a suite: --help, bad input (exit 2 naming it, nothing
written), and --from on the fixtures (tables, soak.json, soak.png). The suites themselves take
~100 s each and are run by `make soak`, not here."""
import json
import os
import shutil
import tempfile

import rtt

FIXTURES = os.path.join(rtt.ROOT, "tests", "fixtures")


def test_soak_help():
    proc = rtt.run(["soak", "--help"])
    assert proc.returncode == 0 and "Usage: rtthrottle soak" in proc.stdout, proc
    assert "margin" in proc.stdout and "--from" in proc.stdout


def test_soak_bad_input_exits_2_and_runs_nothing():
    tmp = tempfile.mkdtemp(prefix="rtt-soak-")
    try:
        out = os.path.join(tmp, "out")
        cases = [(["--runs", "0"], "--runs"), (["--runs", "x"], "'x'"), (["--from"], "--from needs"),
                 (["stray"], "stray"), (["--bogus"], "--bogus"),
                 (["--from", "a.json", "--", "x"], "no run options"),
                 (["--", "--output", "r.json"], "--output"),
                 (["--from", os.path.join(FIXTURES, "malformed.json")], "malformed.json")]
        for args, named in cases:
            proc = rtt.run(["soak", "--out", out] + args, timeout=30)
            assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
            assert named in proc.stderr, (args, named, proc.stderr)
            assert not os.path.exists(os.path.join(out, "soak.json")), args
    finally:
        shutil.rmtree(tmp)


def test_soak_from_fixtures():
    tmp = tempfile.mkdtemp(prefix="rtt-soak-")
    try:
        files = [os.path.join(FIXTURES, f) for f in ("quick-1rep.json", "kernel-defaults-1rep.json")]
        # The soak's options may follow the files.
        proc = rtt.run(["soak", "--from"] + files + ["--out", tmp], timeout=120)
        # kernel-defaults-1rep.json holds a failed check: a false alarm, exit 1.
        assert proc.returncode == 1, (proc.returncode, proc.stderr)
        assert "flagged (failed, or within 10% of the bound)" in proc.stdout, proc.stdout
        with open(os.path.join(tmp, "soak.json")) as f:
            doc = json.load(f)
        assert doc["schema"] == "rtthrottle-soak/1" and doc["suites"] == 2, doc["suites"]
        assert doc["totals"]["false_alarms"] == sum(c["false_alarms"] for c in doc["checks"]) > 0
        assert all(c["flagged"] for c in doc["checks"] if c["false_alarms"]), doc["flagged"]
        with open(os.path.join(tmp, "soak.txt")) as f:
            assert f.read() == proc.stdout
        only_quick = rtt.run(["soak", "--from", files[0]])
        assert only_quick.returncode == 0, (only_quick.returncode, only_quick.stdout)
    finally:
        shutil.rmtree(tmp)
