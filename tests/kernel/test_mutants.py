# SPDX-License-Identifier: GPL-2.0-only
"""`make mutants` without booting anything: the mutant patches (headers, and that each applies
to Debian's linux-source-6.12), the caught/not-caught logic and table of ci/mutants/run.py on
fixture results, the kernel build's cache key and config check (ci/matrix/kbuild.py), source
kernels in a kernel list, git bisect run's answers (ci/matrix/bisect_step.py) and bad usage.
The mutants themselves are judged by `make mutants` (minutes a kernel), not here."""
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

import rtt

MUTANTS = os.path.join(rtt.ROOT, "ci", "mutants")
MATRIX = os.path.join(rtt.ROOT, "ci", "matrix")
PYTHON = "/usr/bin/python3"


def _module(name, path):
    if MATRIX not in sys.path:
        sys.path.insert(0, MATRIX)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_py():
    return _module("mutants_run", os.path.join(MUTANTS, "run.py"))


def test_every_mutant_says_what_it_breaks_and_which_promise():
    run = _run_py()
    patches = sorted(glob.glob(os.path.join(MUTANTS, "*.patch")))
    assert len(patches) >= 10, f"{len(patches)} mutants, want at least 10"
    for path in patches:
        fields = run.header(path)
        name = os.path.basename(path)[:-len(".patch")]
        assert fields.get("Mutant") == name, (path, fields.get("Mutant"))
        for key in ("Breaks", "Promise", "Against"):
            assert len(fields.get(key) or "") > 20, f"{name}: header field {key} missing or too short"
        with open(path) as f:
            text = f.read()
        touched = [line[6:].split()[0] for line in text.splitlines() if line.startswith("+++ b/")]
        assert touched and all(t.startswith("kernel/sched/") for t in touched), (name, touched)


def test_every_mutant_applies_to_the_debian_6_12_source():
    tarball = "/usr/src/linux-source-6.12.tar.xz"
    if not os.path.exists(tarball):
        raise rtt.Skip("linux-source-6.12 not installed (ci/install-deps.sh --kernel-build)")
    tmp = tempfile.mkdtemp(prefix="rtt-mutants-src-")
    try:
        subprocess.run(["tar", "-xJf", tarball, "-C", tmp, "--strip-components=1", "--wildcards",
                        "linux-source-6.12/kernel/sched/*"], check=True, timeout=300)
        for path in sorted(glob.glob(os.path.join(MUTANTS, "*.patch"))):
            proc = subprocess.run(["patch", "-p1", "--dry-run", "--batch", "--forward", "-i", path], cwd=tmp,
                                  capture_output=True, text=True)
            assert proc.returncode == 0 and "offset" not in proc.stdout and "fuzz" not in proc.stdout, \
                (os.path.basename(path), proc.stdout, proc.stderr)
    finally:
        shutil.rmtree(tmp)


def _doc(checks=(), errors=(), agrees=True, shares=None):
    """A results document with one fifo-hog-share result per policy of shares."""
    results = []
    for policy, (hog, victim) in (shares or {"default": (0.95, 0.05)}).items():
        results.append({"scenario": "fifo-hog-share", "policy": {"name": policy}, "verdict": "pass",
                        "checks": [], "tasks": [{"role": "hog", "metrics": {"cpu_share_periods": hog}},
                                                {"role": "victim", "metrics": {"cpu_share_periods": victim}}]})
    for scenario, metric, measured in checks:
        results.append({"scenario": scenario, "policy": {"name": "half"}, "verdict": "fail",
                        "checks": [{"task": "hog", "metric": metric, "measured": measured, "expected": 0.5,
                                    "tolerance": 0.03, "kind": "approx", "unit": "ratio", "verdict": "fail"}]})
    for scenario in errors:
        results.append({"scenario": scenario, "policy": {"name": "default"}, "verdict": "error", "error": "boom"})
    return {"results": results, "run": {"complete": True},
            "kernel_model": {"agrees": agrees, "observed": {"evidence": "hog alone got 1.0"}}}


