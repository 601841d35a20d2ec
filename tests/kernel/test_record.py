# SPDX-License-Identifier: GPL-2.0-only
"""Recordings: `run --record DIR` keeps each window's raw measurements, `judge DIR` judges them
again offline with the live run's verdicts (every figure equal), and `judge --inject` puts a
defect of known size into them that the check existing for it catches."""
import gzip
import os
import subprocess
import tempfile

import rtt

RUN = ["run", "--quiet", "--probe-seconds", "0", "--scenario", "fifo-hog-share,cyclictest-crosscheck",
       "--policy", "default,half"]

_recorded = {}


def _record():
    """One recorded run for the tests here: (folder, live document)."""
    if not _recorded:
        rtt.require_root()
        base = tempfile.mkdtemp(prefix="rtt-record-")
        folder, out = os.path.join(base, "rec"), os.path.join(base, "live.json")
        proc = rtt.run(RUN + ["--record", folder, "--output", out], timeout=300)
        assert proc.returncode in (0, 1, 125), proc.stderr
        _recorded.update(folder=folder, live=rtt.load(out), base=base)
    return _recorded["folder"], _recorded["live"]


def _judge(folder, *extra):
    out = os.path.join(tempfile.mkdtemp(prefix="rtt-judge-"), "judged.json")
    proc = subprocess.run([rtt.BINARY, "judge", "--quiet", "--output", out, folder] + list(extra),
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=rtt.ROOT)
    assert proc.returncode in (0, 1, 125), proc.stderr
    return proc, rtt.load(out)


def test_judged_again_equals_the_live_run():
    folder, live = _record()
    names = sorted(n for n in os.listdir(folder) if n.endswith(".rec.gz"))
    assert len(names) == len(live["results"]) == 4, names
    assert "run.json" in os.listdir(folder)
    proc, again = _judge(folder)
    # Every field of every result, checks and promise figures included, as the live run wrote it.
    assert again["results"] == live["results"]
    assert again["judged_again"]["from"] == folder
    assert again["kernel_model"] == live["kernel_model"] and again["system"] == live["system"]
    # KTAP: the same result lines (numbered from 1, without the live run's kernel results).
    verdicts = [line.split(" ", 2)[0] for line in proc.stdout.splitlines() if line.startswith(("ok ", "not ok "))]
    assert verdicts == ["ok" if r["verdict"] != "fail" else "not" for r in live["results"]], proc.stdout
    # cyclictest's own file was recorded and read again: its latency figures are there.
    ct = rtt.result(again, "cyclictest-crosscheck", "default")
    assert "latency_us" in rtt.metrics(ct, "cyclictest"), rtt.metrics(ct, "cyclictest")


def _check(doc, scenario, policy, task, metric):
    return rtt.check(rtt.result(doc, scenario, policy), task, metric)


def test_injected_defects_are_caught_by_their_checks():
    folder, live = _record()
    # RT throttled 5 points early (0.90 under 950000/1000000): the 2008 argument's short-changed app.
    before = _check(live, "fifo-hog-share", "default", "hog", "rt_period_top_us")
    if before["verdict"] != "pass":
        raise rtt.Skip(f"the live window did not judge rt_period_top_us ({before['verdict']}): nothing to detect against")
    proc, short = _judge(folder, "--inject", "rt-short-5pct")
    assert proc.returncode == 1, proc.stdout
    after = _check(short, "fifo-hog-share", "default", "hog", "rt_period_top_us")
    assert after["verdict"] == "fail", after
    assert abs(after["measured"] - (before["measured"] - 50000)) <= 1000, (before, after)
    assert short["judged_again"]["change"] == "rt-short-5pct"
    assert short["judged_again"]["change_caught_by"] == "hog.rt_period_top_us"
    # A throttle three ticks late in every period: the budget check, in any period it judged.
    before = _check(live, "fifo-hog-share", "half", "hog", "rt_budget_excess_us")
    _, late = _judge(folder, "--inject", "late-3-ticks")
    res = rtt.result(late, "fifo-hog-share", "half")
    assert res["changed"] == "yes", res["changed"]
    censored = res["promise"]["censored"].get("at", [])
    if all(any(p["from_ms"] <= a and b <= p["to_ms"] + 0.01 for p in censored) for a, b in res["changed_spans_ms"]["rt_runs"]):
        raise rtt.Skip(f"every period the defect went into was censored here ({censored}): nothing judged it")
    after = rtt.check(res, "hog", "rt_budget_excess_us")
    assert before["verdict"] == "pass" and after["verdict"] == "fail", (before, after)
    assert after["measured"] >= before["measured"] + 3 * 4000 - 1000, (before, after)
    # RT refilled every 1.05 periods, its timer with it: on the grid that timer lays RT runs its
    # runtime every period; the timer's drift off the policy's grid shows the wrong period.
    before = _check(live, "fifo-hog-share", "default", "hog", "rt_timer_drift_us")
    _, wrong = _judge(folder, "--inject", "period-5pct-long")
    res = rtt.result(wrong, "fifo-hog-share", "default")
    after = rtt.check(res, "hog", "rt_timer_drift_us")
    intervals = rtt.metrics(res, "hog")["rt_timer_intervals"]
    assert res["changed"] == "yes" and before["verdict"] == "pass" and after["verdict"] == "fail", (before, after)
    assert abs(after["measured"] - 50000 * intervals) <= 1000, (after, intervals)
    # Where there is no throttle to move, the window is judged unchanged and says why.
    ct = rtt.result(late, "cyclictest-crosscheck", "default")
    assert ct["changed"] != "yes" and ct["verdict"] == rtt.result(live, "cyclictest-crosscheck", "default")["verdict"]


