# SPDX-License-Identifier: GPL-2.0-only
"""The run's results about the kernel itself: `regime-probe` and `kernel-defaults` appear in KTAP
(planned, numbered before the scenarios), in `kernel_results` of the results file next to
`kernel_model`, and in the JUnit, KCIDB and LAVA exports like a scenario's result; both pass on
this healthy kernel; a `--site-setting` the kernel does not run is a failed check; a bad
`--site-setting` is refused before anything changes."""
import os
import re
import shutil
import tempfile

import rtt
import rtt_formats as fmt

KERNEL_RESULTS = ["regime-probe", "kernel-defaults"]
# A short run: one 1 s window of fifo-hog-share at the default policy, after a 0.5 s noise floor
# and the two 2 s regime-probe windows (whole fair-server periods, so its share can be judged).
RUN = ["run", "--scenario", "fifo-hog-share", "--policy", "default", "--duration", "1", "--noise-seconds", "0.5",
       "--probe-seconds", "2", "--quiet"]


def _ktap_results(stdout):
    """[(number, ok, name, directive)] of the top-level KTAP results, and the plan."""
    plan = re.search(r"^1\.\.(\d+)$", stdout, re.M)
    found = [(int(m.group(2)), m.group(1) == "ok", m.group(3), m.group(4) or "")
             for m in re.finditer(r"^(ok|not ok) (\d+) (\S+)(?: # (.*))?$", stdout, re.M)]
    return int(plan.group(1)) if plan else None, found


def _kernel_result(doc, name):
    (res,) = [r for r in doc["kernel_results"] if r["name"] == name]
    return res


def _noise_hid_the_fair_server(res):
    return any(c["metric"] == "fair_server_share" and c["verdict"] != "pass" and
               "cannot tell a changed default from noise" in c["rule"] for c in res["checks"])


def test_kernel_results_pass_and_are_exported():
    rtt.require_root()
    before = rtt.read_knobs()
    for attempt in range(2):
        tmp = tempfile.mkdtemp(prefix="rtt-kdefaults-")
        paths = {n: os.path.join(tmp, n) for n in ("r.json", "j.xml", "k.json", "lava.txt")}
        proc = rtt.run(RUN + ["--output", paths["r.json"], "--junit", paths["j.xml"], "--kcidb", paths["k.json"],
                              "--lava", paths["lava.txt"]], timeout=120)
        assert rtt.read_knobs() == before and not rtt.rt_tasks_of()
        doc = rtt.load(paths["r.json"])
        defaults = _kernel_result(doc, "kernel-defaults")
        # A run with a failure is judged as it is, never measured again.
        failed = any(r.get("verdict") in ("fail", "error") for r in doc["results"] + doc["kernel_results"])
        if failed or not _noise_hid_the_fair_server(defaults):
            break
        print(f"# run {attempt + 1}: the noise floor lost {doc['noise_floor']['loss_share']:.3f}: too much to judge "
              "the fair server's share; measuring again")
        shutil.rmtree(tmp)
    else:
        raise rtt.Skip("the noise floor hid the fair server's share twice: this machine is too busy to judge it")
    # The scenario's own verdict is not this test's business (a 1 s window may leave its share
    # checks as wide as what they catch: unjudged, exit 125); the exit status must follow it.
    verdicts = {r["verdict"] for r in doc["results"]}
    want = 1 if "fail" in verdicts else 125 if "unjudged" in verdicts else 0
    assert proc.returncode == want, (proc.returncode, verdicts, proc.stderr[-2000:])

    # KTAP: planned, numbered first, both passing, their checks as subtests.
    plan, results = _ktap_results(proc.stdout)
    assert plan == 3 and [r[0] for r in results] == [1, 2, 3], (plan, results)
    assert [(r[1], r[2], r[3]) for r in results[:2]] == [(True, n, "") for n in KERNEL_RESULTS], results
    assert results[2][2] == "fifo-hog-share.default", results
    for line in ("    ok 1 probe.hog_alone_gap_max_us # measured", "    ok 1 kernel.sched_rt_runtime_us # measured 950000",
                 "kernel.fair_server_share # measured"):
        assert line in proc.stdout, (line, proc.stdout[:3000])

    # The results file: next to kernel_model, each with its verdict and checks.
    keys = list(doc)
    assert keys.index("kernel_results") == keys.index("kernel_model") + 1, keys
    assert [r["name"] for r in doc["kernel_results"]] == KERNEL_RESULTS
    regime = _kernel_result(doc, "regime-probe")
    assert regime["verdict"] == "pass" and doc["kernel_model"]["agrees"] is True, regime
    assert [c["verdict"] for c in regime["checks"]] == ["pass", "pass"] and regime["evidence"], regime
    assert defaults["verdict"] == "pass", [c for c in defaults["checks"] if c["verdict"] != "pass"]
    checks = {c["metric"]: c for c in defaults["checks"]}
    assert checks["sched_rt_runtime_us"]["measured"] == 950000 == checks["sched_rt_runtime_us"]["expected"]
    assert checks["sched_rt_period_us"]["measured"] == 1000000
    share = checks["fair_server_share"]
    assert share["verdict"] == "pass" and share["expected"] == 0.05 and share["tolerance"] < 0.025, share
    for name in ("fair_server_runtime_ns", "fair_server_period_ns"):
        # debugfs is unreadable on this VM (lockdown) or not mounted: skipped with why, judged by behaviour.
        c = checks[name]
        assert c["verdict"] == "pass" or (c["verdict"] == "skip" and c["rule"].startswith("not measured: ")), c
    table = {row["setting"]: row for row in defaults["defaults"]}
    assert table["fair_server_runtime_ns"]["default"] == 50000000 and table["fair_server_runtime_ns"]["since"] == "6.12"
    assert table["sched_rt_runtime_us"]["since"] == "2.6.25" and table["RT_RUNTIME_SHARE"]["since"] == "5.10"
    print(f"# fair server share {share['measured']:.4f} (expected 0.05 +- {share['tolerance']:.4f}); regime probe: "
          f"{regime['evidence']}")

    # The exports carry them as they carry a scenario's result.
    suites = {s.get("name"): s for s in fmt.junit(paths["j.xml"]).findall("testsuite")}
    for name, res in ((n, _kernel_result(doc, n)) for n in KERNEL_RESULTS):
        assert name in suites and len(suites[name].findall("testcase")) == len(res["checks"]), (name, list(suites))
        assert not suites[name].findall(".//failure"), name
    kc = {t["path"]: t for t in fmt.kcidb(paths["k.json"])["tests"]}
    assert kc["rtthrottle.regime-probe"]["status"] == "PASS" and kc["rtthrottle.kernel-defaults"]["status"] == "PASS"
    assert kc["rtthrottle.kernel-defaults.kernel.sched_rt_runtime_us"]["number"]["value"] == 950000
    assert kc["rtthrottle.kernel-defaults.kernel.cpu.rt_runtime_us"]["status"] in ("PASS", "SKIP")
    with open(paths["lava.txt"]) as f:
        lava = {line.split()[0]: line.split()[1:] for line in f}
    assert lava["regime-probe"] == ["pass"] and lava["kernel-defaults"] == ["pass"], lava
    assert lava["kernel-defaults.kernel.fair_server_share"][0] == "pass", lava
    for c in defaults["checks"]:
        case = "kernel-defaults.kernel." + c["metric"]
        assert lava[case][0] == {"pass": "pass", "fail": "fail", "skip": "skip"}[c["verdict"]], (case, lava[case])
    shutil.rmtree(tmp)


