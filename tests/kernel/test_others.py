# SPDX-License-Identifier: GPL-2.0-only
"""Other tasks on the measured CPU: a CFS task the scenario did not start spins there through a
run. The noise floor leaves its time out (each window allows for its own), the trace places its
runs in each period, and CFS's rest (the victim's time plus the other task's) is judged."""
import os
import tempfile

import rtt


def test_a_foreign_cfs_task_is_placed_not_allowed_for():
    rtt.require_root()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-others-"), "r.json")
    spinner = rtt.cfs_spinner(cpu=1, seconds=60)
    try:
        proc = rtt.run(["run", "--quiet", "--probe-seconds", "0", "--scenario", "fifo-hog-share", "--policy", "half",
                        "--cpu", "1", "--output", out], timeout=120)
    finally:
        spinner.kill()
        spinner.wait()
    assert proc.returncode in (0, 1, 125), proc.stderr
    doc = rtt.load(out)
    floor = doc["noise_floor"]
    # The spinner took about half the floor's window; the floor's own losses leave it out.
    assert floor["others_us"] > 0.3 * floor["window_s"] * 1e6, floor
    assert floor["cpu_loss_share"] < 0.05, floor
    res = rtt.result(doc, "fifo-hog-share", "half")
    others = res["trace"]["others"]
    assert others["total_us"] > 0.2 * res["window_s"] * 1e6 and others["spans"], others["total_us"]
    # Never more than cpuacct saw them take (less the window's tasks'), but for the interrupt
    # time and steal inside their runs: time after a switch the trace did not record is nobody's,
    # listed apart, so the victim's own time never counts again as others'.
    assert "unrecorded" in others and others["unrecorded_us"] >= 0, others.keys()
    if res.get("others_us", -1) >= 0:
        assert others["total_us"] <= res["others_us"] + 0.03 * res["window_s"] * 1e6, \
            (others["total_us"], res["others_us"], others["unrecorded_us"])
    victim = rtt.metrics(res, "victim")
    assert victim.get("others_placed") == 1, victim
    rest = rtt.check(res, "victim", "cfs_period_min_us")
    assert rest is not None and rest["verdict"] in ("pass", "not-applicable"), rest
    if rest["verdict"] == "pass":
        # The victim alone got about half the rest; with the other task's time it is the whole rest.
        assert rest["measured"] >= 500000 - rest["tolerance"], rest
        assert rest["tolerance"] < 0.1 * 500000, rest
