# SPDX-License-Identifier: GPL-2.0-only
"""make matrix on a LAVA lab agrees with make matrix here: the test stands up the lab on this
machine (ci/lava/lab-up.sh: Debian's lava-server, PostgreSQL, one worker with two QEMU devices),
runs Debian's 6.1 and 6.12 with fifo-hog-share at default and unlimited once as lab jobs (both
at once) and once booted by make matrix itself, and compares the two tables: the same kernels
and statuses, the same regime at each policy, and the same number of checks and of results,
each with a verdict. How many of those verdicts are pass, unjudged or not measured is the
emulator's noise: two TCG guests at once on a 2-CPU machine each get less of it than one alone,
and on this machine the counts moved by one or two between runs of either kind (doc/lava-lab.md).
A lab the test started is stopped again (ci/lava/lab-down.sh) and no lab service is left. Skips
with the reason when lava-server is not installed or the lab does not start here. About four
minutes (four guests under TCG)."""
import glob
import json
import os
import shutil
import subprocess
import tempfile

import rtt

KERNELS = "6.1,6.12"
RUN = ["--", "--scenario", "fifo-hog-share", "--policy", "default,unlimited", "--duration", "4"]
LAB_UP = os.path.join(rtt.ROOT, "ci", "lava", "lab-up.sh")
LAB_DOWN = os.path.join(rtt.ROOT, "ci", "lava", "lab-down.sh")
STATE = "/var/lib/rtthrottle-lab"
# The lab's services as their command lines start (as ci/lava/lab-down.sh looks for them).
SERVICES = (r"^/usr/bin/python3 /usr/bin/lava-worker |^/usr/bin/python3 /usr/bin/lava-server manage lava-scheduler"
            r"|^gunicorn: (master|worker) \[lava_server.wsgi\]")


def lab_running():
    return os.path.exists(os.path.join(STATE, "worker.pid")) and subprocess.run(
        ["curl", "-sf", "-o", "/dev/null", "http://127.0.0.1:8000/api/v0.2/"]).returncode == 0


def matrix(out, *extra):
    """matrix.json of one make matrix run (the runner holds the machine lock: --no-lock)."""
    proc = subprocess.run(["/usr/bin/python3", os.path.join(rtt.ROOT, "ci", "matrix", "matrix.py"), "--no-lock",
                           "--kernels", KERNELS, "--out", out, "--timeout", "300"] + list(extra) + RUN,
                          capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL)
    runs = glob.glob(os.path.join(out, "*", "matrix.json"))
    assert runs, f"no matrix.json (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    with open(runs[0]) as f:
        return json.load(f), proc


def counts(doc):
    """Per kernel: the table's checks and results by verdict."""
    out = {}
    for k in doc["kernels"]:
        f = k.get("figures") or {}
        verdicts = ("passed", "failed", "unjudged", "not_measured", "not_applicable", "skipped")
        out[k["label"]] = {"checks": {v: f.get(f"checks_{v}") for v in verdicts},
                           "results": f.get("results")}
    return out


def verdicts(doc):
    """Per kernel: status, the regime at each policy, and how many checks and results got a verdict."""
    out = {}
    for label, c in counts(doc).items():
        k = next(k for k in doc["kernels"] if k["label"] == label)
        f = k.get("figures") or {}
        out[label] = (k["status"], tuple((f.get(p) or {}).get("regime") for p in ("default", "unlimited")),
                      sum(v or 0 for v in c["checks"].values()), sum((c["results"] or {}).values()))
    return out


def test_a_two_kernel_matrix_on_the_lab_has_make_matrixs_verdicts():
    rtt.guest_ready("the lab's worker runs QEMU; PostgreSQL", ("curl",))
    if subprocess.run(["dpkg", "-s", "lava-server", "lava-dispatcher", "lavacli"], capture_output=True).returncode:
        raise rtt.Skip("lava-server, lava-dispatcher or lavacli not installed (make lab installs them)")
    started = not lab_running()
    if started:
        up = subprocess.run([LAB_UP], capture_output=True, text=True, timeout=900)
        if up.returncode != 0:
            subprocess.run([LAB_DOWN], capture_output=True, timeout=120)
            raise rtt.Skip(f"the lab does not start here: {up.stderr.strip()[-600:]}")
    out = tempfile.mkdtemp(prefix="rtt-lab-matrix-")
    try:
        lab_doc, lab_proc = matrix(os.path.join(out, "lab"), "--lab", "local", "--poll", "5")
        here_doc, _ = matrix(os.path.join(out, "here"))
    finally:
        if started:
            down = subprocess.run([LAB_DOWN], capture_output=True, text=True, timeout=300)
            assert down.returncode == 0, down.stderr
    assert [k["label"] for k in lab_doc["kernels"]] == KERNELS.split(","), lab_doc["kernels"]
    assert all(k["status"] == "ok" for k in lab_doc["kernels"]), \
        [(k["label"], k["status"], k.get("reason")) for k in lab_doc["kernels"]]
    # Both jobs were on the lab's devices at once.
    assert "2 running" in lab_proc.stderr, lab_proc.stderr[-2000:]
    assert all((k.get("lab") or {}).get("health") == "Complete" for k in lab_doc["kernels"])
    assert verdicts(lab_doc) == verdicts(here_doc), (verdicts(lab_doc), verdicts(here_doc), counts(lab_doc),
                                                     counts(here_doc))
    # Every check judged here was judged on the lab too (no result lost to an incomplete job).
    for label, c in counts(lab_doc).items():
        assert c["results"].get("error", 0) == counts(here_doc)[label]["results"].get("error", 0), (label, c)
    with open(glob.glob(os.path.join(out, "lab", "*", "table.txt"))[0]) as f:
        table = f.read()
    for label in KERNELS.split(","):
        assert f"\n{label}: " in table, table
    shutil.rmtree(out)
    if started:
        left = subprocess.run(["pgrep", "-f", SERVICES], capture_output=True)
        assert left.returncode == 1, f"lab processes left: {left.stdout}"
