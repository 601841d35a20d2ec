# SPDX-License-Identifier: GPL-2.0-only
"""The scenario catalogue on this kernel: the quick suite once, the full-only scenarios and the
debate suite, each judged by its own checks, plus the physics asserted here directly."""
import os
import tempfile

import rtt

_runs = {}


def _run(key, args, timeout=600):
    """Runs rtthrottle once per key; the tests below read its results."""
    if key not in _runs:
        rtt.require_root()
        out = os.path.join(tempfile.mkdtemp(prefix="rtt-test-"), key + ".json")
        proc = rtt.run(["run", "--quiet", "--output", out] + args, timeout=timeout)
        _runs[key] = (proc, rtt.load(out))
    return _runs[key]


def _quick():
    return _run("quick", ["--suite", "quick"])[1]


def _honest(r):
    """Passed, or unjudged only by tolerances the noise made as wide as what they catch."""
    if r["verdict"] == "unjudged" and r.get("checks"):
        rtt.judged_or_hollow(r)
        return True
    return r["verdict"] == "pass"


def _all_honest(proc, doc):
    """Nothing failed and nothing went unmeasured: every result passed or is hollow-unjudged
    (exit 125 says so), never a false alarm on this healthy kernel."""
    bad = [(r["scenario"], r["policy"]["name"], r["verdict"], [c for c in r.get("checks", []) if c["verdict"] == "fail"],
            r.get("skip_reason") or r.get("error")) for r in doc["results"] if not _honest(r)]
    assert not bad, bad
    unjudged = [f"{r['scenario']}.{r['policy']['name']}" for r in doc["results"] if r["verdict"] == "unjudged"]
    assert proc.returncode == (125 if unjudged else 0), (proc.returncode, unjudged)
    if unjudged:
        print(f"# unjudged (tolerances as wide as what they catch under this noise): {', '.join(unjudged)}")


def _passed(doc, scenario):
    failed = [(r["scenario"], r["policy"]["name"], [c for c in r.get("checks", []) if c["verdict"] == "fail"],
               r.get("error")) for r in doc["results"] if r["scenario"] == scenario and not _honest(r)]
    assert not failed, failed
    assert any(r["scenario"] == scenario for r in doc["results"]), f"no results for {scenario}"


def _metric(doc, scenario, policy, task, path, sweep=None):
    for r in doc["results"]:
        if r["scenario"] == scenario and r["policy"]["name"] == policy and \
                (sweep is None or r["sweep"]["value"] == sweep):
            for t in r["tasks"]:
                if t["name"] == task:
                    value = t["metrics"]
                    for part in path.split("."):
                        value = value[part]
                    return value
    raise AssertionError(f"no {scenario}.{policy} {task}.{path}")


def test_quick_suite_passes_and_stays_under_two_minutes():
    proc, doc = _run("quick", ["--suite", "quick"])
    _all_honest(proc, doc)
    assert doc["run"]["complete"] and doc["knobs_after"] == doc["knobs_before"]
    from datetime import datetime
    start, end = (datetime.strptime(doc["run"][k], "%Y-%m-%dT%H:%M:%SZ") for k in ("start", "end"))
    assert (end - start).total_seconds() < 120, f"quick suite took {end - start}"


def test_rt_probe_collateral_waits_out_the_slot():
    doc = _quick()
    _passed(doc, "rt-probe-collateral")
    worst = _metric(doc, "rt-probe-collateral", "default", "probe", "latency_us.max")
    hog_gap = _metric(doc, "rt-probe-collateral", "default", "hog", "gap_max_us")
    # Classic throttling stops the whole RT run queue: the probe above the hog waits out the
    # hog's throttle slot (up to 50 ms; shorter when the window holds only part of one), within
    # two ticks, the noise floor's longest gap and one probe interval.
    slack = 2 * 4000 + doc["noise_floor"]["gap_max_us"] + 1000
    assert 10000 < hog_gap < 50000 + slack, hog_gap
    assert hog_gap - slack <= worst <= hog_gap + slack, (worst, hog_gap)


def test_cfs_probe_waits_about_the_runtime():
    doc = _quick()
    _passed(doc, "cfs-probe")
    worst = _metric(doc, "cfs-probe", "default", "probe", "latency_us.max")
    assert 900000 < worst < 1910000, worst


