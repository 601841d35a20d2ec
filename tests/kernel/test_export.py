# SPDX-License-Identifier: GPL-2.0-only
"""JUnit XML, KCIDB v5, rt-tests JSON and the lava-test-case lines: `rtthrottle export` on the fixtures (no root, no knob
touched), `run --junit/--kcidb/--rt-tests-json` refusing bad paths before anything changes, an
unprivileged run that skips, and one short real run checked against cyclictest's own --json."""
import json
import math
import os
import shutil
import subprocess
import tempfile

import rtt
import rtt_formats as fmt

FIXTURES = os.path.join(rtt.ROOT, "tests", "fixtures")


def fx(name):
    return os.path.join(FIXTURES, name)


def export(src, tmp, *extra):
    out = {k: os.path.join(tmp, k) for k in ("junit.xml", "kcidb.json", "rt.json")}
    proc = rtt.run(["export", "--junit", out["junit.xml"], "--kcidb", out["kcidb.json"], "--rt-tests-json",
                    out["rt.json"], *extra, src])
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    return out


def checks_of(doc):
    """(result, check, its name): as KTAP names it, task.metric plus .name when the check has one."""
    out = []
    for r in doc["results"]:
        for c in r.get("checks", []):
            out.append((r, c, f"{c['task']}.{c['metric']}" + (f".{c['name']}" if "name" in c else "")))
    return out


def kcidb_status(verdict):
    """A check not judged (skip, not-measured, unjudged) is KTAP's "ok # SKIP": SKIP."""
    return verdict.upper() if verdict in ("pass", "fail") else "SKIP"


def test_export_quick_fixture_in_all_three_formats():
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    doc = rtt.load(fx("quick-1rep.json"))
    out = export(fx("quick-1rep.json"), tmp)

    root = fmt.junit(out["junit.xml"])
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites[:-1]] == [
        r["scenario"] + "." + r["policy"]["name"] + (f".{r['sweep']['param']}={r['sweep']['value']:g}" if "sweep" in r else "")
        for r in doc["results"]], [s.get("name") for s in suites]
    cases = [c for s in suites[:-1] for c in s.findall("testcase")]
    assert len(cases) == sum(max(1, len(r.get("checks", []))) for r in doc["results"])
    assert int(root.get("tests")) == len(cases) + 2 and root.get("failures") == "0", root.attrib
    assert suites[-1].get("name") == "run" and [c.get("name") for c in suites[-1]] == ["complete", "knobs_restored"]

    kc = fmt.kcidb(out["kcidb.json"])
    tests = {t["path"]: t for t in kc["tests"]}
    assert tests["rtthrottle"]["status"] == "PASS" and tests["rtthrottle"]["build_id"] == "rtthrottle:6.18.44-fc-v1147"
    for r, c, name in checks_of(doc):
        base = "rtthrottle." + r["scenario"] + "." + r["policy"]["name"]
        if "sweep" in r:
            base += "." + f"{r['sweep']['param']}-{r['sweep']['value']:g}".replace(".", "_")
        t = tests[f"{base}.{name}"]
        assert t["status"] == kcidb_status(c["verdict"]) and math.isclose(t["number"]["value"], c["measured"]), (t, c)
        assert t["number"].get("unit") == (c["unit"] if c["unit"] in ("us", "ms") else None), (t, c)
    done = [t for t in kc["tests"] if t["status"] == "DONE"]
    assert done and all("number" in t for t in done)
    assert tests["rtthrottle.cfs-probe.default.probe.latency_us.p99"]["number"] == {"value": 116.0, "unit": "us"}

    rt, threads = fmt.rttests(out["rt.json"])
    probes = [(r, t) for r in doc["results"] for t in r.get("tasks", []) if t["role"] == "probe"]
    assert len(threads) == len(probes) == 3
    for i, (r, task) in enumerate(probes):
        lat, th = task["metrics"]["latency_us"], threads[i]
        over = rt["rtthrottle"]["threads"][str(i)]["overflow_hist_us"]
        assert th["cycles"] == lat["samples"] and th["max"] == math.floor(lat["max"]), (th, lat)
        assert th["min"] == math.floor(lat["min"]) and abs(th["avg"] - lat["avg"]) <= 0.005, (th, lat)
        assert sum(th["histogram"].values()) + sum(over.values()) == lat["samples"]
        assert all(us < 2000 for us in th["histogram"]) and all(int(us) >= 2000 for us in over)
        assert th["cpu"] == task["cpu"] and th["node"] == 0
    assert rt["start_time"] == "Thu, 03 Dec 2026 09:18:58 +0000" and rt["return_code"] == 0