def test_caught_by_checks_errors_regime_compare_and_run():
    run = _run_py()
    ok = {"status": "ok"}
    base_pass = run.judge_base(ok, _doc())
    assert base_pass == "pass", base_pass
    assert run.judge_base(ok, _doc(checks=[("fifo-hog-share", "cpu_share", 0.9)])).startswith("fail: 1 finding")
    assert run.judge_base({"status": "timeout", "reason": "no end marker"}, None).startswith("fail: timeout")

    j = run.judge_mutant(ok, _doc(checks=[("fifo-hog-share", "cpu_share_periods", 0.95)]), 0, None, True)
    assert j["caught"] and j["by"]["checks"][0].startswith("fifo-hog-share.half: hog.cpu_share_periods measured 0.95")
    assert run.first_finding(j).startswith("check: fifo-hog-share.half")
    unmeasured = _doc()
    unmeasured["results"].append({"scenario": "rlimit-rttime", "policy": {"name": "default"}, "verdict": "fail",
                                  "checks": [{"task": "hog", "metric": "sigxcpu_cpu_ms", "verdict": "not-measured",
                                              "kind": k} for k in ("at_least", "at_most")]})
    j = run.judge_mutant(ok, unmeasured, 0, None, True)
    assert j["caught"] and j["by"]["checks"] == ["rlimit-rttime.default: hog.sigxcpu_cpu_ms not measured"], j
    j = run.judge_mutant(ok, _doc(errors=["admin-recovery"]), 0, None, True)
    assert j["caught"] and j["by"]["errors"] == ["admin-recovery.default: error: boom"], j
    j = run.judge_mutant(ok, _doc(agrees=False), 0, None, True)
    assert j["caught"] and "hog alone got 1.0" in j["by"]["regime"], j
    table = {"rows": [{"verdict": "regressed", "case": "fifo-hog-share.default", "task": "hog", "metric": "gap_max_us",
                       "base_median": 50000, "new_median": 90000, "unit": "us"},
                      {"verdict": "unchanged", "case": "x", "task": "hog", "metric": "cpu_share"}]}
    j = run.judge_mutant(ok, _doc(), 1, table, True)
    assert j["caught"] and j["by"]["compare"] == ["fifo-hog-share.default hog.gap_max_us 5e+04 -> 9e+04 us"], j
    # A check that failed on the unmodified kernel too catches nothing (noise, or the suite's own
    # false alarm); a different check of the same mutant still does.
    base = _doc(checks=[("rlimit-rttime", "sigxcpu_cpu_ms", 263)])
    j = run.judge_mutant(ok, _doc(checks=[("rlimit-rttime", "sigxcpu_cpu_ms", 324)]), 0, None, True, base)
    assert not j["caught"] and j["by"]["also_unmodified"][0].startswith("rlimit-rttime.half: hog.sigxcpu_cpu_ms"), j
    j = run.judge_mutant(ok, _doc(checks=[("rlimit-rttime", "sigxcpu_cpu_ms", 324), ("fifo-hog-share", "cpu_share", 1)]),
                         0, None, True, base)
    assert j["caught"] and j["by"]["checks"] == [
        "fifo-hog-share.half: hog.cpu_share measured 1, expected approx 0.5 +- 0.03 ratio"], j
    # Everything passed and compare saw nothing: slipped through.
    j = run.judge_mutant(ok, _doc(), 0, {"rows": []}, True)
    assert not j["caught"] and run.first_finding(j) == "-", j
    # A run that did not finish, while the unmodified kernel's did: caught by the run itself;
    # not when the unmodified kernel failed too, and never when the mutant did not even boot.
    assert run.judge_mutant({"status": "timeout", "reason": "no end marker"}, None, None, None, True)["caught"]
    assert not run.judge_mutant({"status": "timeout", "reason": "x"}, None, None, None, False)["caught"]
    assert not run.judge_mutant({"status": "boot-failure", "reason": "x"}, None, None, None, True)["caught"]
    assert not run.judge_mutant({"status": "build-failure", "reason": "x"}, None, None, None, True)["caught"]