def test_duty_cycle_edge_sits_at_the_rt_share():
    doc = _quick()
    _passed(doc, "duty-cycle")
    # Judged on the utilisation the jobs really had (the calibration drifts a few % on a VM):
    # the limit never cuts into a job well under the RT share, and always above it.
    period = 10000
    for r in doc["results"]:
        if r["scenario"] != "duty-cycle":
            continue
        app = [t["metrics"] for t in r["tasks"] if t["name"] == "app"][0]
        used = app["job_cpu_us"] / period
        if used * (1 + doc["noise_floor"]["loss_share"]) < 0.80:
            assert app["throttled_misses"] == 0, (r["sweep"], used, app)
        if used > 0.96:
            assert app["throttled_misses"] > 0, (r["sweep"], used, app)
    edge = [e for e in doc["edges"] if e["scenario"] == "duty-cycle" and e["policy"] == "default"][0]
    assert edge["last_clean_utilisation"] is not None and edge["last_clean_utilisation"] >= 0.8, edge
    # The calibration times the noise floor's own loop: a scale error (a unit, a loop counted
    # twice) is a factor of 2 or more. The loop's speed itself moves by up to 19% between moments
    # on this VM (make bench), and the calibration shares its caches with the CFS task beside
    # it (13.6% apart within one calibration, 19% from the noise floor, seen): 1.5x apart at most.
    ratio = doc["calibration"]["loops_per_us"] * doc["noise_floor"]["loop_ns"] / 1000
    assert 1 / 1.5 < ratio < 1.5, (ratio, doc["calibration"], doc["noise_floor"]["loop_ns"])


def test_admin_regains_control_under_the_default():
    doc = _quick()
    _passed(doc, "admin-recovery")
    assert _metric(doc, "admin-recovery", "default", "admin", "recovered") == 1
    assert _metric(doc, "admin-recovery", "default", "admin", "recovery_ms") < 1910


def test_burst_throttled_only_in_bursts():
    doc = _quick()
    _passed(doc, "burst")
    bursts = _metric(doc, "burst", "default", "hog", "bursts")
    assert _metric(doc, "burst", "default", "hog", "throttle_events_in_bursts") >= bursts >= 2
    assert _metric(doc, "burst", "default", "hog", "throttle_events_outside_bursts") == 0
    assert 0 <= _metric(doc, "burst", "default", "hog", "gap_max_outside_bursts_us") < 25000


def test_kernel_work_waits_for_the_hogged_cpu():
    doc = _quick()
    _passed(doc, "kernel-work")
    worst = _metric(doc, "kernel-work", "default", "kwork", "latency_us.max")
    assert 475000 < worst < 1910000, worst


def test_cgroup_groups_get_their_budgets():
    doc = _quick()
    if all(r["verdict"] == "skip" for r in doc["results"] if r["scenario"] == "cgroup-rt-groups"):
        raise rtt.Skip("no cgroup v1 RT group scheduling here")
    _passed(doc, "cgroup-rt-groups")
    for task, budget in (("hogA", 300000), ("hogB", 200000)):
        got = _metric(doc, "cgroup-rt-groups", "default", task, "throttle_cycle_cpu_us")
        assert abs(got - budget) < 10000, (task, got)
    assert not [d for d in os.listdir("/sys/fs/cgroup/cpu") if d.startswith("rtthrottle-")], "groups left behind"


def test_rlimit_rttime_signals_never_early():
    doc = _quick()
    # The scenario's own checks judge both signals both ways (never before the limit but for
    # ticks the hypervisor stole: the kernel counts the ticks the task ran; late by at most the
    # tick counting, ticks an emulator loses, within half the limit): passed, or hollow.
    _passed(doc, "rlimit-rttime")
    res = rtt.result(doc, "rlimit-rttime", "default")
    # Passed, or hollow: ticks the hypervisor stole (charged as run) as wide as the tick it catches.
    judged = {(c["metric"], c["kind"]) for c in res["checks"] if rtt.passed_or_hollow(c)}
    assert ("sigxcpu_cpu_ms", "at_least") in judged and ("cpu_at_exit_ms", "at_least") in judged, res["checks"]
    hog = rtt.metrics(res, "hog")
    soft, hard = hog["sigxcpu_cpu_ms"], hog["cpu_at_exit_ms"]
    assert soft < hard and hog["killed_by_signal"] == 9, hog
    print(f"# SIGXCPU at {soft:.1f} ms of CPU (soft limit 200), SIGKILL at {hard:.1f} ms (hard limit 400)")
    # The tick count's stretch comes from the trace where the tick's handler is in kallsyms: its
    # runs while the hog ran, which the RT watchdog counts. Every tick of the hog's CPU time has
    # its handler run here (the tick's hrtimer on time), but the first and last tick's part, and
    # ticks the hypervisor stole (charged as CPU, no handler run): fewer is a lost tick.
    trace = res.get("trace") or {}
    firings = (trace.get("tick") or {}).get("task_firings")
    if firings is None:
        assert res["tick_stretch_from"] != "the trace's tick firings while the followed task ran", res
        return
    assert res["tick_stretch_from"] == "the trace's tick firings while the followed task ran", res
    tick_us = doc["kernel_model"]["predicted"]["tick_us"]
    cpu_ticks = hard * 1000 / tick_us
    lost_allowed = 2 + res["steal_us"] / tick_us
    assert firings >= cpu_ticks - lost_allowed, (firings, cpu_ticks, lost_allowed)
    print(f"# {firings} tick handler runs while the hog ran {cpu_ticks:.1f} ticks of CPU: stretch {res['tick_stretch']:.3f}")


