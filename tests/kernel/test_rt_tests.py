# SPDX-License-Identifier: GPL-2.0-only
"""rt-tests beside rtthrottle: cyclictest as a second probe (scenario cyclictest-crosscheck: a
FIFO hog, rtthrottle's probe and cyclictest above it on the measured CPU, the two compared by the
scenario's checks), and the background loads of `run --load` (hackbench, stress-ng). Every
program must be gone when its window ends, and when the harness is killed with SIGKILL."""
import os
import shutil
import signal
import tempfile
import time

import rtt

SCENARIO = "cyclictest-crosscheck"
WINDOW_S = 2.0  # the scenario's window
PROGRAMS = ("cyclictest", "hackbench", "stress-ng")
_runs = {}


def _processes(names=PROGRAMS):
    """{pid: comm} of live processes whose name starts with one of names (zombies left out)."""
    return {pid: comm for pid, comm, fields in rtt.processes() if fields[0] not in ("Z", "X") and comm.startswith(names)}


PRIVATE_BASES = ("/run/rtthrottle", os.environ.get("TMPDIR") or "/tmp", "/tmp")


def _leftover_files(pids):
    """The private folders (rtthrottle-<pid>.XXXXXX) our runs of `pids` left in any base: only
    ours, since another run's folder (a bisect's, a checkout's) is none of these tests' business."""
    prefixes = tuple(f"rtthrottle-{pid}." for pid in pids)
    found = set()
    for base in PRIVATE_BASES:
        try:
            found |= {os.path.join(base, n) for n in os.listdir(base)
                      if n.startswith(prefixes) and os.path.isdir(os.path.join(base, n))
                      and not os.path.islink(os.path.join(base, n))}
        except OSError:
            pass
    return sorted(found)


def _require(*programs):
    rtt.require_root()
    for p in programs:
        if not shutil.which(p):
            raise rtt.Skip(f"{p} is not installed (ci/install-deps.sh)")
    if _processes():
        raise rtt.Skip(f"{_processes()} already run on this machine: cannot tell ours apart")


def _run(load):
    """One run of the scenario (with --load load, unless None), watching the programs' lifetimes.
    Returns (process, results, {pid: (comm, first seen, last seen)} in seconds from the start)."""
    if load not in _runs:
        _require("cyclictest", *( [load] if load else []))
        out = os.path.join(tempfile.mkdtemp(prefix="rtt-rt-tests-"), "r.json")
        args = ["run", "--quiet", "--scenario", SCENARIO, "--probe-seconds", "0", "--repeat", "2", "--output", out]
        proc = rtt.start(args + (["--load", load] if load else []))
        seen, t0 = {}, time.monotonic()
        while proc.poll() is None:
            now = time.monotonic() - t0
            for pid, comm in _processes().items():
                first = seen.get(pid, (comm, now, now))[1]
                seen[pid] = (comm, first, now)
            time.sleep(0.01)
        proc.communicate()
        _runs[load] = (proc, rtt.load(out), seen)
    return _runs[load]


def _task(result, name):
    return next(t for t in result["tasks"] if t["name"] == name)


def _crosscheck_holds(load):
    proc, doc, seen = _run(load)
    # 0, or 125 where stalls that delayed 1% of the wake-ups made the p99 cross-check as wide as
    # the tick it exists to catch (hollow, said so): never a failure.
    assert proc.returncode in (0, 125), [(r["policy"]["name"], r["verdict"], r.get("error"),
                                          [c for c in r.get("checks", []) if c["verdict"] != "pass"])
                                         for r in doc["results"]]
    for r in doc["results"]:
        rtt.judged_or_hollow(r)
    assert len(doc["results"]) == 2
    for r in doc["results"]:
        for name in ("probe", "cyclictest"):
            lat = _task(r, name)["metrics"]["latency_us"]
            assert {"min", "p50", "p99", "max"} <= set(lat), (name, lat)
        ct = _task(r, "cyclictest")["metrics"]
        assert ct["cycles"] > 0 and ct["command"].startswith("cyclictest "), ct
        # Its measuring thread is up within the window (exec, mlockall and a thread: ms, not s).
        assert 0 <= ct["start_lag_us"] < r["window_s"] * 1e6 / 4, ct
        # The stop reached its measuring thread itself, shortly after the window end.
        assert 0 <= ct["stop_lag_us"] < r["window_s"] * 1e6 / 4, ct
        assert f"-a {_task(r, 'cyclictest')['cpu']} " in ct["command"], ct["command"]
        # The checks against cyclictest (unnamed); those against timerlat are named "timerlat".
        judged = {c["metric"]: c for c in r["checks"] if c["task"] == "probe" and not c.get("name")}
        # The probe's longest wake-up from cyclictest's measuring start on, and over the window.
        for metric, theirs in (("latency_us.max_in_cyclictest_span", "max"), ("latency_us.max", "max"),
                               ("latency_us.p99", "p99")):
            c = judged[metric]
            # Passed, or hollow: a tolerance (the machine's longest stall) as wide as the tick it exists to catch.
            assert rtt.passed_or_hollow(c), c
            assert c["expected"] == _task(r, "cyclictest")["metrics"]["latency_us"][theirs], c
        probe = _task(r, "probe")["metrics"]["latency_us"]
        assert probe["max_in_cyclictest_span"] <= probe["max"], probe
        _timerlat_judged_or_skipped(r)
    return doc, seen


