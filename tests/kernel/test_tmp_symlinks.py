# SPDX-License-Identifier: GPL-2.0-only
"""Temporary files against planted symlinks. An unprivileged user (nobody) plants symlinks to a
root-owned file at every name the old /tmp scheme could use for the next pids
(/tmp/rtthrottle-cyclictest-<pid>.{json,err}, /tmp/rtthrottle-load-<pid>.{out,err,yaml}) and at
the new private folder's neighbours (rtthrottle-<pid> and rtthrottle-<pid>.json in /tmp, and
dead runs' folder names pointing at a root-owned folder), with fs.protected_symlinks at 0. A
root run of cyclictest-crosscheck with a hackbench load, its private folder forced into /tmp
(a read-only /run/rtthrottle in its own mount namespace), must leave both targets unchanged."""
import os
import shutil
import subprocess
import tempfile

import rtt

PROTECTED = "/proc/sys/fs/protected_symlinks"
AHEAD = 3000  # pids planted past the last one: a run forks a few hundred here

PLANT = r"""
import os, sys
target, victim, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
made = 0
for pid in range(first, first + count):
    names = [f"rtthrottle-cyclictest-{pid}.{k}" for k in ("json", "err")]
    names += [f"rtthrottle-load-{pid}.{k}" for k in ("out", "err", "yaml")]
    names += [f"rtthrottle-{pid}", f"rtthrottle-{pid}.json"]
    for n in names:
        try:
            os.symlink(target, os.path.join("/tmp", n))
            made += 1
        except FileExistsError:
            pass
# Dead runs' folder names, as symlinks to a folder of root's: the stale removal must not follow.
for pid in range(2, 50):
    try:
        os.symlink(victim, f"/tmp/rtthrottle-{pid}.AAAAAA")
        made += 1
    except FileExistsError:
        pass
print(made)
"""


def _snapshot(path):
    st = os.lstat(path)
    with open(path, "rb") as f:
        return f.read(), st.st_mtime_ns, st.st_size


def test_planted_symlinks_are_not_followed():
    rtt.require_root()
    for p in ("cyclictest", "hackbench", "unshare", "setpriv"):
        if not shutil.which(p):
            raise rtt.Skip(f"{p} is not installed")
    with open(PROTECTED) as f:
        protected = f.read().strip()
    work = tempfile.mkdtemp(prefix="rtt-symlinks-")  # 0700, root's: the targets and the state
    os.chmod(work, 0o711)  # nobody may name the targets (not list or change them)
    target, victim = os.path.join(work, "target"), os.path.join(work, "victim")
    os.mkdir(victim, 0o755)
    with open(target, "w") as f:
        f.write("root's file: must stay as it is\n")
    with open(os.path.join(victim, "kept"), "w") as f:
        f.write("kept\n")
    state = os.path.join(work, "state")
    os.mkdir(state, 0o700)
    before = _snapshot(target)
    planted = []
    try:
        with open(PROTECTED, "w") as f:
            f.write("0")
        with open("/proc/sys/kernel/ns_last_pid") as f:
            first = int(f.read()) + 1
        plant = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                "/usr/bin/python3", "-c", PLANT, target, victim, str(first), str(AHEAD)],
                               capture_output=True, text=True, timeout=60)
        assert plant.returncode == 0, plant.stderr
        planted = [n for n in os.listdir("/tmp") if n.startswith("rtthrottle-") and os.path.islink(os.path.join("/tmp", n))]
        assert int(plant.stdout) > AHEAD * 5, plant.stdout
        out = os.path.join(work, "r.json")
        # Its own mount namespace: /run/rtthrottle read-only there, so the folder goes to /tmp.
        script = ('mount -t tmpfs -o ro,mode=755 none /run/rtthrottle && exec "$0" "$@"')
        env = dict(os.environ, RTTHROTTLE_STATE_DIR=state, TMPDIR="/tmp")
        os.makedirs("/run/rtthrottle", exist_ok=True)
        proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, rtt.BINARY,
                               "run", "--quiet", "--scenario", "cyclictest-crosscheck", "--load", "hackbench",
                               "--probe-seconds", "0", "--noise-seconds", "0.5", "--duration", "2",
                               "--output", out],
                              capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL,
                              cwd=rtt.ROOT)
        doc = rtt.load(out)
        res = rtt.result(doc, "cyclictest-crosscheck", "default")
        tasks = {t["name"]: t for t in res["tasks"]}
        # The programs ran and their files were written (into the private folder).
        assert tasks["cyclictest"]["metrics"].get("cycles", 0) > 0, (tasks["cyclictest"]["metrics"], proc.stderr)
        assert "/tmp/rtthrottle-" in tasks["cyclictest"]["metrics"]["command"], tasks["cyclictest"]["metrics"]["command"]
        assert tasks["load"]["metrics"].get("runs_completed", 0) > 0, (tasks["load"]["metrics"], proc.stderr)
        assert _snapshot(target) == before, "the root-owned file was written through a planted symlink"
        assert os.listdir(victim) == ["kept"], os.listdir(victim)
        # Every symlink is still there (none replaced or removed) and the private folder is gone.
        left = [n for n in os.listdir("/tmp") if n.startswith("rtthrottle-")]
        assert sorted(left) == sorted(planted), set(left) ^ set(planted)
    finally:
        with open(PROTECTED, "w") as f:
            f.write(protected)
        for n in planted:
            try:
                os.unlink(os.path.join("/tmp", n))
            except OSError:
                pass
        shutil.rmtree(work, ignore_errors=True)
