# SPDX-License-Identifier: GPL-2.0-only
"""The CI examples of ci/: the LAVA test definition and its script (a real short run, each check
reported through a stand-in lava-test-case with its measurement and unit), and the GitLab and
GitHub Actions files (they parse and use the options and paths the binary has)."""
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile

import rtt

CI = os.path.join(rtt.ROOT, "ci")


def yaml_load(path):
    try:
        import yaml
    except ImportError:
        raise rtt.Skip("no python3-yaml")
    with open(path) as f:
        return yaml.safe_load(f)


def test_lava_definition_and_ci_examples_are_consistent():
    lava = yaml_load(os.path.join(CI, "lava", "rtthrottle.yaml"))
    assert lava["metadata"]["format"] == "Lava-Test-Shell Test Definition 1.0" and lava["metadata"]["name"]
    steps = " ".join(lava["run"]["steps"])
    assert steps.startswith("cd ./ci/lava") and "./rtthrottle.sh" in steps
    for param in lava["params"]:
        assert "${" + param + "}" in steps, f"parameter {param} is not passed to the script"
    script = os.path.join(CI, "lava", "rtthrottle.sh")
    assert os.stat(script).st_mode & stat.S_IXUSR
    if shutil.which("shellcheck"):
        proc = subprocess.run(["shellcheck", script], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout
    gitlab = yaml_load(os.path.join(CI, "gitlab-ci.yml"))
    assert gitlab["rtthrottle"]["artifacts"]["reports"]["junit"] == "results/junit.xml"
    github = yaml_load(os.path.join(CI, "github-actions.yml"))
    steps = github["jobs"]["measure"]["steps"]
    assert any(s.get("with", {}).get("report_paths") == "results/junit.xml" for s in steps)
    # Every rtthrottle option the examples use exists.
    help_text = rtt.run(["run", "--help"]).stdout + rtt.run(["compare", "--help"]).stdout + \
        rtt.run(["report", "--help"]).stdout
    for name in ("gitlab-ci.yml", "github-actions.yml", os.path.join("lava", "rtthrottle.sh")):
        with open(os.path.join(CI, name)) as f:
            text = f.read()
        for word in text.split():
            opt = word.strip("\"'();|").split("=")[0]
            if opt.startswith("--") and opt[2:3].isalpha() and opt not in ("--result", "--measurement", "--units"):
                assert opt in help_text, f"{name}: {opt} is not an rtthrottle option"  # those three: lava-test-case


def test_lava_script_reports_every_check_with_measurement_and_unit():
    rtt.require_root()
    tmp = tempfile.mkdtemp(prefix="rtt-lava-")
    fake = os.path.join(tmp, "bin")
    os.mkdir(fake)
    log = os.path.join(tmp, "cases.log")
    with open(os.path.join(fake, "lava-test-case"), "w") as f:
        f.write(f'#!/bin/sh\necho "$*" >> {log}\n')
    os.chmod(os.path.join(fake, "lava-test-case"), 0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.path.dirname(rtt.BINARY)}:{os.environ['PATH']}")
    proc = subprocess.run([os.path.join(CI, "lava", "rtthrottle.sh"), "-i", "true", "-c", "rt-probe-collateral",
                           "-d", "2"], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    with open(log) as f:
        cases = {line.split()[0]: line.split()[1:] for line in f}
    assert cases["rtthrottle-run"] == ["--result", "pass"], cases
    doc = rtt.load(os.path.join(tmp, "output", "results.json"))
    for r in doc["results"]:
        base = f"{r['scenario']}.{r['policy']['name']}"
        assert cases[base] == ["--result", r["verdict"]], (base, cases.get(base))
        for c in r["checks"]:
            name = f"{base}.{c['task']}.{c['metric']}" + (f".{c['name']}" if "name" in c else "")
            args = cases[name]
            if c["verdict"] not in ("pass", "fail"):  # not judged: KTAP's "ok # SKIP"
                assert args == ["--result", "skip"], (name, args)
                continue
            assert args[:2] == ["--result", c["verdict"]], (name, args)
            assert args[2] == "--measurement" and abs(float(args[3]) - c["measured"]) < 1e-6, (name, args)
            assert args[4:] == ["--units", c["unit"]], (name, args)
    for f in ("junit.xml", "kcidb.json", "rt-tests.json", "ktap.txt"):
        assert os.path.getsize(os.path.join(tmp, "output", f)) > 0, f
    shutil.rmtree(tmp)


def lava_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("lava", os.path.join(CI, "lava", "lava.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lava_job_and_device_validate_with_lava_run():
    """The job template rendered by make lava's script validates against the rendered qemu device
    with LAVA's own lava-run (lava-dispatcher; ci/install-deps.sh installs it): the pipeline adds
    the test overlay to the ramdisk, boots QEMU and runs the test shell. The same job on a device
    without the qemu boot method does not validate, so validating means something."""
    rtt.require_root()
    assert shutil.which("lava-run"), "no lava-run: ci/install-deps.sh installs lava-dispatcher"
    tmp = tempfile.mkdtemp(prefix="rtt-lava-job-")
    proc = subprocess.run(["/usr/bin/python3", os.path.join(CI, "lava", "lava.py"), "--validate", "--out", tmp],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + open(os.path.join(tmp, "lava.log")).read()[-3000:]
    with open(os.path.join(tmp, "job.yaml")) as f:
        job = f.read()
    assert not re.search(r"@[A-Z_]+@", job), "a template field left in the job"
    job = yaml_load(os.path.join(tmp, "job.yaml"))
    deploy, boot, test = (a[k] for a, k in zip(job["actions"], ("deploy", "boot", "test")))
    assert deploy["images"]["ramdisk"]["overlays"] == {"lava": True}
    assert deploy["images"]["kernel"]["url"].startswith("file:///") and boot["method"] == "qemu"
    assert test["definitions"][0]["path"] == "ci/lava/rtthrottle.yaml"
    assert test["definitions"][0]["parameters"]["SKIP_INSTALL"] == "true"
    with open(os.path.join(tmp, "lava-run", "description.yaml")) as f:
        description = f.read()
    for action in ("append-overlays", "boot-qemu-image", "auto-login-action", "lava-test-shell"):
        assert f"name: {action}" in description, f"{action} not in the pipeline"
    device = yaml_load(os.path.join(tmp, "device.yaml"))
    del device["actions"]["boot"]["methods"]["qemu"]
    device["actions"]["boot"]["methods"]["minimal"] = None
    with open(os.path.join(tmp, "device-no-qemu.yaml"), "w") as f:
        import yaml
        yaml.safe_dump(device, f)
    bad = subprocess.run(["lava-run", "--validate", "--job-id", "2", "--output-dir", os.path.join(tmp, "bad"),
                          "--device", os.path.join(tmp, "device-no-qemu.yaml"), os.path.join(tmp, "job.yaml")],
                         capture_output=True, text=True, timeout=120)
    log = bad.stdout + bad.stderr
    # LAVA names why each boot strategy refused; the qemu one: no qemu method on the device
    assert bad.returncode == 1 and re.search(r'BootQEMU: .{0,4}qemu.{0,30} was not in the device', log), log[-2000:]
    shutil.rmtree(tmp)


def test_lava_results_are_checked_against_the_ktap_lines():
    """make lava's check of LAVA's log: KTAP results and checks (a sweep's name as the exports
    spell it, a named check matched by position) agree with the lava-test-case results logged;
    a changed result, measurement, unit, a missing case or one too many is found."""
    lava = lava_module()
    console = ["KTAP version 1", "1..2", "    KTAP version 1", "    # Subtest: fifo-hog-share.default", "    1..3",
               "    ok 1 hog.cpu_share # measured 0.9493 approx 0.9500 +- 0.0500 ratio",
               "    not ok 2 victim.starvation_max_us # measured 1428 at_most 1000 +- 100 us",
               "    ok 3 hog.gap_max_us.vs_trace # SKIP not measurable in this window",
               "not ok 1 fifo-hog-share.default",
               "ok 2 duty-cycle.default.utilisation=0.9 # SKIP needs root"]
    entries = [{"lvl": "target", "msg": line + "\r"} for line in console]
    cases = [{"case": "rtthrottle-run", "result": "pass"}, {"case": "rtthrottle", "result": "fail"},
             {"case": "fifo-hog-share.default", "result": "fail"},
             {"case": "fifo-hog-share.default.hog.cpu_share", "result": "pass", "measurement": 0.94934, "units": "ratio"},
             {"case": "fifo-hog-share.default.victim.starvation_max_us", "result": "fail", "measurement": 1427.8,
              "units": "us"},
             {"case": "fifo-hog-share.default.hog.gap_max_us.vs_trace", "result": "skip"},
             {"case": "duty-cycle.default.utilisation-0_9", "result": "skip"}]
    ktap, lines = lava.ktap_of(entries)
    assert len(lines) == 5 and [k[0] for k in ktap] == ["fifo-hog-share.default", "duty-cycle.default.utilisation-0_9"]
    assert lava.compare(cases, ktap) == []
    for index, key, value, finding in ((3, "measurement", 0.9503, "KTAP measured 0.9493"),
                                       (4, "units", "ms", "KTAP unit us"),
                                       (2, "result", "pass", "KTAP fail, LAVA pass"),
                                       (5, "case", "fifo-hog-share.default.hog.cpu_share.x", "KTAP check 3")):
        changed = [dict(c) for c in cases]
        changed[index][key] = value
        problems = lava.compare(changed, ktap)
        assert len(problems) >= 1 and finding in problems[0], (key, problems)
    assert "no lava-test-case" in lava.compare(cases[:-1], ktap)[0]
    extra = cases + [{"case": "fifo-hog-share.half", "result": "pass"}]
    assert lava.compare(extra, ktap) == ["fifo-hog-share.half: a lava-test-case without a KTAP line"]


def test_git_holds_no_build_output_and_no_file_twice():
    """Build outputs stay out of git (every build folder is ignored) and each fixture, scenario or
    seed is one file: no two tracked files have the same contents (make fuzz copies its seeds)."""
    if not os.path.isdir(os.path.join(rtt.ROOT, ".git")) and not os.path.isfile(os.path.join(rtt.ROOT, ".git")):
        raise rtt.Skip("not a git checkout")
    listing = subprocess.run(["git", "ls-files", "-s"], cwd=rtt.ROOT, capture_output=True, text=True, check=True)
    blobs = {}
    for line in listing.stdout.splitlines():
        meta, path = line.split("\t", 1)
        assert not re.match(r"(build[^/]*/|.*\.(o|a|so)$)", path), f"{path}: a build output in git"
        blobs.setdefault(meta.split()[1], []).append(path)
    twice = [paths for paths in blobs.values() if len(paths) > 1]
    assert not twice, f"the same file twice in git: {twice}"
    for folder in ("build", "build-static", "build-asan", "build-fuzz", "build-notrace", "results/lava",
                   "ci/lava/output"):
        ignored = subprocess.run(["git", "check-ignore", "-q", folder + "/x"], cwd=rtt.ROOT)
        assert ignored.returncode == 0, f"{folder}/ is not ignored"


def _run_status(status, doc):
    """ci/run-status.py's exit status and last line for rtthrottle run's status and a results doc."""
    tmp = tempfile.mkdtemp(prefix="rtt-run-status-")
    path = os.path.join(tmp, "r.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    proc = subprocess.run(["/usr/bin/python3", os.path.join(CI, "run-status.py"), str(status), path],
                          capture_output=True, text=True, timeout=30)
    shutil.rmtree(tmp)
    return proc.returncode, proc.stdout.strip().splitlines()[-1]


def test_make_run_exits_0_when_nothing_failed_and_knobs_are_back():
    def doc(*verdicts, restored=True, complete=True):
        return {"run": {"complete": complete}, "knobs_restored": restored,
                "kernel_results": [{"verdict": "pass"}], "results": [{"verdict": v} for v in verdicts]}

    status, line = _run_status(125, doc("pass", "unjudged", "unjudged"))
    assert status == 0, line
    assert line.startswith("make run: 4 results: 2 passed, 0 failed, 2 unjudged"), line
    assert "knobs restored" in line, line
    assert _run_status(0, doc("pass"))[0] == 0
    # A failure, an error, knobs left changed or a run cut short keep rtthrottle run's status.
    assert _run_status(1, doc("fail", "unjudged"))[0] == 1
    assert _run_status(125, doc("error", "pass"))[0] == 125
    status, line = _run_status(125, doc("unjudged", restored=False))
    assert status == 125 and "knobs NOT restored" in line, line
    assert _run_status(125, doc("unjudged", complete=False))[0] == 125
    # No results file: rtthrottle run's status stands (2 if it said 0).
    proc = subprocess.run(["/usr/bin/python3", os.path.join(CI, "run-status.py"), "3", "/nonexistent.json"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 3 and "no results to count" in proc.stdout, proc.stdout