def test_export_regression_fixture_fails_in_every_format():
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    doc = rtt.load(fx("regression-1rep.json"))
    out = export(fx("regression-1rep.json"), tmp, "--kcidb-origin", "my_ci", "--kcidb-build-id", "my_ci:b42")
    failed = [c for _, c, _ in checks_of(doc) if c["verdict"] == "fail"]
    assert failed
    root = fmt.junit(out["junit.xml"])
    assert int(root.get("failures")) == len(failed) == len(root.findall(".//failure")), \
        (root.get("failures"), len(failed), len(root.findall(".//failure")))
    kc = fmt.kcidb(out["kcidb.json"])
    assert all(t["origin"] == "my_ci" and t["build_id"] == "my_ci:b42" and t["id"].startswith("my_ci:")
               for t in kc["tests"])
    assert [t["status"] for t in kc["tests"] if t["path"] == "rtthrottle"] == ["FAIL"]
    assert sum(t["status"] == "FAIL" for t in kc["tests"]) == len(failed) + \
        sum(r["verdict"] == "fail" for r in doc["results"]) + 1, [t["path"] for t in kc["tests"] if t["status"] == "FAIL"]


def test_export_lava_lines_are_the_kcidb_tests_with_lava_results_and_units():
    """One line per PASS/FAIL/ERROR/SKIP test object (no DONE metric), named without 'rtthrottle.',
    each check with its measured value and the check's unit; the regression fixture's failed
    checks are 'fail' lines, its checks not measured 'skip' (KTAP's "ok # SKIP")."""
    for name, verdicts in (("quick-1rep.json", {"pass"}), ("regression-1rep.json", {"pass", "fail", "skip"})):
        skipped = 0
        tmp = tempfile.mkdtemp(prefix="rtt-export-")
        lava = os.path.join(tmp, "cases.txt")
        out = export(fx(name), tmp, "--lava", lava)
        doc = rtt.load(fx(name))
        kc = {t["path"]: t for t in fmt.kcidb(out["kcidb.json"])["tests"]}
        with open(lava) as f:
            lines = [line.split() for line in f]
        assert len(lines) == sum(t["status"] != "DONE" for t in kc.values()) > len(doc["results"])
        cases = {words[0]: words[1:] for words in lines}
        assert len(cases) == len(lines), "a case name twice"
        assert cases["rtthrottle"] == ["pass" if verdicts == {"pass"} else "fail"]
        for r, c, check in checks_of(doc):
            base = f"{r['scenario']}.{r['policy']['name']}"
            if "sweep" in r:
                base += "." + f"{r['sweep']['param']}-{r['sweep']['value']:g}".replace(".", "_")
            assert cases[base] == [r["verdict"]], (base, cases[base])
            if c["verdict"] not in ("pass", "fail"):  # not measured: KTAP's "ok # SKIP", no value
                assert cases[f"{base}.{check}"] == ["skip"], (check, cases[f"{base}.{check}"])
                skipped += 1
                continue
            result, value, unit = cases[f"{base}.{check}"]
            assert result == c["verdict"] and unit == c["unit"], (check, cases[f"{base}.{check}"])
            assert float(value) == c["measured"], (check, value, c["measured"])
        assert {words[1] for words in lines} == verdicts and ("skip" in verdicts) == (skipped > 0)
        shutil.rmtree(tmp)


