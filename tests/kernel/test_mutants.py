# SPDX-License-Identifier: GPL-2.0-only
"""`make mutants` without booting anything: the mutant patches (headers, the checks each Promise
maps to, and that each applies to Debian's linux-source-6.12), the rule of ci/mutants/judge.py
(caught, false alarm, missed, run problem) and run.py's table on synthetic results, the kernel build's cache key and config check (ci/matrix/kbuild.py), source
kernels in a kernel list, git bisect run's answers (ci/matrix/bisect_step.py) and bad usage.
The mutants themselves are judged by `make mutants` (minutes a kernel), not here."""
import datetime
import fnmatch
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
UPSTREAM_SHAPE = "the revert of an upstream fix"


def _module(name, path):
    if MATRIX not in sys.path:
        sys.path.insert(0, MATRIX)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_py():
    return _module("mutants_run", os.path.join(MUTANTS, "run.py"))


def _scenario_checks():
    """{scenario: (case names, its checks' task.metric[.name])} of the scenario files, and the
    kernel results (their checks are the kernel's settings and the regime probe's figures)."""
    out = {"kernel-defaults": ({"kernel-defaults"}, {"kernel.*"}), "regime-probe": ({"regime-probe"}, {"probe.*"})}
    for path in glob.glob(os.path.join(rtt.ROOT, "workloads", "scenarios", "*.json")):
        with open(path) as f:
            s = json.load(f)
        policies = [p["name"] if isinstance(p, dict) else p for p in s.get("policies") or []]
        names = {f"{c['task']}.{c['metric']}" for c in s.get("checks") or []}
        names |= {f"{c['task']}.{c['metric']}.{c['name']}" for c in s.get("checks") or [] if c.get("name")}
        out[s["name"]] = ({f"{s['name']}.{p}" for p in policies}, names)
    return out


def _mutants_suite_cases():
    """The cases `make mutants` runs (--suite mutants: the quick scenarios and those naming
    mutants, each under its own policies), and the kernel results every run has."""
    cases = {"kernel-defaults", "regime-probe"}
    for path in glob.glob(os.path.join(rtt.ROOT, "workloads", "scenarios", "*.json")):
        with open(path) as f:
            s = json.load(f)
        if {"quick", "mutants"} & set(s.get("suites") or []):
            cases |= {f"{s['name']}.{p['name'] if isinstance(p, dict) else p}" for p in s.get("policies") or []}
    return cases


def test_every_mutant_says_what_it_breaks_and_which_promise():
    run, judge = _run_py(), _judge()
    known = _scenario_checks()
    patches = sorted(glob.glob(os.path.join(MUTANTS, "*.patch")))
    assert len(patches) >= 15, f"{len(patches)} mutants, want at least 15"
    upstream = []
    for path in patches:
        fields = run.header(path)
        name = os.path.basename(path)[:-len(".patch")]
        assert fields.get("Mutant") == name, (path, fields.get("Mutant"))
        for key in ("Breaks", "Promise", "Against"):
            assert len(fields.get(key) or "") > 20, f"{name}: header field {key} missing or too short"
        # A revert of an upstream fix says so in its Shape and names the fix: commit id, the
        # committer date, the subject (subsystem: title); a made-up slip names none.
        up = judge.parse_upstream(fields.get("Upstream"))
        reverts = (fields.get("Shape") or "").startswith(UPSTREAM_SHAPE)
        assert reverts == (up is not None), \
            f"{name}: Shape {'starts' if reverts else 'does not start'} with {UPSTREAM_SHAPE!r} but Upstream is {up}"
        if up:
            datetime.date.fromisoformat(up["date"])
            assert ": " in up["subject"], f"{name}: Upstream subject {up['subject']!r} names no subsystem"
            upstream.append(name)
        # Checks: the checks its Promise maps to, each 'case: task.metric' naming a case and a
        # check that exist (a pattern that matches nothing would make every catch 'elsewhere').
        patterns = judge.parse_checks(fields.get("Checks"))
        assert patterns, f"{name}: no Checks: line"
        for pattern in patterns:
            case, sep, check = pattern.partition(": ")
            assert sep and check, f"{name}: Checks pattern {pattern!r} is not 'case: task.metric'"
            hits = [checks for cases, checks in known.values() if any(fnmatch.fnmatchcase(c, case) for c in cases)]
            assert hits, f"{name}: Checks pattern {pattern!r}: no scenario or policy matches {case!r}"
            assert any(fnmatch.fnmatchcase(m, check) or fnmatch.fnmatchcase(check, m) for h in hits for m in h), \
                f"{name}: Checks pattern {pattern!r}: no check of {case!r} matches {check!r}"
        # make mutants runs a case its Promise names: a mutant only a scenario outside the
        # suite could catch would be missed by construction.
        ran = _mutants_suite_cases()
        assert any(fnmatch.fnmatchcase(c, p.partition(": ")[0]) for p in patterns for c in ran), \
            f"{name}: no Checks pattern names a case of --suite mutants ({', '.join(patterns)})"
        with open(path) as f:
            text = f.read()
        touched = [line[6:].split()[0] for line in text.splitlines() if line.startswith("+++ b/")]
        assert touched and all(t.startswith("kernel/sched/") for t in touched), (name, touched)
    assert len(upstream) >= 4, f"{len(upstream)} reverts of upstream fixes ({', '.join(upstream)}), want at least 4"


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