def test_table_names_what_caught_each_mutant_and_what_slipped():
    run = _run_py()
    caught = run.judge_mutant({"status": "ok"}, _doc(checks=[("fifo-hog-share", "cpu_share_periods", 0.95)]), 0,
                              None, True)
    slipped = run.judge_mutant({"status": "ok"}, _doc(), 0, {"rows": []}, True)
    doc = {"run": "20261204T000000Z", "series": "6.12", "source_version": "6.12.118-1~deb12u1", "config": "rt-group",
           "rtthrottle_args": ["--suite", "quick"],
           "unmodified": {"status": "ok", "verdict": "pass", "checks_passed": 50,
                          "shares": run.share_text(_doc(shares={"default": (0.95, 0.05), "half": (0.5, 0.5)}))},
           "mutants": [dict(name="m-caught", status="ok", shares="-", breaks="a", **caught,
                            first_finding=run.first_finding(caught)),
                       dict(name="m-slipped", status="ok", shares="-", breaks="the throttle", **slipped,
                            first_finding=run.first_finding(slipped))]}
    text = run.table_text(doc)
    assert "unmodified kernel: pass (ok, 50 checks passed)" in text, text
    assert "d 0.95/0.05 h 0.50/0.50" in text, text
    line = next(x for x in text.splitlines() if x.startswith("m-caught"))
    assert " yes " in line and "check: fifo-hog-share.half: hog.cpu_share_periods" in line, line
    line = next(x for x in text.splitlines() if x.startswith("m-slipped"))
    assert " NO " in line, line
    assert "1 of 2 mutants caught" in text and "NOT CAUGHT m-slipped: breaks: the throttle" in text, text


def test_unmodified_kernel_must_pass_every_run_and_its_failures_catch_nothing():
    run = _run_py()
    tmp = tempfile.mkdtemp(prefix="rtt-mutants-again-")
    flaky = ("rlimit-rttime", "sigxcpu_cpu_ms", 290)
    for label, doc in (("unmodified", _doc()), ("unmodified-2", _doc()), ("unmodified-3", _doc(checks=[flaky])),
                       ("m", _doc(checks=[flaky]))):
        with open(os.path.join(tmp, label + ".json"), "w") as f:
            json.dump(doc, f)
    run.compare = lambda binary, base, new, out: (0, {"rows": []}, "")
    doc = {"run": "20261204T000000Z", "series": "6.12", "config": "rt-group", "rtthrottle_args": ["--suite", "quick"],
           "unmodified": {"status": "ok", "checks_passed": 50,
                          "again": [{"label": "unmodified-2", "status": "ok"}, {"label": "unmodified-3", "status": "ok"}]},
           "mutants": [{"name": "m", "status": "ok"}]}
    # The third run of the unmodified kernel failed a check: a false alarm, so the run fails, and
    # the mutant that failed only that check is not caught by it.
    assert run.judge_all(tmp, doc, "/nonexistent") == 1
    assert [a["verdict"] for a in doc["unmodified"]["again"]][0] == "pass"
    assert doc["unmodified"]["again"][1]["verdict"].startswith("fail: 1 finding"), doc["unmodified"]
    assert not doc["mutants"][0]["caught"] and doc["mutants"][0]["by"]["also_unmodified"], doc["mutants"][0]
    text = run.table_text(doc)
    assert "; unmodified-2: pass; unmodified-3: fail" in text, text.splitlines()[1]
    shutil.rmtree(tmp)


