# SPDX-License-Identifier: GPL-2.0-only
"""The machine and its settings survive: SIGKILL of the harness, signals, overlapping runs,
and `rtthrottle restore` after a run that died with its guardian."""
import json
import os
import signal
import tempfile

import rtt

HALF = ["run", "--scenario", "fifo-hog-share", "--policy", "half", "--probe-seconds", "0",
        "--noise-seconds", "0.5", "--quiet"]


def _out():
    return os.path.join(tempfile.mkdtemp(prefix="rtt-test-"), "r.json")


def _start_half_and_wait(duration):
    """Starts a run of 'half' and returns once the knobs say 500000 (mid-window)."""
    proc = rtt.start(HALF + ["--duration", str(duration), "--output", _out()])
    took = rtt.wait_for(lambda: rtt.read_knobs()["sched_rt_runtime_us"] == 500000 and rtt.rt_tasks_of(), 10)
    if took is None:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"the run never applied 'half' with a hog running: {err[-1500:]}")
    return proc


def test_sigkill_mid_window_restores_within_2s():
    rtt.require_root()
    before = rtt.read_knobs()
    proc = _start_half_and_wait(6)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    took = rtt.wait_for(lambda: rtt.read_knobs() == before and not rtt.rt_tasks_of(), 2.0)
    assert took is not None, f"2 s after SIGKILL: knobs {rtt.read_knobs()}, RT tasks {rtt.rt_tasks_of()}"
    # The guardian also removes the state file and lets the lock go.
    assert rtt.wait_for(lambda: not os.path.exists("/run/rtthrottle/state.json"), 2.0) is not None


def test_sigterm_stops_restores_and_says_so():
    rtt.require_root()
    before = rtt.read_knobs()
    out = _out()
    proc = rtt.start(HALF + ["--duration", "6", "--output", out])
    assert rtt.wait_for(lambda: rtt.read_knobs()["sched_rt_runtime_us"] == 500000, 10) is not None
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err[-1500:])
    assert rtt.read_knobs() == before
    doc = rtt.load(out)
    assert doc["run"]["complete"] is False and "signal" in doc["run"]["stop_reason"], doc["run"]
    assert doc["knobs_after"] == doc["knobs_before"]


def test_second_run_is_refused_with_holder_pid():
    rtt.require_root()
    first = _start_half_and_wait(4)
    second = rtt.run(HALF + ["--duration", "1", "--output", _out()], timeout=30)
    out, err = first.communicate(timeout=30)
    assert second.returncode == 2, (second.returncode, second.stderr)
    assert f"pid {first.pid}" in second.stderr, second.stderr
    # The first run measured beside the refused one; its verdict is not what this test is about
    # (125: a check left unjudged, its tolerance as wide as what it catches under that noise).
    assert first.returncode in (0, 1, 125), (first.returncode, out, err[-1000:])


def test_restore_puts_back_knobs_of_a_dead_run():
    rtt.require_root()
    before = rtt.read_knobs()
    state_dir = tempfile.mkdtemp(prefix="rtt-state-")
    env = dict(os.environ, RTTHROTTLE_STATE_DIR=state_dir)
    # What a run leaves when it and its guardian die: state.json and changed knobs.
    with open(os.path.join(state_dir, "state.json"), "w") as f:
        json.dump({"pid": 999999, "knobs": before}, f)
    for name, value in (("cgroup_rt_runtime_us", 600000), ("sched_rt_runtime_us", 600000)):
        if name in before:
            with open(rtt.KNOB_FILES[name], "w") as f:
                f.write(str(value))
    try:
        proc = rtt.run(["restore"], env=env, timeout=30)
        assert proc.returncode == 0, proc.stderr
        assert "restored" in proc.stdout, proc.stdout
        assert rtt.read_knobs() == before, rtt.read_knobs()
        assert not os.path.exists(os.path.join(state_dir, "state.json"))
        again = rtt.run(["restore"], env=env, timeout=30)
        assert again.returncode == 0 and "nothing to restore" in again.stdout, again.stdout
    finally:
        # The knobs go back whatever else failed: a missing binary or a restore that raises
        # must not leave the host at 600000 (sysctl first: it bounds the cgroup's runtime).
        try:
            rtt.run(["restore"], env=env, timeout=30)
        finally:
            if rtt.read_knobs() != before:
                for name in ("sched_rt_runtime_us", "cgroup_rt_runtime_us"):
                    if name in before:
                        with open(rtt.KNOB_FILES[name], "w") as f:
                            f.write(str(before[name]))
