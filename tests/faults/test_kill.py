# SPDX-License-Identifier: GPL-2.0-only
"""Fault injection on a real run of 'half' (0.3 s noise floor, --duration 1, no probe): the
harness killed with SIGKILL at 20 seeded pseudo-random moments spread over the phases of an
undisturbed run (plus at the instants the knobs start to change and start to come back), a hog
killed ~0.45 s before its window ends, and SIGINT/SIGTERM/SIGHUP. Every time, within 1 s: the
knobs are back at their saved values, no live realtime task of ours is left, the state file (and
any temp of it) is gone. Then the lock is free again, the results file is whole or absent (never
truncated), and the exit status says what happened (-9 killed, 128+N stopped by signal N, 1 for
a window whose hog died)."""
import errno
import fcntl
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernel"))
import rtt  # noqa: E402

STATE_DIR = os.environ.get("RTTHROTTLE_STATE_DIR") or "/run/rtthrottle"
STATE = os.path.join(STATE_DIR, "state.json")
LOCK = os.path.join(STATE_DIR, "lock")
LIMIT_S = 1.0
RUN = ["run", "--scenario", "fifo-hog-share", "--policy", "half", "--probe-seconds", "0",
       "--noise-seconds", "0.3", "--duration", "1", "--quiet"]
SEED = 6
GUARD_SAID = "rtthrottle-guard: the harness died"
RUNTIME_KNOBS = ("/proc/sys/kernel/sched_rt_runtime_us", "/sys/fs/cgroup/cpu/cpu.rt_runtime_us")


class Run:
    """One background run; stdout, stderr and results go to a fresh folder."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="rtt-fault-")
        self.out = os.path.join(self.dir, "r.json")
        self._files = [open(os.path.join(self.dir, name), "w") for name in ("stdout", "stderr")]
        self.proc = subprocess.Popen([rtt.BINARY] + RUN + ["--output", self.out], stdin=subprocess.DEVNULL,
                                     stdout=self._files[0], stderr=self._files[1], cwd=rtt.ROOT)
        self.started = time.monotonic()

    def elapsed(self):
        return time.monotonic() - self.started

    def text(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def results_temps(self):
        return [n for n in os.listdir(self.dir) if n.startswith("r.json.tmp.")]

    def close(self):
        """Closes the output files and removes the folder (kept when a check failed)."""
        for f in self._files:
            f.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _runtimes():
    """The two runtime knobs (sysctl, root cgroup): cheap enough to poll every 0.3 ms."""
    values = []
    for path in RUNTIME_KNOBS:
        try:
            with open(path) as f:
                values.append(int(f.read()))
        except OSError:
            pass
    return tuple(values)


def _saved_runtimes(before):
    return tuple(before[k] for k in ("sched_rt_runtime_us", "cgroup_rt_runtime_us") if k in before)


def _proc_stat(pid):
    """(state, ppid) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()
        return fields[0], int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def _live_rt_tasks():
    """rtt.rt_tasks_of() without zombies: a killed task keeps its policy in /proc until its new
    parent (PID 1, once the harness is dead) reaps it, which PID 1 here does up to ~1.7 s late."""
    return [t for t in rtt.rt_tasks_of() if (_proc_stat(t[0]) or ("X",))[0] not in ("Z", "X")]


