# SPDX-License-Identifier: GPL-2.0-only
"""`rtthrottle plan` and the planner in runs: the order of knob writes to a policy and back,
including the detour through runtime -1 that short periods need on a fair-server kernel, and
runs that reach such policies and restore the knobs."""
import json
import os
import tempfile
import time

import rtt

FAIR_SERVER = ["--fair-server", "50000/1000000"]  # a 6.12+ kernel's default, whatever runs here
DEFAULT = ["--from", "950000/1000000", "--cgroup"]


def _steps(stdout, heading):
    """(file, old, new) of each write listed under the line starting with heading."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    steps = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        number, path, old, arrow, new = line.split()[:5]
        assert arrow == "->" and number == f"{len(steps) + 1}.", line
        steps.append((os.path.basename(path), int(old), int(new)))
    return steps


def test_plan_45000_50000_goes_through_minus_one_both_ways():
    before = rtt.read_knobs()
    proc = rtt.run(["plan", "45000", "50000"] + DEFAULT + FAIR_SERVER)
    assert proc.returncode == 0, proc.stderr
    assert "fair server 50000/1000000 = 0.050 per CPU" in proc.stdout, proc.stdout
    there, back = _steps(proc.stdout, "to "), _steps(proc.stdout, "back to ")
    assert there[0] == ("sched_rt_runtime_us", 950000, -1), there
    assert back[0] == ("sched_rt_runtime_us", 45000, -1), back
    assert len(there) == len(back) == 5, (there, back)
    # Every knob ends at the policy, then back at the default.
    assert {f: new for f, _, new in there} == {"sched_rt_runtime_us": 45000, "sched_rt_period_us": 50000,
                                               "cpu.rt_runtime_us": 45000, "cpu.rt_period_us": 50000}
    assert {f: new for f, _, new in back} == {"sched_rt_runtime_us": 950000, "sched_rt_period_us": 1000000,
                                              "cpu.rt_runtime_us": 950000, "cpu.rt_period_us": 1000000}
    assert rtt.read_knobs() == before, "plan wrote the knobs"


def test_plan_without_cgroup_and_as_json():
    proc = rtt.run(["plan", "--json", "--no-cgroup", "45000", "50000"] + DEFAULT[:2] + FAIR_SERVER)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(s["knob"], s["old"], s["new"]) for s in doc["apply"]] == [
        ("sched_rt_runtime_us", 950000, -1), ("sched_rt_period_us", 1000000, 50000),
        ("sched_rt_runtime_us", -1, 45000)], doc["apply"]
    assert [(s["knob"], s["new"]) for s in doc["restore"]] == [
        ("sched_rt_runtime_us", -1), ("sched_rt_period_us", 1000000), ("sched_rt_runtime_us", 950000)]
    assert all(s["why"] for s in doc["apply"] + doc["restore"])
    assert doc["deadline_floor"]["runtime_us"] == 50000 and "cgroup_rt_runtime_us" not in doc["to"]


def test_plan_refuses_below_the_floor_naming_the_constraint():
    proc = rtt.run(["plan", "40000", "1000000"] + DEFAULT + FAIR_SERVER)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert ("policy 40000/1000000: ratio 0.040 is below the deadline bandwidth the kernel has admitted "
            "(fair server 50000/1000000 = 0.050 per CPU") in proc.stderr, proc.stderr
    assert "EBUSY" in proc.stderr and not proc.stdout, proc.stderr
    # Before 6.12 nothing is admitted: the same policy has a plan.
    proc = rtt.run(["plan", "40000", "1000000", "--fair-server", "0/1000000"] + DEFAULT)
    assert proc.returncode == 0 and "none" in proc.stdout, (proc.returncode, proc.stderr)


def test_plan_bad_input_exits_2_naming_it():
    before = rtt.read_knobs()
    for args, named in [([], "RUNTIME_US and PERIOD_US"), (["45000"], "RUNTIME_US and PERIOD_US"),
                        (["abc", "1000"], "'abc'"), (["45000", "0"], "PERIOD_US: '0'"),
                        (["-2", "1000"], "'-2'"), (["1", "2", "3"], "'3'"),
                        (["60000", "50000"], "runtime exceeds period"),
                        (["--from", "1x", "1", "2"], "--from: '1x'"), (["--bogus", "1", "2"], "--bogus"),
                        (["--fair-server", "2/1", "1", "2"], "--fair-server: '2/1'"),
                        (["--from", "40000/1000000", "950000", "1000000"] + FAIR_SERVER, "--from 40000/1000000")]:
        proc = rtt.run(["plan"] + args)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
        assert named in proc.stderr, (args, named, proc.stderr)
    proc = rtt.run(["plan", "--help"])
    assert proc.returncode == 0 and "Usage: rtthrottle plan" in proc.stdout
    # -1 is a runtime, not an option; "--" works too.
    for args in (["-1", "1000000"], ["--", "-1", "1000000"]):
        proc = rtt.run(["plan"] + args + DEFAULT + FAIR_SERVER)
        assert proc.returncode == 0 and _steps(proc.stdout, "to ")[0][2] == -1, (args, proc.stderr)
    assert rtt.read_knobs() == before


def test_plan_fair_server_on_the_measured_cpu_only_keeps_the_others_floor():
    """With --fair-server-cpus measured only the last online CPU's server is written, and the
    other CPUs' servers, left as they are, still bind the global ratio."""
    with open("/sys/devices/system/cpu/online") as f:
        last = int(f.read().strip().replace("-", ",").split(",")[-1])
    set_fs = ["--set-fair-server", "10ms/1s"]
    proc = rtt.run(["plan", "60000", "1000000"] + DEFAULT + FAIR_SERVER + set_fs + ["--fair-server-cpus", "measured"])
    assert proc.returncode == 0, proc.stderr
    files = {os.path.dirname(line.split()[1]) for line in proc.stdout.splitlines() if "fair_server/" in line}
    assert files == {f"/sys/kernel/debug/sched/fair_server/cpu{last}"}, proc.stdout
    # 3% RT under a 1% server: refused where the others keep 5%, planned where every CPU gets 1%.
    proc = rtt.run(["plan", "30000", "1000000"] + DEFAULT + FAIR_SERVER + set_fs + ["--fair-server-cpus", "measured"])
    assert proc.returncode == 2 and "CPUs whose fair server is left alone" in proc.stderr, proc.stderr
    proc = rtt.run(["plan", "30000", "1000000"] + DEFAULT + FAIR_SERVER + set_fs + ["--fair-server-cpus", "all"])
    assert proc.returncode == 0 and "cpu*/runtime" in proc.stdout, proc.stderr
    proc = rtt.run(["plan", "30000", "1000000"] + DEFAULT + set_fs + ["--fair-server-cpus", "some"])
    assert proc.returncode == 2 and "--fair-server-cpus: unknown choice 'some'" in proc.stderr, proc.stderr