def _judge():
    if MUTANTS not in sys.path:
        sys.path.insert(0, MUTANTS)
    return _module("mutants_judge", os.path.join(MUTANTS, "judge.py"))


def _check(metric, verdict="pass", task="hog", name=None, kind="approx"):
    c = {"task": task, "metric": metric, "measured": 0.9, "expected": 0.5, "tolerance": 0.03, "kind": kind,
         "unit": "ratio", "verdict": verdict}
    if name:
        c["name"] = name
    return c


def _doc(fails=(), unjudged=(), errors=(), regime_fail=False):
    """A results document: fifo-hog-share at default and half, one check each passing, then a
    failed check per (scenario, policy, metric) of fails; unjudged cases (verdict unjudged, a
    hollow check); results in error; the regime probe failing."""
    results = [{"scenario": "fifo-hog-share", "policy": {"name": p}, "verdict": "pass",
                "checks": [_check("cpu_share_periods")]} for p in ("default", "half")]
    for scenario, policy, metric in fails:
        results.append({"scenario": scenario, "policy": {"name": policy}, "verdict": "fail",
                        "checks": [_check("gap_max_us"), _check(metric, "fail")]})
    for scenario, policy in unjudged:
        results.append({"scenario": scenario, "policy": {"name": policy}, "verdict": "unjudged",
                        "checks": [_check("cpu_share_periods", "unjudged")]})
    for scenario in errors:
        results.append({"scenario": scenario, "policy": {"name": "default"}, "verdict": "error", "error": "boom"})
    kernel = [{"name": "regime-probe", "verdict": "fail" if regime_fail else "pass",
               "checks": [_check("hog_alone_gap_max_us", "fail" if regime_fail else "pass", task="probe")]}]
    return {"results": results, "kernel_results": kernel, "run": {"complete": True}}


def _row(case, metric, base, new, verdict="regressed", direction="target", task="hog", min_effect=1000):
    return {"case": case, "task": task, "metric": metric, "direction": direction, "unit": "us",
            "base_values": [base], "new_values": [new], "base_median": base, "new_median": new,
            "min_effect": min_effect, "verdict": verdict}


OK = {"status": "ok"}


def _unmodified(j, docs=None, pairs=()):
    docs = docs or [_doc(), _doc(), _doc()]
    runs = [(label, OK, d) for label, d in zip(("unmodified", "unmodified-2", "unmodified-3"), docs)]
    return j.unmodified_summary(runs, list(pairs))


def test_a_failed_check_of_a_judged_result_catches_unless_an_unmodified_run_shows_it():
    j = _judge()
    unmod = _unmodified(j)
    assert unmod["finished"] == 3 and unmod["false_alarms"] == [], unmod
    got = j.judge_mutant(OK, _doc(fails=[("fifo-hog-share", "half", "rt_budget_excess_us")]), None, unmod,
                         ["fifo-hog-share.half: hog.rt_budget_excess_us"])
    assert got["caught"] and got["promise"] == "yes", got
    first = got["first"]
    assert first["source"] == "check" and first["text"].startswith("fifo-hog-share.half: hog.rt_budget_excess_us "
                                                                    "measured 0.9, expected approx 0.5"), first
    assert first["tolerance"] == "+- 0.03 ratio", first
    # The regime probe is a result with checks like any other.
    got = j.judge_mutant(OK, _doc(regime_fail=True), None, unmod, ["fifo-hog-share.*: hog.*"])
    assert got["caught"] and got["promise"] == "no" and got["first"]["case"] == "regime-probe", got
    # Present in only one of three unmodified runs: a false alarm there, and no catch here.
    flaky = ("rlimit-rttime", "default", "sigxcpu_cpu_ms")
    unmod = _unmodified(j, [_doc(), _doc(), _doc(fails=[flaky])])
    assert [a["label"] for a in unmod["false_alarms"]] == ["unmodified-3"], unmod["false_alarms"]
    got = j.judge_mutant(OK, _doc(fails=[flaky]), None, unmod, ["rlimit-rttime.*: hog.*"])
    assert not got["caught"] and got["promise"] == "-" and len(got["by"]["also_unmodified"]) == 1, got
    # A result in error, unjudged results, a timeout: no finding, only run problems.
    got = j.judge_mutant({"status": "timeout", "reason": "no end marker"},
                         _doc(unjudged=[("burst", "default")], errors=["admin-recovery"]), None, _unmodified(j), [])
    assert not got["caught"], got
    assert got["by"]["run"] == ["timeout: no end marker", "admin-recovery.default: error: boom"], got["by"]["run"]
    for status in ("boot-failure", "build-failure", "guest-died"):
        assert not j.judge_mutant({"status": status, "reason": "x"}, None, None, _unmodified(j), [])["caught"]