def test_export_kernel_results_like_a_scenarios():
    """regime-probe and kernel-defaults (a fair server of 150 ms a second) come first in every
    format, named by themselves, each check with its verdict: a setting off its default fails,
    one nobody can read is skipped (JUnit skipped, KCIDB SKIP, LAVA skip), never an error."""
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    lava = os.path.join(tmp, "cases.txt")
    out = export(fx("kernel-defaults-1rep.json"), tmp, "--lava", lava)
    doc = rtt.load(fx("kernel-defaults-1rep.json"))
    suites = fmt.junit(out["junit.xml"]).findall("testsuite")
    assert [s.get("name") for s in suites[:2]] == ["regime-probe", "kernel-defaults"], [s.get("name") for s in suites]
    assert [(s.get("tests"), s.get("failures"), s.get("errors"), s.get("skipped")) for s in suites[:2]] == \
        [("2", "0", "0", "0"), ("10", "2", "0", "1")]
    kc = {t["path"]: t for t in fmt.kcidb(out["kcidb.json"])["tests"]}
    assert kc["rtthrottle"]["status"] == "FAIL"
    assert kc["rtthrottle.regime-probe"]["status"] == "PASS" and kc["rtthrottle.kernel-defaults"]["status"] == "FAIL"
    runtime = kc["rtthrottle.kernel-defaults.kernel.fair_server_runtime_ns"]
    assert runtime["status"] == "FAIL" and runtime["number"] == {"value": 150000000, "unit": "ns"}, runtime
    assert kc["rtthrottle.kernel-defaults.kernel.RT_RUNTIME_SHARE"]["status"] == "SKIP"
    with open(lava) as f:
        lines = [line.split() for line in f]
    assert [w[0] for w in lines[1:4]] == ["regime-probe", "regime-probe.probe.hog_alone_gap_max_us",
                                          "regime-probe.probe.victim_share_unlimited"], lines[:4]
    cases = {w[0]: w[1:] for w in lines}
    for r in doc["kernel_results"]:
        assert cases[r["name"]] == [r["verdict"]], (r["name"], cases[r["name"]])
        for c in r["checks"]:
            case = cases[f"{r['name']}.{c['task']}.{c['metric']}"]
            assert case[0] == c["verdict"] and (case[1:] == [] if c["verdict"] == "skip" else case[2] == c["unit"]), \
                (c["metric"], case)
    shutil.rmtree(tmp)


def test_export_skipped_run_and_no_probes():
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    doc = rtt.load(fx("all-skipped.json"))
    out = export(fx("all-skipped.json"), tmp)
    root = fmt.junit(out["junit.xml"])
    assert len(root.findall(".//skipped")) == len(doc["results"])
    kc = fmt.kcidb(out["kcidb.json"])
    results = [t for t in kc["tests"] if t["path"].count(".") == 2]
    assert len(results) == len(doc["results"]) and all(t["status"] == "SKIP" for t in results)
    rt, threads = fmt.rttests(out["rt.json"])
    assert threads == {} and rt["num_threads"] == 0


def test_export_escapes_markup_and_characters_xml_cannot_hold():
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    doc = rtt.load(fx("base-1rep.json"))
    nasty = "a<b>&c\"d'e ]]> \u00e9\u2603\U0001f600 \x01\x1f end"
    doc["results"][0]["scenario"] = nasty
    doc["results"][0]["checks"][0]["rule"] = nasty + "\nsecond line"
    src = os.path.join(tmp, "nasty.json")
    with open(src, "w") as f:
        json.dump(doc, f)
    out = export(src, tmp)
    root = fmt.junit(out["junit.xml"])
    suite = root.find("testsuite")
    kept = nasty.replace("\x01", "?").replace("\x1f", "?")
    assert suite.get("name").startswith(kept + "."), suite.get("name")
    case = suite.find("testcase")
    assert case.find("system-out").text.endswith(kept + "\nsecond line"), case.find("system-out").text
    kc = fmt.kcidb(out["kcidb.json"])
    assert any(t["path"].startswith("rtthrottle.a_b__c_d_e_") for t in kc["tests"])
    # Bytes that are not UTF-8 (a lone 0xff, a cut sequence, a surrogate) become '?'.
    with open(src, "rb") as f:
        raw = f.read()
    with open(src, "wb") as f:
        f.write(raw.replace(b'"scenario": "', b'"scenario": "x\xff\xc3(\xed\xa0\x80y', 1))
    out = export(src, tmp)
    assert fmt.junit(out["junit.xml"]).find("testsuite").get("name").startswith("x??(???y"), "not replaced"


