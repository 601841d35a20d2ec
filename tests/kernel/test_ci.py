"""The CI examples of ci/: the LAVA test definition and its script (a real short run, each check
reported through a stand-in lava-test-case with its measurement and unit), and the GitLab and
GitHub Actions files (they parse and use the options and paths the binary has)."""
import os
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
            twice = sum((o["task"], o["metric"]) == (c["task"], c["metric"]) for o in r["checks"]) > 1
            name = f"{base}.{c['task']}.{c['metric']}" + (f".{c['kind']}" if twice else "")
            args = cases[name]
            assert args[:2] == ["--result", c["verdict"]], (name, args)
            assert args[2] == "--measurement" and abs(float(args[3]) - c["measured"]) < 1e-6, (name, args)
            assert args[4:] == ["--units", c["unit"]], (name, args)
    for f in ("junit.xml", "kcidb.json", "rt-tests.json", "ktap.txt"):
        assert os.path.getsize(os.path.join(tmp, "output", f)) > 0, f
    shutil.rmtree(tmp)