def _cli(args, script=os.path.join(MUTANTS, "run.py")):
    return subprocess.run([PYTHON, script] + args, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_bad_usage_exits_2_naming_the_input():
    tmp = tempfile.mkdtemp(prefix="rtt-mutants-args-")
    no_header = os.path.join(tmp, "plain.patch")
    with open(no_header, "w") as f:
        f.write("--- a/x\n+++ b/x\n")
    for args, named in ((["--patch", "/nonexistent.patch"], "/nonexistent.patch"),
                        (["--patch", no_header], "Mutant:"),
                        (["--config", "nosuch"], "--config nosuch"),
                        (["--boot-retries", "-1"], "--boot-retries"),
                        (["--jobs", "0"], "--jobs"),
                        (["--unmodified-runs", "0"], "--unmodified-runs"),
                        (["--", "--output", "x.json"], "--output"),
                        (["--patch", os.path.join(MUTANTS, "rt-throttle-never-set.patch")] * 2, "share a name")):
        proc = _cli(args)
        assert proc.returncode == 2 and named in proc.stderr, (args, proc.returncode, proc.stderr)
    proc = _cli(["--help"])
    assert proc.returncode == 0 and "caught" in proc.stdout and "--patch" in proc.stdout, proc.stdout
    shutil.rmtree(tmp)


def test_kernel_build_cache_key_and_config_check():
    kbuild = _module("kbuild", os.path.join(MATRIX, "kbuild.py"))
    frags = kbuild.fragments("rt-group")
    assert [os.path.basename(f) for f in frags] == ["base.config", "rt-group.config"]
    for name in ("no-rt-group", "preempt-rt"):
        kbuild.fragments(name)
    try:
        kbuild.fragments("nosuch")
        raise AssertionError("an unknown config was accepted")
    except kbuild.MatrixError as exc:
        assert "nosuch" in str(exc) and "rt-group" in str(exc), exc
    tmp = tempfile.mkdtemp(prefix="rtt-kbuild-")
    p1, p2 = os.path.join(tmp, "a.patch"), os.path.join(tmp, "b.patch")
    for path, text in ((p1, "one\n"), (p2, "two\n")):
        with open(path, "w") as f:
            f.write(text)
    key = kbuild.image_key("6.12", "6.12.118-1~deb12u1", frags, [])
    assert key == kbuild.image_key("6.12", "6.12.118-1~deb12u1", frags, [])
    others = {kbuild.image_key("6.12", "6.12.119-1", frags, []), kbuild.image_key("6.12", "6.12.118-1~deb12u1", frags, [p1]),
              kbuild.image_key("6.12", "6.12.118-1~deb12u1", frags, [p2]),
              kbuild.image_key("6.12", "6.12.118-1~deb12u1", frags[:1], [])}
    assert key not in others and len(others) == 4, others
    want = kbuild.wanted_options(frags)
    assert want["CONFIG_RT_GROUP_SCHED"] == "y" and want["CONFIG_HZ_250"] == "y"
    assert kbuild.wanted_options(kbuild.fragments("no-rt-group"))["CONFIG_RT_GROUP_SCHED"] == "n"
    config = "CONFIG_RT_GROUP_SCHED=y\n# CONFIG_PREEMPT_RT is not set\nCONFIG_HZ_250=y\n"
    assert kbuild.missing_options(config, {"CONFIG_RT_GROUP_SCHED": "y", "CONFIG_HZ_250": "y"}) == []
    assert kbuild.missing_options(config, {"CONFIG_PREEMPT_RT": "y", "CONFIG_FOO": "n"}) == \
        ["CONFIG_PREEMPT_RT=y (got n)"]
    shutil.rmtree(tmp)


def test_kernel_list_names_kernels_built_from_source():
    matrix = _module("matrix_main", os.path.join(MATRIX, "matrix.py"))
    k = matrix.parse_list_line(["m", "6.12", "source:rt-group", "ci/mutants/rt-throttle-never-set.patch"])
    assert k["config"] == "rt-group" and k["patches"] == [os.path.join(MUTANTS, "rt-throttle-never-set.patch")], k
    assert matrix.parse_list_line(["6.1", "6.1", "amd64"]) == {"label": "6.1", "series": "6.1", "flavour": "amd64"}
    assert matrix.parse_list_line(["x", "6.1", "amd64", "extra"]) is None
    assert matrix.parse_list_line(["x", "6.12", "source:"]) is None
    kernels = matrix.read_list(os.path.join(rtt.ROOT, "ci", "kernels-source.list"), None)
    assert {k["config"] for k in kernels} == {"rt-group", "no-rt-group", "preempt-rt"}, kernels
    tmp = tempfile.mkdtemp(prefix="rtt-list-")
    bad = os.path.join(tmp, "bad.list")
    with open(bad, "w") as f:
        f.write("x 6.1 amd64 extra\n")
    proc = _cli(["--list", bad], os.path.join(MATRIX, "matrix.py"))
    assert proc.returncode != 0 and "bad.list:1" in proc.stderr, proc.stderr
    shutil.rmtree(tmp)


def test_bisect_step_answers_in_git_bisect_run_terms():
    bisect = _module("bisect_step", os.path.join(MATRIX, "bisect_step.py"))
    assert bisect.verdict("ok", 0) == 0 and bisect.verdict("ok", 1) == 1
    for status, exit_status in (("ok", 125), ("ok", 4), ("ok", 2), ("ok", 143), ("ok", None),
                                ("boot-failure", None), ("timeout", None), ("guest-died", 0), ("corrupt", 0)):
        assert bisect.verdict(status, exit_status) == 125, (status, exit_status)
    # Bad usage must stop git bisect run (above 127), never read as "bad" (1-127 but 125).
    proc = subprocess.run([os.path.join(rtt.ROOT, "ci", "bisect-step.sh"), "--tree", "/nonexistent"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 128 and "--tree /nonexistent" in proc.stderr, (proc.returncode, proc.stderr)