def test_deadline_task_never_misses():
    """Deadline tasks run before RT: a job misses only when it was charged more than its
    reservation's runtime (a stall the kernel charged to it: its reservation throttles it to the
    next period) or the job before ran past its release. Each miss the task calls an overrun
    must show in its CPU time: the jobs together ran at least that many runtimes beyond their
    work (seen on this VM: 2 jobs of 15.4 ms where 5 were asked, each stalled ~10 ms)."""
    doc = _quick()
    _passed(doc, "deadline-vs-fifo")
    for policy in ("default", "unlimited"):
        m = rtt.metrics(rtt.result(doc, "deadline-vs-fifo", policy), "periodic")
        assert m["deadline_misses"] <= m["overrun_misses"] + m["inherited_misses"], (policy, m)
        slack_us = 10000 - m["job_cpu_requested_us"]     # dl_runtime_us less the work asked
        excess_us = (m["job_cpu_us"] - m["job_cpu_requested_us"]) * m["jobs"]
        assert excess_us >= m["overrun_misses"] * slack_us, (policy, excess_us, m)


def test_knob_validation_refuses_every_invalid_value_and_changes_nothing():
    doc = _quick()
    _passed(doc, "knob-validation")
    for policy in ("default", "unlimited"):
        writes = _metric(doc, "knob-validation", policy, "writer", "writes")
        files = {w["file"] for w in writes}
        assert {"sched_rt_runtime_us", "sched_rt_period_us"} <= files, files
        for w in writes:
            assert w["result"] == "EINVAL" and w["after"] == w["before"] and "put_back" not in w, w
        # A period below the runtime only exists where the runtime is not -1.
        below = [w for w in writes if w["invalid_because"] == "period below the runtime"]
        assert bool(below) == (policy == "default"), writes
    assert doc["knobs_after"] == doc["knobs_before"]


def test_live_change_holds_the_new_runtime_after_minus_one():
    doc = _quick()
    _passed(doc, "live-change")
    r = rtt.result(doc, "live-change", "half")
    lead = r["lead_in"]
    assert [s["policy"] for s in lead] == ["default", "unlimited", "half"], lead
    # Each policy took over while the hog ran, in order, and the window started two periods
    # after the last write (the timer's next firing, and a period of the new runtime).
    moments = [s["from_ms"] for s in lead]
    assert moments == sorted(moments) and moments[-1] < 0, moments
    assert abs(moments[-1] + 2000) < 50 and abs(moments[1] - moments[0] - 1200) < 50, moments
    # Over whole periods: a window that ends as the hog is throttled ends its own clock a slot
    # later (it leaves when the throttle ends), so its share of its own window is no measure.
    assert abs(_metric(doc, "live-change", "half", "hog", "cpu_share_periods") - 0.5) < 0.05


def test_remote_refill_keeps_refilling_the_bursting_hog():
    doc = _quick()
    _passed(doc, "remote-refill")
    assert _metric(doc, "remote-refill", "p100ms", "hog", "throttle_events_in_bursts") >= \
        _metric(doc, "remote-refill", "p100ms", "hog", "bursts") >= 3
    assert _metric(doc, "remote-refill", "p100ms", "hog", "gap_max_us") < 100000
    assert "demoted_after_end_ms" not in rtt.result(doc, "remote-refill", "p100ms")["tasks"][1]["metrics"]


