# SPDX-License-Identifier: GPL-2.0-only
"""The results folder full or read-only (a 64 KiB tmpfs, unmounted afterwards, also on failure):
refused before anything changes when it is so from the start; when it fills up or turns
read-only during the run, the results file is absent (never truncated, no temp file left), the
error names the path, the exit status is 1, and the knobs are restored either way."""
import contextlib
import errno
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernel"))
import rtt  # noqa: E402

STATE = os.path.join(os.environ.get("RTTHROTTLE_STATE_DIR") or "/run/rtthrottle", "state.json")
RUN = ["run", "--scenario", "fifo-hog-share", "--policy", "half", "--probe-seconds", "0",
       "--noise-seconds", "0.3", "--duration", "1", "--quiet"]
ENOSPC_TEXT = os.strerror(errno.ENOSPC)   # "No space left on device"
EROFS_TEXT = os.strerror(errno.EROFS)     # "Read-only file system"


@contextlib.contextmanager
def _tiny_tmpfs():
    """A fresh 64 KiB tmpfs; unmounted (lazily if busy) and removed whatever happens."""
    rtt.require_root()
    folder = tempfile.mkdtemp(prefix="rtt-tmpfs-")
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", folder],
                           capture_output=True, text=True)
    if mount.returncode:
        os.rmdir(folder)
        raise rtt.Skip(f"cannot mount a tmpfs: {mount.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", folder], capture_output=True).returncode:
            subprocess.run(["umount", "-l", folder], capture_output=True)
        os.rmdir(folder)


def _fill(folder, leave=0):
    """Fills the file system of folder until `leave` bytes are free (0: until ENOSPC)."""
    st = os.statvfs(folder)
    want = st.f_bavail * st.f_frsize - leave
    fd = os.open(os.path.join(folder, "fill"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while leave == 0 or want > 0:
            os.write(fd, b"\0" * (4096 if leave == 0 else min(4096, want)))
            want -= 4096
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


def _remount_ro(folder):
    proc = subprocess.run(["mount", "-o", "remount,ro", folder], capture_output=True, text=True)
    assert proc.returncode == 0, f"remount,ro {folder}: {proc.stderr}"


def _refused_before_anything_changes(folder, reason_text):
    before = rtt.read_knobs()
    out = os.path.join(folder, "r.json")
    proc = rtt.run(RUN + ["--output", out], timeout=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert out in proc.stderr and reason_text in proc.stderr, proc.stderr
    assert rtt.read_knobs() == before, rtt.read_knobs()
    assert not os.path.exists(STATE), "a refused run left the state file"
    assert not os.path.exists(out)
    return proc


def _spoiled_during_run(folder, spoil, reason_text, label):
    """Starts a run writing to folder, spoils the folder mid-window, checks the outcome."""
    before = rtt.read_knobs()
    out = os.path.join(folder, "r.json")
    proc = subprocess.Popen([rtt.BINARY] + RUN + ["--output", out], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=rtt.ROOT)
    try:
        changed = rtt.wait_for(lambda: rtt.read_knobs() != before, 10, step=0.002)
        assert changed is not None, "the run never applied 'half'"
        spoil(folder)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    # The knobs are back whatever happened to the results (the harness restores before writing).
    assert rtt.wait_for(lambda: rtt.read_knobs() == before and not os.path.exists(STATE), 1.0) is not None, \
        f"{label}: knobs {rtt.read_knobs()} (saved {before}), state file {os.path.exists(STATE)}"
    if os.path.exists(out):  # only acceptable whole
        with open(out) as f:
            doc = json.load(f)
        assert doc["run"]["complete"] is True, doc["run"]
        fate = "written whole"
    else:
        assert f"cannot write results to {out}: {reason_text}" in err, f"{label}: {err}"
        # Lost results are a failure, even when every check passed.
        assert proc.returncode == 1, f"{label}: results lost but exit {proc.returncode}"
        fate = "absent"
    leftovers = [n for n in os.listdir(folder) if n != "fill"]
    assert leftovers in ([], ["r.json"]), f"{label}: left in the folder: {leftovers}"
    message = [line for line in err.splitlines() if "cannot write results" in line]
    print(f"# {label}: exit {proc.returncode}, results {fate}, knobs restored; "
          f"{message[0] if message else 'no error'}")


def test_full_folder_is_refused_before_anything_changes():
    with _tiny_tmpfs() as folder:
        _fill(folder)
        _refused_before_anything_changes(folder, ENOSPC_TEXT)
        assert os.listdir(folder) == ["fill"], os.listdir(folder)


def test_read_only_folder_is_refused_before_anything_changes():
    with _tiny_tmpfs() as folder:
        _remount_ro(folder)
        _refused_before_anything_changes(folder, EROFS_TEXT)


def test_folder_filling_up_during_the_run_loses_no_knob_and_leaves_no_half_file():
    # 4 KiB left: the harness's write gets partway, then ENOSPC; the partial temp must go.
    with _tiny_tmpfs() as folder:
        _spoiled_during_run(folder, lambda d: _fill(d, leave=4096), ENOSPC_TEXT, "results folder filled mid-run")


def test_folder_turning_read_only_during_the_run_loses_no_knob():
    with _tiny_tmpfs() as folder:
        _spoiled_during_run(folder, _remount_ro, EROFS_TEXT, "results folder read-only mid-run")