def test_export_bad_input_exits_2_names_it_and_writes_nothing():
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    j = os.path.join(tmp, "j.xml")
    good = fx("base-1rep.json")
    cases = [
        (["--junit", j, os.path.join(tmp, "missing.json")], "missing.json"),
        (["--junit", j, fx("malformed.json")], "malformed.json"),
        (["--junit", j, fx("schema-v2.json")], "schema_version"),
        (["--junit", j, fx("bad-metric.json")], "cpu_share"),
        (["--junit", "/nonexistent-folder/j.xml", good], "/nonexistent-folder/j.xml"),
        (["--kcidb", j, "--kcidb-origin", "My-CI", good], "My-CI"),
        (["--kcidb", j, "--kcidb-build-id", "nocolon", good], "nocolon"),
        (["--junit", j, "--kcidb", j, good], j),
        (["--junit", good, good], "the same file"),
        ([good], "nothing to write"),
        (["--junit", j], "needs a results file"),
        (["--junit", j, good, good], "one results file"),
        (["--bogus", good], "--bogus"),
        (["--junit"], "needs a value"),
    ]
    before = os.stat(good).st_mtime_ns
    for args, named in cases:
        proc = rtt.run(["export"] + args)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
        assert named in proc.stderr, (args, proc.stderr)
        assert os.listdir(tmp) == [], (args, os.listdir(tmp))
    assert os.stat(good).st_mtime_ns == before


def test_run_refuses_bad_export_paths_before_touching_anything():
    tmp = tempfile.mkdtemp(prefix="rtt-export-")
    before = rtt.read_knobs()
    r = os.path.join(tmp, "r.json")
    for args, named in [(["--junit", "/nonexistent-folder/j.xml"], "--junit /nonexistent-folder/j.xml"),
                        (["--kcidb", "/proc/k.json"], "--kcidb /proc/k.json"),
                        (["--rt-tests-json", r], "the same file as --output"),
                        (["--kcidb", os.path.join(tmp, "k.json"), "--kcidb-origin", "x y"], "x y")]:
        proc = rtt.run(["run", "--scenario", "fifo-hog-share", "--output", r] + args, timeout=30)
        assert proc.returncode == 2 and named in proc.stderr, (args, proc.returncode, proc.stderr)
        assert os.listdir(tmp) == [] and rtt.read_knobs() == before and not rtt.rt_tasks_of()


def test_unprivileged_run_writes_the_formats_of_a_skipped_run():
    if os.geteuid() != 0:
        raise rtt.Skip("needs root to switch to an unprivileged user")
    tmp = tempfile.mkdtemp(prefix="rtt-nobody-")
    os.chmod(tmp, 0o777)
    paths = [os.path.join(tmp, n) for n in ("r.json", "j.xml", "k.json", "c.json")]
    proc = rtt.run(["run", "--scenario", "rt-probe-collateral", "--output", paths[0], "--junit", paths[1],
                    "--kcidb", paths[2], "--rt-tests-json", paths[3]], user="65534")
    doc = rtt.load(paths[0])
    skipped = [r for r in doc["results"] if r["verdict"] == "skip"]
    assert skipped and proc.returncode == (4 if len(skipped) == len(doc["results"]) else proc.returncode), \
        (proc.returncode, proc.stderr)
    root = fmt.junit(paths[1])
    # The scenarios' results; regime-probe and kernel-defaults have testsuites of their own.
    kernel = {r["name"] for r in doc["kernel_results"]}
    assert kernel == {"regime-probe", "kernel-defaults"}, doc["kernel_results"]
    assert sum(len(s.findall(".//skipped")) for s in root.findall("testsuite") if s.get("name") not in kernel) \
        == len(skipped)
    kc = fmt.kcidb(paths[2])
    assert sum(t["status"] == "SKIP" for t in kc["tests"] if t["path"].count(".") == 2) == len(skipped)
    fmt.rttests(paths[3])