def test_debate_table_has_rows_only_for_the_debates_policies():
    doc = _quick()
    answering = {"fifo-hog-share", "admin-recovery", "ninety-percent-app", "rt-probe-collateral"}
    ran = {r["policy"]["name"] for r in doc["results"] if r["scenario"] in answering}
    rows = [row["policy"] for row in doc["debate"]]
    # remote-refill's own p100ms is no policy of the debate: no row of dashes for it.
    assert set(rows) == ran and len(rows) == len(ran) and "p100ms" not in rows, (rows, ran)


def test_full_only_scenarios_regime_and_period_sweep():
    proc, doc = _run("full-only", ["--scenario", "regime,period-sweep", "--probe-seconds", "0"])
    _all_honest(proc, doc)
    alone = _metric(doc, "regime", "default", "hog", "cpu_share")
    assert alone < 0.975, f"a lone hog under classic throttling idles the CPU: got {alone}"
    gaps = {p: _metric(doc, "period-sweep", p, "hog", "throttle_gap_median_us") for p in ("p100ms", "default")}
    assert gaps["p100ms"] < gaps["default"] / 4, f"gaps must scale with the period: {gaps}"


def test_debate_suite_prints_the_table():
    proc, doc = _run("debate", ["--suite", "debate", "--probe-seconds", "0", "--duration", "3"], timeout=900)
    rows = {row["policy"]: row for row in doc["debate"]}
    assert set(rows) == {"default", "unlimited", "ten-second-window", "full"}, rows.keys()
    assert "debate:" in proc.stdout
    for row in rows.values():
        assert row["rt_share"] is not None and row["cfs_starvation_max_ms"] is not None, row
        assert row["fair_server"] == "as found", row     # the debate's policies leave it alone
        assert row["app90_deadline_misses"] is not None and row["collateral_latency_max_us"] is not None, row
    # On a kernel with a fair server no policy leaves CFS starving for long; without one, -1 does.
    model = doc["kernel_model"]["predicted"]
    if model["fair_server"]:
        assert rows["unlimited"]["rt_share"] < 0.97, rows["unlimited"]
    _all_honest(proc, doc)


def test_duty_cycle_jobs_get_the_cpu_time_asked():
    doc = _quick()
    # Jobs end on their CPU clock: never short of what was asked; over it by the last slice
    # (~1 us) and by stalls the kernel charges to the job: hypervisor steal (the window's
    # /proc/stat steal shared over its jobs) and the stalls this VM does not report as steal
    # (seen: 25 ms charged to one job). Such a stall is a gap of the job's loop its CPU clock
    # ran through (job_cpu_in_gaps_us: what the gaps were charged), plus 1% for the loop.
    # Slicing that ran over would be over in most jobs, with no gap to hold it: the mean
    # still catches it.
    for r in doc["results"]:
        if r["scenario"] != "duty-cycle" or r["verdict"] == "skip":
            continue
        app = [t["metrics"] for t in r["tasks"] if t["name"] == "app"][0]
        asked = app["job_cpu_requested_us"]
        assert asked == r["sweep"]["value"] * 10000, (r["sweep"], app)
        steal = max(r["steal_us"], 0) / app["jobs"]
        assert asked <= app["job_cpu_us"] <= asked * 1.01 + steal + app["job_cpu_in_gaps_us"], \
            (r["sweep"], r["steal_us"], app)
        assert app["job_cpu_in_gaps_us"] >= 0 and app["job_cpu_over_unexplained_max_us"] >= 0, app


def test_probe_phase_puts_wakeups_on_the_grid():
    rtt.require_root()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-test-"), "phase.json")
    scenario = os.path.join(rtt.ROOT, "tests", "bench", "probe-phased.json")
    rtt.run(["run", "--quiet", "--output", out, "--scenario-file", scenario, "--scenario", "bench-probe-phased",
             "--probe-seconds", "0", "--noise-seconds", "0.2", "--duration", "1"], timeout=120)
    r = rtt.load(out)["results"][0]
    lat = [t["metrics"]["latency_us"] for t in r["tasks"] if t["name"] == "probe"][0]
    assert lat["samples"] > 900, lat["samples"]
    # Each recorded wake-up was meant for 500 us past a whole millisecond of CLOCK_MONOTONIC
    # (at_ms is from the window start; 1 us slack for the double).
    for w in lat["worst"]:
        intended = r["window_start_ns"] + w["at_ms"] * 1e6
        assert abs(intended % 1e6 - 500000) < 1000, (r["window_start_ns"], w)