def _lock_free():
    try:
        fd = os.open(LOCK, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return False
        raise
    finally:
        os.close(fd)


def _state_files():
    """What is left of state.json in the state folder: the file or a temp of it."""
    try:
        return [n for n in os.listdir(STATE_DIR) if n.startswith("state.json")]
    except FileNotFoundError:
        return []


def _knobs_back(before):
    return rtt.read_knobs() == before and not os.path.exists(STATE)


def _settled(before):
    return _knobs_back(before) and not _live_rt_tasks()


def _describe(before):
    return (f"knobs {rtt.read_knobs()} (saved {before}), live RT tasks {_live_rt_tasks()}, "
            f"state file {'present' if os.path.exists(STATE) else 'gone'}")


def _cleanup(run, before):
    """After a failure: stop the run, give the guardian time, restore if it did not."""
    if run.proc.poll() is None:
        run.proc.kill()
    run.proc.wait()
    rtt.wait_for(lambda: _settled(before) and _lock_free(), 5)
    if not _knobs_back(before):
        subprocess.run([rtt.BINARY, "restore"], capture_output=True, timeout=30)
    for f in run._files:
        f.close()


class Timings:
    """Seconds from each fault until everything was back, and until the knobs alone were."""

    def __init__(self):
        self.all, self.knobs, self.cases = [], [], []

    def figure(self, label, count):
        ok = sum(1 for t in self.all if t <= LIMIT_S)
        if not self.all:
            print(f"# {label}: 0/{count} restored within {LIMIT_S:.0f} s")
            return
        print(f"# {label}: {ok}/{count} restored within {LIMIT_S:.0f} s (worst {max(self.all):.3f} s, "
              f"median {statistics.median(self.all):.3f} s; knobs and state file alone: worst "
              f"{max(self.knobs):.3f} s, median {statistics.median(self.knobs):.3f} s)")


def _after_fault(run, before, since, what, timings):
    """Waits for knobs, state file and live RT tasks to be back (<= 1 s), then for the lock to be
    free and the harness to exit. Returns the seconds it took."""
    knobs_took = None
    while True:
        took = time.monotonic() - since
        if knobs_took is None and _knobs_back(before):
            knobs_took = took
        if knobs_took is not None and not _live_rt_tasks():
            break
        if took > LIMIT_S:
            report = _describe(before)
            _cleanup(run, before)
            raise AssertionError(f"{what}: not back within {LIMIT_S} s: {report}; "
                                 f"stderr: {run.text('stderr')[-800:]}")
        time.sleep(0.002)
    timings.all.append(took)
    timings.knobs.append(knobs_took)
    timings.cases.append((took, what))
    if rtt.wait_for(_lock_free, 2.0) is None:
        _cleanup(run, before)
        raise AssertionError(f"{what}: {LOCK} still held 2 s after the knobs came back")
    if _state_files():
        _cleanup(run, before)
        raise AssertionError(f"{what}: left in {STATE_DIR}: {_state_files()}")
    try:
        run.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _cleanup(run, before)
        raise AssertionError(f"{what}: the harness did not exit")
    return took


def _results(run, what, complete=None):
    """The results file: None when absent, else the document, which must be whole."""
    if not os.path.exists(run.out):
        return None
    with open(run.out) as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise AssertionError(f"{what}: truncated or invalid {run.out} ({len(text)} bytes): {exc}")
    assert isinstance(doc.get("run", {}).get("complete"), bool), f"{what}: no run.complete: {doc.get('run')}"
    if complete is not None:
        assert doc["run"]["complete"] is complete, f"{what}: run {doc['run']}"
    assert doc.get("knobs_after") == doc.get("knobs_before"), \
        f"{what}: knobs_before {doc.get('knobs_before')}, knobs_after {doc.get('knobs_after')}"
    return doc


def _wait_phase(run, before, predicate, what):
    if rtt.wait_for(predicate, 10, step=0.001) is None:
        _cleanup(run, before)
        raise AssertionError(f"{what} never came ({run.elapsed():.2f} s); stderr: {run.text('stderr')[-800:]}")


def _no_rt_tasks_even_zombies():
    """So the runner's leftovers check (which counts zombies) finds nothing after this test."""
    if rtt.wait_for(lambda: not rtt.rt_tasks_of(), 5) is None:
        raise AssertionError(f"RT tasks (zombies included) still there after 5 s: {rtt.rt_tasks_of()}")


_calibration = {}


def _calibrated(before):
    """The phases of an undisturbed run (measured once per test run, see _calibrate)."""
    if "marks" not in _calibration:
        _calibration["marks"] = _calibrate(before)
        print("# undisturbed run: state file at {state:.3f} s, knobs changed {apply:.3f} s, back {restore:.3f} s, "
              "exit {exit:.3f} s; window {window_s:.2f} s".format(**_calibration["marks"]))
    return _calibration["marks"]


def _calibrate(before):
    """An undisturbed run watched every 0.5 ms: when the state file appears, the knobs change,
    the knobs come back, the harness exits."""
    run = Run()
    marks, base = {}, _saved_runtimes(before)
    while run.proc.poll() is None:
        now, knobs = run.elapsed(), _runtimes()
        if "state" not in marks and os.path.exists(STATE):
            marks["state"] = now
        if "apply" not in marks and knobs != base:
            marks["apply"] = now
        if "apply" in marks and "restore" not in marks and knobs == base:
            marks["restore"] = now
        time.sleep(0.0005)
    marks["exit"] = run.elapsed()
    marks.setdefault("restore", marks["exit"])
    _after_fault(run, before, time.monotonic(), "undisturbed run", Timings())
    assert run.proc.returncode in (0, 1, 125), f"undisturbed run: exit {run.proc.returncode}: {run.text('stderr')[-800:]}"
    doc = _results(run, "undisturbed run", complete=True)
    assert doc is not None, f"undisturbed run wrote no results: {run.text('stderr')[-800:]}"
    assert doc["results"][0]["verdict"] in ("pass", "fail", "unjudged"), doc["results"][0]
    marks["window_s"] = doc["results"][0].get("window_s", 1.0)  # a scenario may stretch --duration
    run.close()
    assert "state" in marks and "apply" in marks, f"undisturbed run: phases not seen: {marks}"
    return marks


def _moments(marks):
    """20 (seconds after start, phase) pairs, seeded, spread over the calibrated run's phases."""
    rng = random.Random(SEED)
    s, a, r, e = marks["state"], marks["apply"], marks["restore"], marks["exit"]
    strata = [
        (3, 0.0, s + 0.003, "startup"),                # exec, probe, lock, guardian, state save
        (4, s + 0.003, a - 0.010, "noise floor"),      # saved, nothing written yet
        (3, a - 0.004, a + 0.004, "apply +-4 ms"),     # the first knob writes, tasks forked
        (6, a + 0.010, r - 0.010, "mid-window"),       # 'half' applied, hog running
        (4, r - 0.004, e + 0.010, "window end/restore/exit"),
    ]
    return [(rng.uniform(lo, max(lo, hi)), name) for n, lo, hi, name in strata for _ in range(n)]


def _kill_at(delay, before, timings, seen, temps):
    """SIGKILL the harness `delay` s after its start, noting what the knobs said just before."""
    run, base = Run(), _saved_runtimes(before)
    saw_state = saw_changed = False
    last = base
    while run.elapsed() < delay and run.proc.poll() is None:
        saw_state |= os.path.exists(STATE)
        last = _runtimes()
        saw_changed |= last != base
        time.sleep(0.0003)
    finished = run.proc.poll() is not None
    sent = time.monotonic()
    run.proc.send_signal(signal.SIGKILL)
    if finished:
        phase = "after exit"
    elif last != base:
        phase = "knobs applied" if all(x != y for x, y in zip(last, base)) else "knobs partly written"
    elif saw_changed:
        phase = "after restore"
    elif saw_state or os.path.exists(STATE):
        phase = "state saved, no knob written"
    else:
        phase = "no state file yet"
    what = f"SIGKILL at {delay:.3f} s ({phase})"
    _after_fault(run, before, sent, what, timings)
    if run.proc.returncode != -signal.SIGKILL:
        # The run ended before the kill landed: a normal exit and complete results.
        assert run.proc.returncode in (0, 1), f"{what}: exit {run.proc.returncode}, expected -9 or 0/1"
        assert _results(run, what, complete=True) is not None, f"{what}: exit {run.proc.returncode} without results"
        phase = "after exit"
    else:
        _results(run, what, complete=True)  # absent, or written whole just before the kill
        if last != base:
            assert GUARD_SAID in run.text("stderr"), f"{what}: no word from the guardian: {run.text('stderr')[-800:]}"
    seen[phase] = seen.get(phase, 0) + 1
    temps.extend(run.results_temps())
    run.close()


def _kill_on(trigger, name, before, timings, seen):
    """SIGKILL the harness the instant trigger(runtimes, saved, changed_before) holds (busy poll)."""
    run, base = Run(), _saved_runtimes(before)
    changed = False
    deadline = time.monotonic() + 10
    while run.proc.poll() is None and time.monotonic() < deadline:
        now = _runtimes()
        if trigger(now, base, changed):
            break
        changed |= now != base
    sent = time.monotonic()
    run.proc.send_signal(signal.SIGKILL)
    left = _runtimes()
    what = f"SIGKILL {name} at {run.elapsed():.3f} s (runtime knobs {left} right after, saved {base})"
    _after_fault(run, before, sent, what, timings)
    assert run.proc.returncode == -signal.SIGKILL, f"{what}: exit {run.proc.returncode}, expected -9"
    assert _results(run, what) is None, f"{what}: results written although killed mid-run"
    seen[name] = seen.get(name, 0) + 1
    run.close()


def test_sigkill_at_20_moments_restores_within_1s():
    rtt.require_root()
    before = rtt.read_knobs()
    marks = _calibrated(before)
    timings, seen, planned, temps = Timings(), {}, {}, []
    moments = _moments(marks)
    for _, phase in moments:
        planned[phase] = planned.get(phase, 0) + 1
    try:
        for delay, _ in moments:
            _kill_at(delay, before, timings, seen, temps)
        # The two narrow moments, on purpose: the first knob write and the first restoring write.
        _kill_on(lambda now, base, changed: now != base, "at the first knob write", before, timings, seen)
        _kill_on(lambda now, base, changed: changed and any(x == y for x, y in zip(now, base)),
                 "at the first restoring write", before, timings, seen)
    finally:
        timings.figure("fault runs (SIGKILL of the harness)", len(moments) + 2)
        print("# kill moments by phase: " + ", ".join(f"{k} {v}" for k, v in planned.items()))
        print("# seen at the kill: " + ", ".join(f"{k} {v}" for k, v in seen.items()))
        for took, what in sorted(timings.cases, reverse=True)[:2]:
            print(f"# slowest: {took:.3f} s after {what}")
        if temps:  # a kill inside the results write: the final name is never half-written
            print(f"# results temp files left by kills mid-write (final file absent): {temps}")
    _no_rt_tasks_even_zombies()


def test_killed_hog_is_an_error_window_and_restores():
    rtt.require_root()
    before = rtt.read_knobs()
    marks = _calibrated(before)
    run = Run()
    _wait_phase(run, before, lambda: rtt.read_knobs() != before and _live_rt_tasks(), "'half' with a running hog")
    # The harness notices the loss only at the window's end (window_run reaps then): kill the hog
    # about 0.45 s before that end, however long the scenario makes the window.
    time.sleep(max(0.05, marks["window_s"] - 0.45))
    hogs = [pid for pid, _, _ in _live_rt_tasks() if (_proc_stat(pid) or (None, None))[1] == run.proc.pid]
    if not hogs:
        _cleanup(run, before)
        raise AssertionError(f"no SCHED_FIFO child of the harness (pid {run.proc.pid}): {rtt.rt_tasks_of()}")
    sent, run_at_kill = time.monotonic(), run.elapsed()
    os.kill(hogs[0], signal.SIGKILL)
    timings = Timings()
    _after_fault(run, before, sent, "hog killed mid-window", timings)
    # An error window is not judged: 125 (git bisect run skips such a commit), never 0.
    assert run.proc.returncode == 125, f"hog killed: exit {run.proc.returncode}, expected 125: {run.text('stderr')[-800:]}"
    doc = _results(run, "hog killed", complete=True)
    assert doc is not None, f"hog killed: no results file: {run.text('stderr')[-800:]}"
    res = doc["results"][0]
    assert res["verdict"] == "error", res
    assert "hog" in res["error"] and "without finishing its window" in res["error"], res["error"]
    assert doc["knobs_restored"] is True
    # KTAP 1 and 2 are regime-probe (skipped: --probe-seconds 0) and kernel-defaults.
    assert "not ok 3 fifo-hog-share.half" in run.text("stdout"), run.text("stdout")
    print(f"# hog killed {run_at_kill:.3f} s after start, mid-window: everything back {timings.all[0]:.3f} s "
          f"after the kill (the harness notices at the window end)")
    run.close()
    _no_rt_tasks_even_zombies()


def test_sigint_sigterm_sighup_stop_restore_and_exit_128_plus_n():
    rtt.require_root()
    before = rtt.read_knobs()
    timings = Timings()
    cases = ((signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGHUP, True), (signal.SIGTERM, False))
    for sig, mid_window in cases:
        run = Run()
        if mid_window:
            _wait_phase(run, before, lambda: rtt.read_knobs() != before and _live_rt_tasks(),
                        "'half' with a running hog")
            time.sleep(0.2)
        else:  # the noise floor: state saved, no knob written yet
            _wait_phase(run, before, lambda: os.path.exists(STATE), "the state file")
            time.sleep(0.1)
        what = f"{signal.Signals(sig).name} {'mid-window' if mid_window else 'during the noise floor'}"
        sent = time.monotonic()
        run.proc.send_signal(sig)
        _after_fault(run, before, sent, what, timings)
        assert run.proc.returncode == 128 + sig, \
            f"{what}: exit {run.proc.returncode}, expected {128 + sig}: {run.text('stderr')[-800:]}"
        doc = _results(run, what, complete=False)
        assert doc is not None, f"{what}: no results file: {run.text('stderr')[-800:]}"
        assert f"signal {int(sig)}" in doc["run"].get("stop_reason", ""), doc["run"]
        assert doc["knobs_restored"] is True, what
        run.close()
    timings.figure("signal runs (SIGINT, SIGTERM, SIGHUP mid-window; SIGTERM in the noise floor)", len(cases))