def _fair_server_kernel():
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    return (major, minor) >= (6, 12)


def test_run_below_the_floor_is_bad_input_and_changes_nothing():
    if not _fair_server_kernel():
        raise rtt.Skip("no fair server before 6.12: nothing is admitted, 4% is a valid policy")
    before = rtt.read_knobs()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-floor-"), "r.json")
    proc = rtt.run(["run", "--scenario", "fifo-hog-share", "--runtime-us", "40000", "--output", out], timeout=30)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "below the deadline bandwidth the kernel has admitted" in proc.stderr, proc.stderr
    assert rtt.read_knobs() == before and not os.path.exists(out) and not rtt.rt_tasks_of()


def _run_policy(runtime, period):
    """Runs fifo-hog-share under runtime/period in a short window, watching the knobs meanwhile."""
    rtt.require_root()
    before = rtt.read_knobs()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-plan-"), "r.json")
    proc = rtt.start(["run", "--scenario", "fifo-hog-share", "--runtime-us", str(runtime), "--period-us",
                      str(period), "--duration", "1", "--probe-seconds", "0", "--noise-seconds", "0.2",
                      "--no-trace", "--quiet", "--output", out])
    seen = set()
    while proc.poll() is None:
        knobs = rtt.read_knobs()
        seen.add((knobs["sched_rt_runtime_us"], knobs["sched_rt_period_us"],
                  knobs.get("cgroup_rt_runtime_us"), knobs.get("cgroup_rt_period_us")))
        time.sleep(0.01)
    stdout, stderr = proc.communicate(timeout=60)
    # The verdict is not this test's business; an error (refused or failed write) is.
    assert proc.returncode in (0, 1, 125), (proc.returncode, stderr[-2000:])
    assert "failed" not in stderr and "refused" not in stderr, stderr[-2000:]
    doc = rtt.load(out)
    res = rtt.result(doc, "fifo-hog-share", f"adhoc-{runtime}-{period}")
    assert (res["policy"]["runtime_us"], res["policy"]["period_us"]) == (runtime, period), res["policy"]
    assert res["verdict"] in ("pass", "fail", "unjudged"), (res["verdict"], res.get("error"))
    cgroup = (runtime, period) if "cgroup_rt_runtime_us" in before else (None, None)
    assert (runtime, period) + cgroup in seen, f"{runtime}/{period} never seen in force: {sorted(seen)}"
    assert doc["knobs_restored"] is True and doc["knobs_after"] == doc["knobs_before"]
    assert rtt.read_knobs() == before, (before, rtt.read_knobs())


def test_run_reaches_45000_50000_and_restores():
    _run_policy(45000, 50000)


def test_run_reaches_9000_10000_and_restores():
    _run_policy(9000, 10000)


def test_run_reaches_1900000_2000000_and_restores():
    _run_policy(1900000, 2000000)


def test_run_records_which_cpus_a_fair_server_policy_sets():
    """Each result names the CPUs its fair server went to: the measured one with
    --fair-server-cpus measured, "all" without. Where the fair server cannot be written (this
    host's lockdown) the policy is skipped naming the file of that CPU, and nothing changes."""
    rtt.require_root()
    with open("/sys/devices/system/cpu/online") as f:
        last = int(f.read().strip().replace("-", ",").split(",")[-1])
    before = rtt.read_knobs()
    for choice, cpus in (("measured", [last]), ("all", "all")):
        out = os.path.join(tempfile.mkdtemp(prefix="rtt-fs-cpus-"), "r.json")
        proc = rtt.run(["run", "--scenario", "fifo-hog-share", "--policy", "default", "--fair-server", "10ms/1s",
                        "--fair-server-cpus", choice, "--duration", "1", "--probe-seconds", "0",
                        "--noise-seconds", "0.2", "--no-trace", "--quiet", "--output", out], timeout=60)
        assert proc.returncode in (0, 1, 125), (choice, proc.returncode, proc.stderr[-2000:])
        res = rtt.result(rtt.load(out), "fifo-hog-share", "default-fs10ms")
        assert res["policy"]["fair_server"] == {"runtime_us": 10000, "period_us": 1000000, "cpus": cpus}, res["policy"]
        if res["verdict"] == "skip":
            assert "fair server cannot be set" in res["skip_reason"], res["skip_reason"]
            if choice == "measured":
                assert f"fair_server/cpu{last}/" in res["skip_reason"], res["skip_reason"]
        assert rtt.read_knobs() == before and not rtt.rt_tasks_of(), choice