def test_a_compare_regression_catches_only_beyond_the_unmodified_spread():
    j = _judge()
    case = "fifo-hog-share.half"
    # The unmodified runs measured 50000, 52000 and 56000 (spread 6000): the mutant's 61000 is
    # regressed for compare's band but within 56000 + 6000; 63000 is beyond it.
    pairs = [("unmodified-2", {"rows": [_row(case, "gap_max_us", 50000, 52000, "unchanged")]}),
             ("unmodified-3", {"rows": [_row(case, "gap_max_us", 50000, 56000, "unchanged"),
                                        _row(case, "throttle_events", 3, 5)]})]
    unmod = _unmodified(j, pairs=pairs)
    assert sorted(unmod["values"][f"{case}: hog.gap_max_us"]) == [50000, 52000, 56000], unmod["values"]
    # A row regressed between two unmodified runs is a false alarm of compare.
    assert [a["key"] for a in unmod["false_alarms"]] == [f"{case}: hog.throttle_events"], unmod["false_alarms"]
    inside = j.judge_mutant(OK, _doc(), {"rows": [_row(case, "gap_max_us", 50000, 61000)]}, unmod, ["*: hog.*"])
    assert not inside["caught"] and len(inside["by"]["within_spread"]) == 1, inside
    beyond = j.judge_mutant(OK, _doc(), {"rows": [_row(case, "gap_max_us", 50000, 63000)]}, unmod, ["*: hog.gap*"])
    assert beyond["caught"] and beyond["promise"] == "yes", beyond
    assert beyond["first"]["source"] == "compare" and "50000..56000" in beyond["first"]["tolerance"], beyond["first"]
    # Below the unmodified values is better for a 'lower' metric: no catch; for a target, a catch.
    low = _row(case, "gap_max_us", 50000, 30000)
    assert j.judge_mutant(OK, _doc(), {"rows": [low]}, unmod, [])["caught"]
    assert not j.judge_mutant(OK, _doc(), {"rows": [dict(low, direction="lower")]}, unmod, [])["caught"]
    noisy = j.judge_mutant(OK, _doc(), {"rows": [_row(case, "throttle_events", 3, 40)]}, unmod, [])
    assert not noisy["caught"] and noisy["by"]["also_unmodified"], noisy
    # A case the mutant's run did not judge (unjudged, error, skip) catches nothing.
    hollow = j.judge_mutant(OK, _doc(unjudged=[("burst", "default")]),
                            {"rows": [_row("burst.default", "gap_max_us", 50000, 900000)]}, unmod, [])
    assert not hollow["caught"] and hollow["by"]["not_judged"], hollow
    # Case names follow compare's: a sweep value is part of the case.
    assert j.case_name({"scenario": "duty-cycle", "policy": {"name": "default"},
                        "sweep": {"param": "utilisation", "value": 0.9}}) == "duty-cycle.default.utilisation=0.9"


def test_the_promise_match_prefers_a_named_check_and_says_when_none_is():
    j = _judge()
    both = _doc(fails=[("burst", "default", "throttle_events_outside_bursts"),
                       ("fifo-hog-share", "half", "cpu_share_periods")])
    got = j.judge_mutant(OK, both, None, _unmodified(j), ["fifo-hog-share.half: hog.cpu_share*"])
    assert got["promise"] == "yes" and got["first"]["case"] == "fifo-hog-share.half", got["first"]
    got = j.judge_mutant(OK, both, None, _unmodified(j), ["live-change.*: hog.*"])
    assert got["caught"] and got["promise"] == "no" and got["first"]["case"] == "burst.default", got
    assert j.parse_checks("a.b: c.d, e.*: f.g,\n  h: i.j") == ["a.b: c.d", "e.*: f.g", "h: i.j"]
    assert j.parse_upstream(None) is None
    assert j.parse_upstream('115135422562 2026-01-30 "sched/deadline: Fix \'stuck\' dl_server"') == \
        {"commit": "115135422562", "date": "2026-01-30", "subject": "sched/deadline: Fix 'stuck' dl_server"}
    for bad in ("11513542 2026-01-30 \"short id\"", "115135422562 30.01.2026 \"x: y\"", "115135422562 2026-01-30 x: y",
                "115135422562"):
        try:
            j.parse_upstream(bad)
            raise AssertionError(f"Upstream {bad!r} was accepted")
        except ValueError as exc:
            assert "Upstream" in str(exc), exc
    named = {"case": "fifo-hog-share.half", "check": "hog.gap_max_us.vs_trace", "metric": "hog.gap_max_us"}
    assert j.matches_promise(named, ["fifo-hog-share.*: hog.gap_max_us"])