def test_a_fair_server_serving_half_is_caught():
    """At -1 the fair server is the only limit: its slots halved, CFS's share of a server period shows it."""
    rtt.require_root()
    base = tempfile.mkdtemp(prefix="rtt-record-fs-")
    folder = os.path.join(base, "rec")
    proc = rtt.run(["run", "--quiet", "--probe-seconds", "0", "--scenario", "fifo-hog-share", "--policy", "unlimited",
                    "--record", folder, "--output", os.path.join(base, "live.json")], timeout=300)
    assert proc.returncode in (0, 1, 125), proc.stderr
    live = rtt.load(os.path.join(base, "live.json"))
    before = _check(live, "fifo-hog-share", "unlimited", "victim", "fs_period_min_us")
    if before["verdict"] == "not-applicable" or not live["kernel_model"]["predicted"].get("fair_server"):
        raise rtt.Skip(f"no fair server judged here ({before['verdict']}): nothing to halve")
    assert before["verdict"] == "pass", before
    _, halved = _judge(folder, "--inject", "fair-server-halved")
    res = rtt.result(halved, "fifo-hog-share", "unlimited")
    after = rtt.check(res, "victim", "fs_period_min_us")
    assert res["changed"] == "yes" and after["verdict"] == "fail", after
    assert after["measured"] <= before["measured"] / 2 + 2 * 4000, (before, after)


def _judge_status(*args):
    return subprocess.run([rtt.BINARY, "judge"] + list(args), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=rtt.ROOT)


def test_judge_bad_input_exits_2_naming_it():
    empty = tempfile.mkdtemp(prefix="rtt-judge-empty-")
    proc = _judge_status(empty)
    assert proc.returncode == 2 and empty in proc.stderr and "no recording" in proc.stderr, proc.stderr
    proc = _judge_status(os.path.join(empty, "missing"))
    assert proc.returncode == 2 and "missing" in proc.stderr, proc.stderr
    proc = _judge_status()
    assert proc.returncode == 2 and "DIR" in proc.stderr, proc.stderr
    proc = _judge_status("--inject", "no-such-defect", empty)
    assert proc.returncode == 2 and "no-such-defect" in proc.stderr and "rt-short-5pct" in proc.stderr, proc.stderr
    # A file that is not a recording, and one cut short: named, with what is wrong.
    bad = os.path.join(empty, "0001-x.rec.gz")
    with gzip.open(bad, "wt") as f:
        f.write("hello\n")
    proc = _judge_status(empty)
    assert proc.returncode == 2 and "0001-x.rec.gz" in proc.stderr and "not a recording" in proc.stderr, proc.stderr
    folder, _ = _record()
    with gzip.open(os.path.join(folder, sorted(n for n in os.listdir(folder) if n.endswith(".rec.gz"))[0])) as f:
        head = f.read(200000)
    with gzip.open(bad, "wb") as f:
        f.write(head)
    proc = _judge_status(empty)
    assert proc.returncode == 2 and "cut short" in proc.stderr, proc.stderr


def test_record_into_a_used_folder_is_refused_and_changes_nothing():
    folder, _ = _record()
    knobs = rtt.read_knobs()
    proc = rtt.run(RUN + ["--record", folder, "--output", os.path.join(_recorded["base"], "again.json")])
    assert proc.returncode == 2 and folder in proc.stderr and "already holds" in proc.stderr, proc.stderr
    assert rtt.read_knobs() == knobs
    assert not os.path.exists(os.path.join(_recorded["base"], "again.json"))
    a_file = os.path.join(_recorded["base"], "live.json")
    proc = rtt.run(RUN + ["--record", a_file])
    assert proc.returncode == 2 and "not a folder" in proc.stderr, proc.stderr


def test_power_counts_detection_per_defect_and_check():
    folder, live = _record()
    out = tempfile.mkdtemp(prefix="rtt-power-")
    proc = subprocess.run(["/usr/bin/python3", os.path.join(rtt.ROOT, "ci", "power.py"), "--rtthrottle", rtt.BINARY,
                           "--out", out, "--defect", "rt-short-5pct", "--defect", "missed-throttle", folder],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, cwd=rtt.ROOT)
    assert proc.returncode == 0, proc.stderr
    report = rtt.load(os.path.join(out, "power.json"))
    fails = sum(c["verdict"] == "fail" for r in live["results"] for c in r["checks"])
    assert report["clean"]["windows"] == 4 and report["clean"]["false_alarms"] == fails, report["clean"]
    short = report["defects"]["rt-short-5pct"]
    # Applied to both fifo-hog-share windows (a hog throttled there), and to cyclictest-crosscheck's
    # where its hog, below the probes, ran its runtime in a whole period of the kernel's grid.
    w = short["windows"]
    assert w["changed"] + w["not_applied"] == 4 and w["changed"] >= 2, w
    top = short["checks"]["hog.rt_period_top_us"]
    assert top["caught"] + top["missed"] + top["unjudged"] + top["not_applicable"] == 2, top
    missed = report["defects"]["missed-throttle"]
    # Only the half policy throttles RT before the period's end here (the fair server serves first at the default).
    assert missed["windows"]["changed"] >= 1, missed["windows"]
    assert "rt-short-5pct" in proc.stdout and "hog.rt_period_top_us" in proc.stdout
    assert os.path.exists(os.path.join(out, "power.txt"))