def test_site_setting_the_kernel_does_not_run_fails_naming_it():
    """A site that says it runs sched_rt_runtime_us 980000 on a kernel at 950000: the check
    expects 980000, so kernel-defaults fails naming the setting, and the exit status is 1."""
    rtt.require_root()
    before = rtt.read_knobs()
    if before.get("sched_rt_runtime_us") != 950000:
        raise rtt.Skip(f"the knobs in force are not the defaults: {before}")
    tmp = tempfile.mkdtemp(prefix="rtt-kdefaults-")
    out = os.path.join(tmp, "r.json")
    proc = rtt.run(["run", "--scenario", "fifo-hog-share", "--policy", "default", "--duration", "1",
                    "--noise-seconds", "0.2", "--probe-seconds", "0", "--quiet", "--site-setting",
                    "sched_rt_runtime_us=980000", "--output", out], timeout=120)
    assert rtt.read_knobs() == before and not rtt.rt_tasks_of()
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    plan, results = _ktap_results(proc.stdout)
    assert plan == 3 and results[0][1:3] == (True, "regime-probe") and "SKIP --probe-seconds 0" in results[0][3], results
    assert results[1][1:3] == (False, "kernel-defaults"), results
    assert "# kernel-defaults: sched_rt_runtime_us is 950000, not 980000 as the site declared" in proc.stdout, proc.stdout
    doc = rtt.load(out)
    c = [c for c in _kernel_result(doc, "kernel-defaults")["checks"] if c["metric"] == "sched_rt_runtime_us"][0]
    assert c["verdict"] == "fail" and c["expected"] == 980000 and "--site-setting sched_rt_runtime_us=980000" in c["rule"], c
    assert _kernel_result(doc, "kernel-defaults")["site_settings"] == {"sched_rt_runtime_us": 980000}
    shutil.rmtree(tmp)


def test_bad_site_setting_exits_2_and_changes_nothing():
    before = rtt.read_knobs()
    tmp = tempfile.mkdtemp(prefix="rtt-kdefaults-")
    out = os.path.join(tmp, "r.json")
    for value, named in (("sched_rt_runtime_us", "expected NAME=VALUE"),
                         ("sched_rt_runtime_us=fast", "'fast' is not a whole number"),
                         ("fair_server_runtime=50000000", "unknown setting 'fair_server_runtime'"),
                         ("sched_rt_period_us=0", "'0' is not a whole number of us from 1"),
                         ("RT_RUNTIME_SHARE=maybe", "'maybe' is not on, off, 1 or 0"),
                         ("sched_rt_runtime_us=1200000", "sched_rt_runtime_us 1200000 is above sched_rt_period_us")):
        proc = rtt.run(["run", "--scenario", "fifo-hog-share", "--site-setting", value, "--output", out], timeout=30)
        assert proc.returncode == 2, (value, proc.returncode, proc.stderr)
        assert named in proc.stderr and "--site-setting" in proc.stderr, (value, proc.stderr)
        assert os.listdir(tmp) == [] and rtt.read_knobs() == before and not rtt.rt_tasks_of(), value
    proc = rtt.run(["run", "--site-setting", "sched_rt_runtime_us=1", "--site-setting", "sched_rt_runtime_us=2",
                    "--output", out], timeout=30)
    assert proc.returncode == 2 and "given twice" in proc.stderr, proc.stderr
    assert os.listdir(tmp) == [] and rtt.read_knobs() == before
    shutil.rmtree(tmp)


def test_help_and_man_page_name_site_setting():
    proc = rtt.run(["run", "--help"])
    assert proc.returncode == 0 and "--site-setting NAME=VALUE" in proc.stdout and "kernel-defaults" in proc.stdout
    with open(os.path.join(rtt.ROOT, "doc", "rtthrottle.1")) as f:
        man = f.read()
    assert "site\\-setting" in man and "kernel\\-defaults" in man and "regime\\-probe" in man