def test_others_us_counts_only_what_other_tasks_took_inside_the_window():
    """A CFS spinner of the test's own on the measured CPU: beside the throttled hog it gets the
    period's rest, 5% of the window, and others_us says so; outside the window (set-up, the
    settle after it) it has the whole CPU, which others_us must not count."""
    import time
    rtt.require_root()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-others-"), "r.json")
    spinner = rtt.cfs_spinner()
    try:
        time.sleep(0.2)
        proc = rtt.run(["run", "--quiet", "--scenario", "regime", "--policy", "default", "--probe-seconds", "0",
                        "--noise-seconds", "0.5", "--output", out])
    finally:
        spinner.kill()
        spinner.wait()
    doc = rtt.load(out)
    res = rtt.result(doc, "regime", "default")
    trace = res["trace"]
    assert trace["status"] == "recorded" and trace["task"] == "hog", trace
    window_ms = res["window_s"] * 1000
    tick_us = doc["kernel_model"]["predicted"]["tick_us"]
    # What ran beside the hog inside the window, by the sched_switch trace: its gaps (RT's
    # throttle or, since 6.12, the fair server's slot, whose phase an aligned window end does
    # not follow) clipped to the window, less the idle time in them.
    inside_us = 0.0
    for g in trace["gaps"]:
        busy_us = g["len_us"] - g["by_kind_us"].get("idle", 0)
        clipped_ms = min(g["end_ms"], window_ms) - max(g["start_ms"], 0)
        inside_us += busy_us * max(clipped_ms, 0) * 1000 / g["len_us"]
    assert inside_us > 0.02 * res["window_s"] * 1e6, (inside_us, trace["gaps"])
    # Two ticks at each edge (a throttle found at a tick, the harness's read of the edge); the
    # trace counts wall time, so time the hypervisor stole in the gaps too.
    slack_us = 4 * tick_us + max(res["steal_us"], 0)
    assert abs(res["others_us"] - inside_us) <= slack_us, \
        f"others_us {res['others_us']:.0f} us, the trace's other tasks in the window {inside_us:.0f} +- " \
        f"{slack_us:.0f} us (exit {proc.returncode})"