def test_the_table_prints_false_alarms_misses_and_catches():
    run = _run_py()
    tmp = tempfile.mkdtemp(prefix="rtt-mutants-rule-")
    flaky = ("rlimit-rttime", "default", "sigxcpu_cpu_ms")
    docs = {"unmodified": _doc(), "unmodified-2": _doc(), "unmodified-3": _doc(fails=[flaky]),
            "m-caught": _doc(fails=[("fifo-hog-share", "half", "rt_budget_excess_us")]),
            "m-elsewhere": _doc(fails=[("burst", "default", "throttle_events")]),
            "m-missed": _doc(fails=[flaky])}
    for label, d in docs.items():
        with open(os.path.join(tmp, label + ".json"), "w") as f:
            json.dump(d, f)
    run.compare = lambda binary, base, new, out: (0, {"rows": []}, "")
    doc = {"run": "20261204T000000Z", "series": "6.12", "config": "rt-group", "rtthrottle_args": ["--suite", "quick"],
           "unmodified": {"status": "ok", "again": [{"label": "unmodified-2", "status": "ok"},
                                                    {"label": "unmodified-3", "status": "ok"}]},
           "mutants": [{"name": "m-caught", "status": "ok", "checks": ["*: hog.rt_budget_excess_us"]},
                       {"name": "m-elsewhere", "status": "ok", "checks": ["*: hog.rt_budget_excess_us"]},
                       {"name": "m-missed", "status": "ok", "breaks": "the watchdog", "checks": ["rlimit-rttime.*: *"],
                        "upstream": {"commit": "9b58e976b3b3", "date": "2021-12-07", "subject": "sched/rt: A fix"}},
                       {"name": "m-timeout", "status": "timeout", "reason": "no end marker", "checks": []}]}
    assert run.judge_all(tmp, doc, "/nonexistent") == 1
    text = run.table_text(doc)
    assert "3 unmodified run(s) finished" in text and "provisional" not in text, text
    assert "unmodified: pass; unmodified-2: pass; unmodified-3: fail" in text, text
    assert "false alarms (findings on the unmodified kernel): 1" in text, text
    assert "  unmodified-3: check: rlimit-rttime.default: hog.sigxcpu_cpu_ms" in text, text
    line = {x.split()[0]: x for x in text.splitlines() if x.startswith("m-")}
    assert " yes    yes " in line["m-caught"] and "check: fifo-hog-share.half: hog.rt_budget" in line["m-caught"], line
    assert " yes    no " in line["m-elsewhere"], line["m-elsewhere"]
    assert " NO     - " in line["m-missed"] and " NO " in line["m-timeout"], line
    assert line["m-timeout"].rstrip().endswith("timeout: no end marker"), line["m-timeout"]
    assert "2 of 4 mutants caught (1 by a check their Promise names); 2 missed; 1 false alarm(s)" in text, text
    assert "MISSED m-missed: breaks: the watchdog" in text and "CAUGHT ELSEWHERE m-elsewhere" in text, text
    assert 'UPSTREAM m-missed: reverts 9b58e976b3b3 (2021-12-07) "sched/rt: A fix": MISSED' in text, text
    assert "UPSTREAM m-caught" not in text, text
    # Fewer than three unmodified runs: the table says the rule does not hold yet.
    doc["unmodified"]["again"] = []
    run.judge_all(tmp, doc, "/nonexistent")
    assert "(the rule needs 3: every catch below is provisional)" in run.table_text(doc)
    shutil.rmtree(tmp)


def _cli(args, script=os.path.join(MUTANTS, "run.py")):
    return subprocess.run([PYTHON, script] + args, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_bad_usage_exits_2_naming_the_input():
    tmp = tempfile.mkdtemp(prefix="rtt-mutants-args-")
    no_header = os.path.join(tmp, "plain.patch")
    with open(no_header, "w") as f:
        f.write("--- a/x\n+++ b/x\n")
    bad_upstream = os.path.join(tmp, "bad-upstream.patch")
    with open(bad_upstream, "w") as f:
        f.write("Mutant: bad-upstream\nUpstream: 9b58e976 Dec 2021 a fix\n\n--- a/x\n+++ b/x\n")
    for args, named in ((["--patch", "/nonexistent.patch"], "/nonexistent.patch"),
                        (["--patch", no_header], "Mutant:"),
                        (["--patch", bad_upstream], "Upstream:"),
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
    assert all(os.path.isfile(p) for k in kernels for p in k["patches"]), kernels
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
