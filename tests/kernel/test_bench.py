# SPDX-License-Identifier: GPL-2.0-only
"""The estimators of `make bench` (ci/bench.py), on made-up samples: both tools' percentiles
come from their histograms through one function, cyclictest's samples are placed on its wake-up
grid as it places them, calibration windows are read from results, the hog's share is set
beside the sched_switch trace, and every figure printed can miss (NaN, steal, the probe's max
left out). No root needed."""
import importlib.util
import os

import rtt

_spec = importlib.util.spec_from_file_location("bench", os.path.join(rtt.ROOT, "ci", "bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_one_estimator_for_both_histograms():
    # 100 samples: 20.x us x 60, 25.x us x 39, one of 431.7 us.
    samples_us = [20.3] * 60 + [25.9] * 39 + [431.7]
    hist = {}
    for s in samples_us:
        hist[int(s)] = hist.get(int(s), 0) + 1  # both tools key a sample by its whole us
    got = bench.latency_summary(hist, len(samples_us), max(samples_us))
    assert got["p50"] == 20.0 and got["p99"] == 25.0 and got["max"] == 431.0, got
    # The nearest rank: p99 of 100 is the 99th sample, p50 the 50th.
    assert bench.hist_percentile({1: 50, 2: 50}, 100, 0.50, 2) == 1.0
    assert bench.hist_percentile({1: 49, 2: 51}, 100, 0.50, 2) == 2.0
    # A rank past the histogram (cyclictest's overflows): the maximum.
    assert bench.hist_percentile({10: 90}, 100, 0.99, 2500) == 2500.0


def test_cyclictest_samples_on_its_grid():
    ms = 1000000
    lines = ["Using 1 cpus.", "       0:       0:      20", "       0:       1:    2500",
             "       0:       2:      30", "T: 0 ( 1) P:80 I:1000 C:      3 Min: 20 Act: 30 Avg: 850 Max: 2500"]
    wakes = bench.cyclictest_wakeups(lines, 5 * ms, ms)
    # The second wake-up was 2.5 ms late: the periods it overran are skipped, as cyclictest does.
    assert wakes == [(5 * ms, 20), (6 * ms, 2500), (9 * ms, 30)], wakes


def test_calibration_windows_from_results():
    doc = {"results": [
        {"scenario": "duty-cycle", "sweep": {"value": 0.5}, "verdict": "pass", "steal_us": 0,
         "tasks": [{"name": "app", "metrics": {"job_cpu_requested_us": 5000, "job_cpu_us": 5001.0,
                                                "loops_per_cpu_us": 40.0}}]},
        {"scenario": "fifo-hog-share", "verdict": "pass", "tasks": [{"name": "hog", "metrics": {}}]},
        {"scenario": "duty-cycle", "sweep": {"value": 0.9}, "verdict": "skip", "tasks": []}]}
    w = bench.calibration_windows(doc)
    assert len(w) == 1 and abs(w[0]["error"] - 0.0002) < 1e-12 and w[0]["steal_us"] == 0, w


def test_phase_balanced_ratio_cancels_a_phase_effect():
    def summary(us):
        return bench.latency_summary({us: 100}, 100, us + 0.5)

    def run(phase, ours, theirs):
        return {"rtthrottle": summary(ours), "cyclictest": summary(theirs), "rtthrottle_phase_us": phase}
    # 2 us better on the half-millisecond for whichever tool sits there; three runs on one half,
    # one on the other: the median of all four says 0.92, balanced by half it is 1.
    pairs = [run(500, 23, 25), run(500, 23, 25), run(500, 23, 25), run(0, 25, 23)]
    assert abs(bench.median_ratio(pairs, "p50") - 23 / 25) < 1e-12
    assert abs(bench.phase_balanced_ratio(pairs, "p50") - 1) < 1e-12


def test_pooled_runs_take_every_runs_tail():
    # Two runs of 100: the pooled p99 is the 198th of 200 samples, the pooled max the larger.
    a = bench.latency_summary({20: 99, 80: 1}, 100, 80.2)
    b = bench.latency_summary({20: 97, 60: 3}, 100, 61.0)
    pooled = bench.pooled_summary([a, b])
    assert pooled["samples"] == 200 and pooled["p50"] == 20.0 and pooled["p99"] == 60.0, pooled
    assert pooled["max"] == 80.0, pooled


def test_pooled_ratio_weighs_every_sample():
    def summary(hist):
        return bench.latency_summary(hist, sum(hist.values()), max(hist) + 0.5)

    # Per pair the p50 ratios are 20/30 and 30/20 (median of two: their mean, 1.08); pooled,
    # each tool has 100 samples at 20 us and 100 at 30 us: the same p50, ratio 1.
    pairs = [{"rtthrottle": summary({20: 100}), "cyclictest": summary({30: 100})},
             {"rtthrottle": summary({30: 100}), "cyclictest": summary({20: 100})}]
    assert abs(bench.median_ratio(pairs, "p50") - (20 / 30 + 30 / 20) / 2) < 1e-12
    assert bench.pooled_ratio(pairs, "p50") == 1.0
    assert bench.pooled_ratio(pairs, "max") == 1.0


def _figures(fn, *args):
    b = bench.Bench()
    fn(b, *args)
    return b.figures


def test_share_is_judged_against_the_trace():
    def result(cpu_share, gap_total_us, steal_us=0):
        return {"scenario": "fifo-hog-share", "policy": {"name": "default"}, "verdict": "pass", "steal_us": steal_us,
                "window_s": 10.0, "checks": [{"task": "hog", "metric": "cpu_share_periods"}],
                "tasks": [{"name": "hog", "role": "hog", "metrics": {"cpu_share": cpu_share, "window_s": 10.0}}],
                "trace": {"status": "recorded", "task_seen": True, "gap_total_us": gap_total_us, "gap_count": 10,
                          "gaps_unresolved": 0, "events_lost": 0}}
    untraced = dict(result(0.95, 0), trace={"status": "skipped", "reason": "--no-trace"})
    runs = [("10s", {"results": [result(0.9500, 500000.0), untraced]}),
            ("40s", {"results": [result(0.9490, 500000.0, steal_us=10000)]})]
    killed = dict(result(0.99, 0), tasks=[{"name": "hog", "role": "hog", "metrics": {"cpu_share": 0.99, "window_s": 0.4}}])
    runs[0][1]["results"].append(killed)
    rows = bench.share_vs_trace(runs)
    assert len(rows) == 2 and abs(rows[0]["trace_share"] - 0.95) < 1e-12, rows
    # 0.1 pp apart (10 ms of steal charged in 10 s): a miss, shown as one.
    figs = _figures(bench.fig_share, runs)
    assert len(figs) == 1 and figs[0]["verdict"] == "MISS" and abs(figs[0]["value"] - 0.1) < 1e-9, figs
    assert "steal 10 ms" in figs[0]["detail"], figs[0]["detail"]
    assert _figures(bench.fig_share, runs[:1])[0]["verdict"] == "ok"
    # Nothing traced, or no hog whose share a check judges: a miss, never a pass.
    assert _figures(bench.fig_share, [("x", {"results": [untraced]})])[0]["verdict"] == "MISS"
    unjudged = dict(result(0.95, 500000.0), checks=[])
    assert _figures(bench.fig_share, [("x", {"results": [unjudged]})])[0]["verdict"] == "MISS"


def test_every_figure_can_miss():
    b = bench.Bench()
    b.figure("k", "a value that could not be measured", float("nan"), "< 1", True)
    assert b.figures[0]["verdict"] == "MISS"
    # The probe pairs: p50 and p99 judged, no max figure (the throttle slot sets it for both tools).
    def summary(p99, mx):
        return bench.latency_summary({20: 98, p99: 1, mx: 1}, 100, mx + 0.5)
    pairs = [{"rtthrottle": summary(40, 49000), "cyclictest": summary(50, 49100)}]
    figs = _figures(lambda b: bench.probe_figures(b, pairs, "alternating", bench.pooled_ratio, "why"))
    assert [f["key"] for f in figs] == ["probe_alternating_p50_ratio", "probe_alternating_p99_ratio"], figs
    assert figs[1]["verdict"] == "MISS" and "49.0:49.1" in figs[1]["detail"], figs[1]


def test_calibration_judges_windows_with_steal_too():
    def window(job_cpu_us, steal_us):
        return {"scenario": "bench-calibration", "verdict": "unjudged", "steal_us": steal_us, "sweep": {"value": 0.9},
                "tasks": [{"name": "app", "metrics": {"job_cpu_requested_us": 9000, "job_cpu_us": job_cpu_us,
                                                       "loops_per_cpu_us": 40.0}}]}
    run = {"calibration": {"loops_per_us": 40.0, "spread": 0.02},
           "results": [window(9001.0, 0), window(9135.0, 10000)]}
    figs = _figures(bench.fig_calibration, [("c1", run)])
    assert len(figs) == 1 and figs[0]["verdict"] == "MISS", figs
    assert abs(figs[0]["value"] - 1.5) < 1e-9 and "windows with steal 1 of 2" in figs[0]["detail"], figs[0]


def test_timing_runs_list_what_failed():
    """A timing run whose results fail is a false alarm to look into: the bench lists each
    failed check and error, and counts the verdicts."""
    data = {"results": [
        {"scenario": "fifo-hog-share", "policy": {"name": "r0.5p1s"}, "verdict": "fail",
         "checks": [{"task": "hog", "metric": "gap_max_us", "verdict": "fail", "measured": 518831.5,
                     "kind": "approx", "expected": 500000, "tolerance": 8814.7},
                    {"task": "hog", "metric": "cpu_share", "verdict": "pass", "measured": 0.5,
                     "kind": "approx", "expected": 0.5, "tolerance": 0.05}]},
        {"scenario": "fifo-hog-share", "policy": {"name": "r0.3p10ms"}, "verdict": "error",
         "error": "the kernel refused policy r0.3p10ms"},
        {"scenario": "fifo-hog-share", "policy": {"name": "r0.5p2s"}, "verdict": "pass", "checks": []},
    ]}
    counts, lines = bench.verdicts(data)
    assert counts == {"fail": 1, "error": 1, "pass": 1}, counts
    assert lines == ["fifo-hog-share.r0.5p1s: failed hog.gap_max_us 518832 approx 500000 +- 8815",
                     "fifo-hog-share.r0.3p10ms: error: the kernel refused policy r0.3p10ms"], lines


def test_a_case_measured_twice_counts_both_windows():
    # A case whose checks came back too wide ran again after a second noise floor: the wall
    # time of the first window and floor was spent measuring, and the ratio counts it.
    run = {"run": {"cmdline": "rtthrottle run --probe-seconds 0"}, "settle_s": 1.5,
           "noise_floor": {"window_s": 3.0},
           "results": [{"window_s": 3.0, "verdict": "pass"}, {"window_s": 8.0, "verdict": "unjudged"},
                       {"window_s": 2.0, "verdict": "skip"}]}
    windows, settle = bench.windows_and_settle(run)
    assert windows == 14.0 and settle == 1.5 and bench.retried_note(run) == "no case ran again", windows
    run["noise_floor_first"] = {"window_s": 3.0}
    run["retried"] = {"case": "burst.default", "window_s": 8.0, "too_wide_checks": 1}
    windows, _ = bench.windows_and_settle(run)
    assert windows == 25.0, windows
    assert bench.retried_note(run).startswith("11.0 s of them the case burst.default"), bench.retried_note(run)
