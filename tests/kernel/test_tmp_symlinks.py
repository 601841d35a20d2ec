# SPDX-License-Identifier: GPL-2.0-only
"""Temporary files against planted symlinks. An unprivileged user (nobody) plants symlinks to a
root-owned file, again and again while the run goes on, at every name the old /tmp scheme could
use for the pids around the current one
(/tmp/rtthrottle-cyclictest-<pid>.{json,err}, /tmp/rtthrottle-load-<pid>.{out,err,yaml}) and at
the new private folder's neighbours (rtthrottle-<pid> and rtthrottle-<pid>.json in /tmp, and
dead runs' folder names pointing at a root-owned folder), with fs.protected_symlinks at 0. A
root run of cyclictest-crosscheck with a hackbench load, its private folder forced into /tmp
(a read-only /run/rtthrottle in its own mount namespace), must leave both targets unchanged."""
import json
import os
import shutil
import subprocess
import tempfile

import rtt

PROTECTED = "/proc/sys/fs/protected_symlinks"
AHEAD = 3000  # pids planted past the last one: a run forks a few hundred here

PLANT = r"""
import json, os, signal, sys, time
target, victim, ahead = sys.argv[1], sys.argv[2], int(sys.argv[3])
made, stop = [], []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))


def plant(name, to):
    try:
        os.symlink(to, os.path.join("/tmp", name))
        made.append(name)
    except FileExistsError:
        pass


def last_pid():
    with open("/proc/sys/kernel/ns_last_pid") as f:
        return int(f.read())


first = last_pid() + 1
# Dead runs' folder names, as symlinks to a folder of root's: the stale removal must not follow.
for pid in range(2, 50):
    plant(f"rtthrottle-{pid}.AAAAAA", victim)
# Every name the old scheme could use, and the new folder's neighbours: first for the next
# `ahead` pids, then again and again around the newest pid (a run's cleanup may remove them).
low, high = first, first + ahead
while not stop:
    for pid in range(low, high):
        names = [f"rtthrottle-cyclictest-{pid}.{k}" for k in ("json", "err")]
        names += [f"rtthrottle-load-{pid}.{k}" for k in ("out", "err", "yaml")]
        names += [f"rtthrottle-{pid}", f"rtthrottle-{pid}.json"]
        for n in names:
            plant(n, target)
    if low == first:
        print("planted", flush=True)
    last = last_pid()
    low, high = max(first + 1, last - 50), last + 400
    time.sleep(0.005)
json.dump(sorted(set(made)), sys.stdout)
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
    planted, planter = [], None
    try:
        with open(PROTECTED, "w") as f:
            f.write("0")
        planter = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                    "/usr/bin/python3", "-c", PLANT, target, victim, str(AHEAD)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert planter.stdout.readline().strip() == "planted", planter.stderr.read()
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
        planter.terminate()
        made, err = planter.communicate(timeout=60)
        planted = json.loads(made)
        assert len(planted) > AHEAD * 7, (len(planted), err)
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
        assert sorted(left) == planted, sorted(set(left) ^ set(planted))[:20]
        assert all(os.path.islink(os.path.join("/tmp", n)) for n in left)
    finally:
        if planter and planter.poll() is None:
            planter.kill()
            planter.wait()
        planted = [n for n in os.listdir("/tmp") if n.startswith("rtthrottle-") and os.path.islink(os.path.join("/tmp", n))]
        with open(PROTECTED, "w") as f:
            f.write(protected)
        for n in planted:
            try:
                os.unlink(os.path.join("/tmp", n))
            except OSError:
                pass
        shutil.rmtree(work, ignore_errors=True)