def test_others_us_does_not_count_a_late_job_past_the_window_end():
    """A 99% app throttled behind its schedule runs its last jobs past the window end, and the
    victim spins to its own end. Only what they used between the edges is theirs: a CFS spinner
    of the test's own beside them shares the period's rest with the victim and others_us still
    sees its part (the tasks' whole time would hide it: others_us was 0 in such windows)."""
    import json
    import time
    rtt.require_root()
    tmp = tempfile.mkdtemp(prefix="rtt-others-late-")
    with open(os.path.join(rtt.ROOT, "workloads", "scenarios", "duty-cycle.json")) as f:
        scenario = json.load(f)
    scenario["name"] = "duty-cycle-late"
    scenario["suites"] = []
    scenario["sweep"]["values"] = [0.99]
    path = os.path.join(tmp, "duty-cycle-late.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(tmp, "r.json")
    spinner = rtt.cfs_spinner()
    try:
        time.sleep(0.2)
        proc = rtt.run(["run", "--quiet", "--scenario-file", path, "--scenario", "duty-cycle-late", "--policy",
                        "default", "--probe-seconds", "0", "--noise-seconds", "0.5", "--output", out])
    finally:
        spinner.kill()
        spinner.wait()
    doc = rtt.load(out)
    res = rtt.result(doc, "duty-cycle-late", "default")
    app = [t["metrics"] for t in res["tasks"] if t["name"] == "app"][0]
    tick_us = doc["kernel_model"]["predicted"]["tick_us"]
    # The case this is about: the app still ran after the window's end.
    assert app["window_s"] > res["window_s"] + 2 * tick_us / 1e6, (app["window_s"], res["window_s"])
    rest_us = res["window_s"] * 1e6 * (1 - res["policy"]["runtime_us"] / res["policy"]["period_us"])
    # Two nice-0 spinners share the throttled slots about evenly: the test's gets half the rest,
    # give or take scheduler slices; a quarter is far below it and far above the 0 of the fault.
    assert rest_us / 4 <= res["others_us"] <= rest_us + 4 * tick_us, \
        f"others_us {res['others_us']:.0f} us, rest {rest_us:.0f} us (exit {proc.returncode})"


def _first_throttles_ms(settle, policy):
    """A lone hog under policy, three windows back to back: when each window's first throttle
    began (ms from its start), the policy's runtime (ms), and the run's document."""
    rtt.require_root()
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-settle-"), "r.json")
    proc = rtt.run(["run", "--quiet", "--output", out, "--scenario", "regime", "--policy", policy, "--repeat", "3",
                    "--duration", "2", "--probe-seconds", "0", "--noise-seconds", "1", "--settle", settle], timeout=120)
    # When each throttle began is what this judges; the windows' verdicts are the suites' tests'.
    # A window with --settle none may start spent, and a period timer the machine delivered
    # late moves a throttle by as much: either may fail a check here (exit 1).
    assert proc.returncode in (0, 1, 125), proc.stderr[-2000:]
    doc = rtt.load(out)
    firsts, crowded = [], 0
    for r in doc["results"]:
        if r["scenario"] != "regime":
            continue
        pol = r["policy"]
        slot_us = pol["period_us"] - pol["runtime_us"]
        gaps = [g for g in rtt.metrics(r, "hog")["longest_gaps"] if g["len_us"] >= slot_us / 2]
        # Other tasks the trace saw on the measured CPU for half a slot or more: the fair server
        # serves them in pieces and RT, never over its runtime then, need not be throttled at all.
        others_us = ((r.get("trace") or {}).get("others") or {}).get("total_us", 0)
        if not gaps and others_us >= slot_us / 2:
            crowded += 1
            continue
        assert gaps, r["tasks"]
        firsts.append(min(g["at_ms"] for g in gaps))
    assert len(firsts) + crowded == 3, firsts
    if not firsts:
        raise rtt.Skip(f"{policy}: other tasks ran on the measured CPU in every window: no lone hog to time")
    return firsts, pol["runtime_us"] / 1000, doc


def _queues_at_start(doc):
    """rt_queue_at_start of each regime window: the kernel's account of the measured CPU's RT
    queue as it began (None where the debug file cannot be read)."""
    qs = [r.get("rt_queue_at_start") for r in doc["results"] if r["scenario"] == "regime"]
    return [None if q is None or "unknown" in q else q for q in qs]


def test_no_window_inherits_spent_rt_budget():
    """RT time a window ran up is forgiven only when the period timer fires. A window started
    on it would find part of the runtime spent: its hog throttled sooner than a whole runtime
    after the start (the kernel finds an overrun late, never early: two ticks cover the
    accounting at the edges). The timer rule waits until the timer fired once after the last
    window ended, at most a period each (the run's end included). Without settling, the windows
    under 'half' inherit the spent time: the check tells."""
    firsts, runtime_ms, doc = _first_throttles_ms("timer", "default")
    tick_ms = doc["kernel_model"]["predicted"]["tick_us"] / 1000
    assert all(f >= runtime_ms - 2 * tick_ms for f in firsts), f"default: first throttle at {firsts} ms"
    # At most a period (and the 4 ms margin past its firing) after each of the 3 windows.
    assert doc["settle"] == "timer" and 0 <= doc["settle_s"] <= 3 * 1.004, (doc["settle"], doc["settle_s"])
    firsts, runtime_ms, doc = _first_throttles_ms("timer", "half")
    assert all(f >= runtime_ms - 2 * tick_ms for f in firsts), f"half: first throttle at {firsts} ms"
    # The kernel's own account agrees, where it can be read: no window began throttled or with
    # more run up than a tick and the millisecond tasks take to leave.
    for q in _queues_at_start(doc):
        assert q is None or (not q["throttled"] and q["rt_time_us"] <= tick_ms * 1000 + 1000), q
    # The wait is only as long as the kernel needs: a window cut at a firing of the timer
    # (aligned_end) left nothing to forgive; after one that was not, the timer must fire first.
    windows = [r for r in doc["results"] if r["scenario"] == "regime"]
    if not all(r.get("aligned_end") for r in windows):
        assert doc["settle_s"] > 0.1, (doc["settle_s"], [bool(r.get("aligned_end")) for r in windows])
    # The fault it guards against: without the wait a window after a throttled one starts spent.
    unsettled, runtime_ms, doc = _first_throttles_ms("none", "half")
    assert doc["settle_s"] == 0
    assert any(f < runtime_ms - 2 * tick_ms for f in unsettled[1:]), \
        f"without settling the later windows still ran a whole runtime first ({unsettled} ms): the test cannot tell"
    # ... and the kernel's account shows it (the reading can fail: it sees the spent time).
    queues = _queues_at_start(doc)
    if all(q is not None for q in queues):
        assert any(q["throttled"] or q["rt_time_us"] > tick_ms * 1000 + 1000 for q in queues[1:]), queues