def _timerlat_judged_or_skipped(r):
    """timerlat beside them: skipped with why where the kernel has no timerlat tracer (every
    check on it skip, with that reason), else its histogram read and its checks judged."""
    tl = _task(r, "timerlat")["metrics"]
    mine = [c for c in r["checks"] if c.get("name") == "timerlat"]
    assert len(mine) == 2, r["checks"]
    if "skipped" in tl:
        assert "timerlat" not in rtt.tracefs_tracers() or not shutil.which("rtla"), tl
        for c in mine:
            assert c["verdict"] == "skip" and tl["skipped"] in c["rule"], c
        return
    assert tl["cycles"] > 0 and tl["command"].startswith("rtla timerlat hist "), tl
    assert tl["latency_us"]["hist"] and not tl["threshold_stop"], tl
    for c in mine:
        assert rtt.passed_or_hollow(c) and c["expected"] == tl["latency_us"]["max"], c


def _lifetimes_bounded(seen, comm_prefix, windows):
    """Each program of a window lived at most the window plus the stop grace (1 s) and polling;
    and there was one per window: none lived on into the next."""
    ours = {pid: v for pid, v in seen.items() if v[0].startswith(comm_prefix)}
    assert ours, f"never saw {comm_prefix} running: {seen}"
    for pid, (comm, first, last) in ours.items():
        assert last - first < WINDOW_S + 1.5, (pid, comm, first, last)
    return ours


def test_cyclictest_crosscheck_agrees_and_ends_with_its_window():
    doc, seen = _crosscheck_holds(None)
    # A case whose checks the noise left hollow runs again once (its window in `retried`): one more.
    windows = len(doc["results"]) + (1 if doc.get("retried") else 0)
    ours = _lifetimes_bounded(seen, "cyclictest", windows)
    assert len(ours) == windows, f"one cyclictest per window expected ({windows}): {ours}"
    # Each was gone before the next started.
    lives = sorted(ours.values(), key=lambda v: v[1])
    for (_, _, a_last), (_, b_first, _) in zip(lives, lives[1:]):
        assert b_first > a_last, (a_last, b_first)
    pids = [p.pid for p, _, _ in _runs.values()]
    assert not _processes() and not _leftover_files(pids), (_processes(), _leftover_files(pids))


def _load_recorded(tool, reported):
    doc, seen = _crosscheck_holds(tool)
    assert doc["run"]["load"] == tool
    measured = _task(doc["results"][0], "hog")["cpu"]
    for r in doc["results"]:
        load = _task(r, "load")
        m = load["metrics"]
        assert load["role"] == "load" and load["sched_policy"] == "SCHED_OTHER", load
        assert m["tool"] == tool and m["command"].split()[0] == tool, m
        cpus = [int(c) for c in m["cpus"].split(",")]
        assert measured not in cpus and cpus, (measured, m["cpus"])
        assert m["runs"] >= 1 and m[reported] > 0, m
        # It did real work for the window: at least a tenth of a CPU (CPU 0 is shared).
        assert m["cpu_s"] > 0.1 * WINDOW_S, m
    _lifetimes_bounded(seen, tool, 2)
    pids = [p.pid for p, _, _ in _runs.values()]
    assert not _processes() and not _leftover_files(pids), (_processes(), _leftover_files(pids))


def test_hackbench_load_recorded_and_gone_after_each_window():
    _load_recorded("hackbench", "hackbench_time_s")


def test_stress_ng_load_recorded_and_gone_after_each_window():
    _load_recorded("stress-ng", "bogo_ops")


def _killed_mid_window(tool):
    _require("cyclictest", tool)
    before = rtt.read_knobs()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-rt-tests-"), "r.json")
    proc = rtt.start(["run", "--quiet", "--scenario", SCENARIO, "--probe-seconds", "0", "--load", tool,
                      "--output", out])
    try:
        both = rtt.wait_for(lambda: {"cyclictest"} <= {c[:10] for c in _processes().values()} and
                            any(c.startswith(tool) for c in _processes().values()), 15)
        assert both is not None, f"cyclictest and {tool} never ran together: {_processes()}"
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        gone = rtt.wait_for(lambda: not _processes(), 2.0)
        assert gone is not None, f"left after the harness was killed: {_processes()}"
        # The killed tasks' zombies keep their policy until PID 1 reaps them (up to ~2 s here).
        assert rtt.wait_for(lambda: not rtt.rt_tasks_of(), 5.0) is not None, rtt.rt_tasks_of()
        assert rtt.wait_for(lambda: rtt.read_knobs() == before, 2.0) is not None, rtt.read_knobs()
        assert not os.path.exists(out)
        # The guardian removes what the killed tasks could not (their cyclictest/load output).
        assert rtt.wait_for(lambda: not _leftover_files([proc.pid]), 2.0) is not None, _leftover_files([proc.pid])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for d in _leftover_files([proc.pid]):  # what the killed run could not remove
            shutil.rmtree(d, ignore_errors=True)


def test_hackbench_and_cyclictest_die_with_a_killed_harness():
    _killed_mid_window("hackbench")


def test_stress_ng_and_cyclictest_die_with_a_killed_harness():
    _killed_mid_window("stress-ng")