def test_real_run_writes_all_three_and_matches_cyclictest_json():
    """A short RT probe above a FIFO hog at 950000/1000000: the three files agree with the results,
    and the rt-tests file has the keys and types of a real `cyclictest --json` on the same CPU."""
    rtt.require_root()
    if not shutil.which("cyclictest"):
        raise rtt.Skip("no cyclictest (apt-get install rt-tests)")
    tmp = tempfile.mkdtemp(prefix="rtt-export-run-")
    paths = {n: os.path.join(tmp, n) for n in ("r.json", "j.xml", "k.json", "c.json", "cyclictest.json")}
    proc = rtt.run(["run", "--quiet", "--scenario", "rt-probe-collateral", "--policy", "default", "--duration", "2",
                    "--noise-seconds", "0.5", "--probe-seconds", "0", "--output", paths["r.json"],
                    "--junit", paths["j.xml"], "--kcidb", paths["k.json"], "--rt-tests-json", paths["c.json"]],
                   timeout=120)
    doc = rtt.load(paths["r.json"])
    (result,) = doc["results"]
    assert proc.returncode == (0 if result["verdict"] == "pass" else 1), (proc.returncode, proc.stderr)
    cpu = doc["noise_floor"]["cpu"]

    root = fmt.junit(paths["j.xml"])
    assert int(root.get("failures")) == sum(c["verdict"] == "fail" for c in result["checks"])
    kc = fmt.kcidb(paths["k.json"])
    assert {t["path"] for t in kc["tests"]} >= {"rtthrottle", "rtthrottle.rt-probe-collateral.default"}
    rt, threads = fmt.rttests(paths["c.json"])
    lat = rtt.metrics(result, "probe")["latency_us"]
    (th,) = threads.values()
    assert th["cycles"] == lat["samples"] and th["max"] == math.floor(lat["max"]) and th["cpu"] == cpu
    # Throttling stops the whole RT run queue: the probe above the hog waits as long as the hog's
    # longest throttle gap, within the check's time tolerance (2 ticks + the noise floor's longest
    # gap). That is tens of ms, beyond the 1 us histogram: in max and cycles, not in histogram.
    (bound,) = [c for c in result["checks"] if c["metric"] == "latency_us.max"]
    hog_gap = rtt.metrics(result, "hog")["gap_max_us"]
    assert abs(th["max"] - hog_gap) <= bound["tolerance"] and th["max"] > 2000, (th["max"], hog_gap, bound)
    assert max(th["histogram"]) < 2000 and sum(th["histogram"].values()) < th["cycles"], th["histogram"]
    # Wake-ups every 1000 us for 2 s, less those a late wake-up overran (at most the slots).
    assert 2000 * 0.9 < th["cycles"] <= 2000 + 1, th["cycles"]

    ct = subprocess.run(["cyclictest", f"--json={paths['cyclictest.json']}", "-D1", "-q", "-a", str(cpu), "-p", "1",
                         "-m", "-h", "2000"], capture_output=True, text=True, timeout=30)
    assert ct.returncode == 0, ct.stderr
    real, _ = fmt.rttests(paths["cyclictest.json"])
    assert fmt.shape(rt) == fmt.shape(real), (fmt.shape(rt), fmt.shape(real))
    assert list(k for k in rt if k != "rtthrottle") == fmt.RTTESTS_TOP == list(real)
    assert list(th) == fmt.RTTESTS_THREAD == list(next(iter(real["thread"].values())))
