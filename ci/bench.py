#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: shows that rtthrottle measures the kernel, not itself.

Measures each figure for real on this machine, prints it beside its target and writes
results/bench-<UTC time>.json. Every printed figure is judged: "ok" when it meets its target,
"MISS" when it does not (or could not be measured); the bench exits 1 on any miss and when the
knobs or a SCHED_FIFO task were left behind. What cannot miss (the machine's own drift, setup
time) is in a figure's detail and in the JSON, never a figure of its own.
Knobs (environment): RTT_BENCH_PAIRS (5 alternating pairs; the simultaneous runs round it up to
an even count), RTT_BENCH_PROBE_S (6 s a probe run), RTT_BENCH_CALIBRATIONS (10, the quick
suite's included), RTT_BENCH_LONG_S (40), RTT_BENCH_ONLY (e.g. "probe,calibration"; parts:
loop, share, quick, grid, calibration, probe), RTT_BUILD (the build folder, default build; `make
bench BUILD=...` passes it). Needs root and a built tree (`make bench` builds it). Everything
that runs SCHED_FIFO work (rtthrottle, cyclictest, the loop-cost helper) runs while this script
holds `flock /tmp/rtt-machine.lock`, so runs never overlap: the script re-executes itself under
flock and waits for the lock first.

Stdlib only (Debian /usr/bin/python3).
"""
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCK = "/tmp/rtt-machine.lock"
BUILD = os.path.join(ROOT, os.environ.get("RTT_BUILD") or "build")
RTT = os.path.join(BUILD, "rtthrottle")
LOOP_COST = os.path.join(BUILD, "tests", "bench", "loop_cost")
PROBE_SCENARIO = os.path.join(ROOT, "tests", "bench", "probe-hog.json")
CYCLICTEST_SCENARIO = os.path.join(ROOT, "tests", "bench", "cyclictest-hog.json")
PHASED_SCENARIO = os.path.join(ROOT, "tests", "bench", "probe-phased.json")
CALIBRATION_SCENARIO = os.path.join(ROOT, "tests", "bench", "calibration.json")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAIRS = int(os.environ.get("RTT_BENCH_PAIRS", "5"))
PROBE_S = int(os.environ.get("RTT_BENCH_PROBE_S", "6"))  # each cyclictest run; rtthrottle's window matches
CALIBRATIONS = int(os.environ.get("RTT_BENCH_CALIBRATIONS", "10"))  # the quick suite's + short runs
# Only some figures (comma-separated keys of FIGURES), e.g. RTT_BENCH_ONLY=probe,calibration.
ONLY = set(filter(None, os.environ.get("RTT_BENCH_ONLY", "").split(",")))
MEM_SHORT_S, MEM_LONG_S = 10, float(os.environ.get("RTT_BENCH_LONG_S", "40"))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def relock():
    """Re-executes this script under flock so the whole bench holds the machine lock."""
    if os.environ.get("RTT_BENCH_LOCKED") == "1":
        return
    env = dict(os.environ, RTT_BENCH_LOCKED="1")
    log(f"bench: waiting for {LOCK} (another run may hold it for minutes)")
    os.execvpe("flock", ["flock", LOCK, sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)


def last_cpu():
    return max(os.sched_getaffinity(0)) if os.cpu_count() else 1


def read_knobs():
    out = {}
    for k in ("sched_rt_runtime_us", "sched_rt_period_us"):
        with open(f"/proc/sys/kernel/{k}") as f:
            out[k] = int(f.read())
    return out


def proc_stat(pid):
    """(utime+stime ticks, policy) of one process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    # fields[0] is field 3 (state): utime is field 14, stime 15, policy 41.
    return int(fields[11]) + int(fields[12]), int(fields[38])


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def vm_hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def fifo_tasks_left():
    """User-space SCHED_FIFO/RR processes (kernel threads, which have no cmdline, excluded)."""
    left = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        st = proc_stat(int(d))
        if not st or st[1] not in (1, 2):
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if cmd:
            left.append(f"{d} {cmd}")
    return left


def run_rtt(args, poll_s=0.02, on_window=None):
    """Runs rtthrottle as a direct child; samples its own CPU time (not its children's), its
    peak RSS and whether a measuring window is on (a SCHED_FIFO child alive). on_window, if
    given, starts in a thread of its own the first time a window is seen on.
    Returns (results JSON or None, dict of measurements)."""
    fd, out = tempfile.mkstemp(prefix="rtt-bench-", suffix=".json")
    os.close(fd)
    os.unlink(out)
    cmd = [RTT, "run", "--quiet", "--output", out] + args
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples = []  # (t, harness ticks, window on)
    hwm = [0]
    done = threading.Event()
    beside = []

    def poll():
        while not done.is_set():
            st = proc_stat(proc.pid)
            if st is None:
                break
            on = any((c := proc_stat(k)) and c[1] in (1, 2) for k in children(proc.pid))
            if on and on_window and not beside:
                beside.append(threading.Thread(target=on_window, daemon=True))
                beside[0].start()
            samples.append((time.monotonic(), st[0], on))
            h = vm_hwm_kb(proc.pid)
            if h:
                hwm[0] = max(hwm[0], h)
            time.sleep(poll_s)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    done.set()
    th.join()
    for t in beside:
        t.join()
    stderr = proc.stderr.read()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    data = None
    if os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
        os.unlink(out)
    # Harness CPU inside windows: each stretch of samples with a FIFO child alive.
    win_ticks = win_s = 0.0
    i = 0
    while i < len(samples):
        if not samples[i][2]:
            i += 1
            continue
        j = i
        while j + 1 < len(samples) and samples[j + 1][2]:
            j += 1
        win_ticks += samples[j][1] - samples[i][1]
        win_s += samples[j][0] - samples[i][0]
        i = j + 1
    meas = {
        "cmd": " ".join(cmd[:1] + cmd[2:]), "exit": proc.returncode, "wall_s": wall,
        "harness_cpu_s": (samples[-1][1] / CLK_TCK) if samples else None,
        "harness_cpu_in_windows_s": win_ticks / CLK_TCK, "windows_observed_s": win_s,
        "harness_vmhwm_kb": hwm[0] or None, "maxrss_kb": ru.ru_maxrss,
        "children_cpu_s": ru.ru_utime + ru.ru_stime,
    }
    if proc.returncode not in (0, 1) or data is None:
        log(f"bench: {meas['cmd']} exited {proc.returncode}: {stderr.strip()[-400:]}")
    if data:
        meas["verdicts"], meas["not_passed"] = verdicts(data)
        for line in meas["not_passed"]:
            log(f"bench: {line}")
    return data, meas


def verdicts(data):
    """A run's verdict counts, and one line per failed check or error: a timing run whose
    results fail is a false alarm on this machine to look into, not just a wall time."""
    counts, lines = {}, []
    for r in data.get("results", []):
        v = r.get("verdict", "?")
        counts[v] = counts.get(v, 0) + 1
        name = f"{r.get('scenario')}.{r.get('policy', {}).get('name')}"
        if v == "error":
            lines.append(f"{name}: error: {r.get('error', '')[:200]}")
        for c in r.get("checks", []) if v == "fail" else []:
            if c.get("verdict") == "fail":
                lines.append(f"{name}: failed {c['task']}.{c['metric']} {c['measured']:.6g} {c['kind']} "
                             f"{c['expected']:.6g} +- {c['tolerance']:.4g}")
    return counts, lines


def task(result, name):
    for t in result.get("tasks", []):
        if t["name"] == name:
            return t["metrics"]
    return {}


def retried_windows_s(data):
    """The measuring windows a run left out of its results: the first noise floor and the case
    window it measured before measuring both again (0 when none ran twice)."""
    return ((data.get("noise_floor_first") or {}).get("window_s", 0)
            + (data.get("retried") or {}).get("window_s", 0))


def windows_and_settle(data):
    """Seconds of measuring windows in a run (scenario windows + noise floor + calibration +
    probe windows) and of the deliberate waits: the settle (the run's own figure, `settle_s`:
    what it waited for the RT period timers between windows; older runs waited one RT period
    after each window) and a scenario's lead-in (its tasks run before the window while the
    knobs change). A case that came back with checks as wide as what they catch ran again after
    a second noise floor: both windows it left out (`retried`, `noise_floor_first`) were measured
    all the same, and count."""
    windows = sum(r.get("window_s") or 0 for r in data["results"] if r.get("verdict") != "skip")
    windows += (data.get("noise_floor") or {}).get("window_s", 0)
    windows += retried_windows_s(data)
    if "calibration" in data:
        windows += 0.3
    cmd = data["run"]["cmdline"].split()
    probe_s = 2.0
    if "--probe-seconds" in cmd:
        probe_s = float(cmd[cmd.index("--probe-seconds") + 1])
    windows += 2 * probe_s
    restored = read_knobs()["sched_rt_period_us"]
    # The regime probe's two windows (default 1 s period, then -1 at the restored period) settle too.
    settle = (max(1000000, restored) + restored) / 1e6 if probe_s > 0 else 0.0
    measured = data.get("settle_s")
    if measured is not None:
        settle = measured
    for r in data["results"]:
        if r.get("verdict") in ("skip",) or r.get("error"):
            continue
        pol = r.get("policy") or {}
        if measured is None:
            settle += max(pol.get("period_us") or 0, restored) / 1e6
        if r.get("lead_in"):
            settle += -r["lead_in"][0]["from_ms"] / 1e3
    return windows, settle


class Bench:
    def __init__(self):
        self.figures = []
        self.raw = {}

    def figure(self, key, title, value, target, ok, unit="", detail=""):
        """A judged figure: "ok" when it meets its target, else "MISS" (a value that could not be
        measured, NaN, misses too)."""
        ok = bool(ok) and not (isinstance(value, float) and math.isnan(value))
        verdict = "ok" if ok else "MISS"
        self.figures.append({"key": key, "title": title, "value": value, "unit": unit, "target": target,
                             "verdict": verdict, "meets_target": ok, "detail": detail})
        v = f"{value:.4g}" if isinstance(value, float) else str(value)
        print(f"{verdict:4}  {title}: {v}{unit}  (target {target}){'  ' + detail if detail else ''}", flush=True)


def fig_loop(b):
    cpu = last_cpu()
    out = subprocess.run([LOOP_COST, str(cpu)], capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    b.raw["loop_cost"] = r
    for k in ("median_ns", "p99_ns"):
        v = float(r[k])
        b.figure(f"loop_{k}", f"1. hog loop step, {k[:-3]}", v, "< 100 ns", v < 100, " ns",
                 f"(mean {r['mean_ns']:.1f} ns, p99.9 {r['p999_ns']} ns over {r['steps']} steps on CPU {cpu})")


def share_vs_trace(runs):
    """Each window in which a spinning hog ran on the traced CPU for the whole window: the hog's
    cpu_share (its CPU clock, CLOCK_THREAD_CPUTIME_ID, over its own span) beside the share the
    sched_switch trace leaves it (1 - the time it was switched out / the same span). The two are
    independent: the trace's timestamps against the kernel's runtime accounting, read by another
    path. `judged`: the scenario judges this hog's share (a check on a share metric of it)."""
    out = []
    for label, data in runs:
        for res in data["results"]:
            hog = next((t for t in res.get("tasks", []) if t["name"] == "hog"), None)
            t = res.get("trace") or {}
            if not hog or hog.get("role") != "hog" or t.get("status") != "recorded" or not t.get("task_seen"):
                continue
            m = hog["metrics"]
            # A hog killed early (RLIMIT_RTTIME, the admin) leaves its span, not the window.
            if "cpu_share" not in m or not m.get("window_s") or m["window_s"] < 0.99 * (res.get("window_s") or 0):
                continue
            span_us = m["window_s"] * 1e6
            out.append({"run": label, "case": f"{res['scenario']}.{res['policy']['name']}", "window_s": m["window_s"],
                        "cpu_share": m["cpu_share"], "trace_share": 1 - t["gap_total_us"] / span_us,
                        "switched_out": t.get("gap_count"), "steal_us": res.get("steal_us", -1),
                        "gaps_unresolved": t.get("gaps_unresolved"), "events_lost": t.get("events_lost"),
                        "judged": any(c.get("task") == "hog" and "share" in c.get("metric", "")
                                      for c in res.get("checks", []))})
    return out


def fig_share(b, runs):
    rows = share_vs_trace(runs)
    b.raw["share_vs_trace"] = rows
    judged = [r for r in rows if r["judged"]]
    if not judged:
        b.figure("share_vs_trace_pp", "2. hog cpu_share vs the sched_switch trace", float("nan"), "< 0.1 pp", False,
                 "", "no window with a recorded trace of a hog whose share is judged (--no-trace, or built without"
                     " libtracefs)")
        return
    for r in rows:
        r["diff_pp"] = (r["cpu_share"] - r["trace_share"]) * 100
        # Wall time neither charged to the hog nor in a switched-out gap, per switch-out.
        r["residual_us_per_switch"] = -r["diff_pp"] / 100 * r["window_s"] * 1e6 / max(1, r["switched_out"] or 0)
    worst = max(judged, key=lambda r: abs(r["diff_pp"]))
    stolen = [r for r in judged if r["steal_us"] and r["steal_us"] > 0]
    odd = [r for r in judged if r["gaps_unresolved"] or r["events_lost"]]
    detail = (f"(worst {worst['case']} in {worst['run']}: {worst['cpu_share']:.5f} vs {worst['trace_share']:.5f} over "
              f"{worst['window_s']:.1f} s, steal {worst['steal_us'] / 1000:g} ms; median |diff| "
              f"{statistics.median(abs(r['diff_pp']) for r in judged):.4f} pp; windows with steal {len(stolen)}, "
              f"with unresolved gaps or lost events {len(odd)}")
    others = [r for r in rows if not r["judged"]]
    if others:
        far = max(others, key=lambda r: abs(r["diff_pp"]))
        detail += (f"; hogs whose share no check judges ({len(others)} windows): worst {far['case']} "
                   f"{far['diff_pp']:+.3f} pp over {far['switched_out']} switch-outs: "
                   f"{far['residual_us_per_switch']:.1f} us a switch-out neither charged to the hog nor switched out")
    b.figure("share_vs_trace_pp", f"2. |hog cpu_share - share by sched_switch trace|, worst of {len(judged)} windows"
             " whose hog share is judged", abs(worst["diff_pp"]), "< 0.1 pp", abs(worst["diff_pp"]) < 0.1, " pp",
             detail + ")")


def hist_percentile(hist, n, q, top):
    """One estimator for both tools: the lower bound (whole us) of the 1 us histogram bucket
    holding the nearest rank ceil(q * n); `top` when that rank lies past the histogram
    (cyclictest's overflows). cyclictest reports this way itself; rtthrottle's own percentiles
    are the bucket's upper bound (results/README.md), so both are taken from the histograms."""
    want = max(1, math.ceil(q * n - 1e-9))
    seen = 0
    for us, count in sorted(hist.items()):
        seen += count
        if seen >= want:
            return float(us)
    return float(top)


def latency_summary(hist, n, mx):
    """p50/p99 by hist_percentile and the max truncated to whole us, as cyclictest truncates;
    the histogram is kept for pooling runs."""
    mx = math.floor(mx)
    return {"p50": hist_percentile(hist, n, 0.50, mx), "p99": hist_percentile(hist, n, 0.99, mx),
            "max": float(mx), "samples": n, "hist": hist}


def pooled_summary(summaries):
    """latency_summary of several runs' samples together."""
    hist = {}
    for one in summaries:
        for us, count in one["hist"].items():
            hist[us] = hist.get(us, 0) + count
    return latency_summary(hist, sum(one["samples"] for one in summaries), max(one["max"] for one in summaries))


def brief(pair):
    """A pair without its histograms, for the log."""
    return {tool: ({k: v for k, v in one.items() if k != "hist"} if isinstance(one, dict) else one)
            for tool, one in pair.items()}


def rtt_latency(data, name="probe"):
    """latency_summary of task `name` (the probe, or the cyclictest role: the same metrics)."""
    lat = task(data["results"][0], name).get("latency_us", {}) if data else {}
    if not lat.get("samples"):
        return None
    hist = {int(k): int(v) for k, v in lat["hist"].items()}
    return dict(latency_summary(hist, lat["samples"], lat["max"]), own_p50=lat["p50"], own_p99=lat["p99"])


def probe_runs_alternating(cpu):
    """A B B A A B ...: rtthrottle's probe above a FIFO hog, then cyclictest above the same hog
    (rtthrottle's cyclictest role), PAIRS times, the order swapped every pair so a drift of the
    machine falls on both tools alike. Above a hog the wake-ups preempt a busy CPU (no idle
    exit, whose cost on a VM changes from run to run) and the max is the throttle slot, which
    the kernel sets, not the machine's worst hiccup."""
    common = ["--policy", "default", "--probe-seconds", "0", "--noise-seconds", "0.5",
              "--duration", str(PROBE_S), "--cpu", str(cpu)]

    def ours():
        data, _ = run_rtt(["--scenario-file", PROBE_SCENARIO, "--scenario", "bench-probe-hog"] + common)
        return rtt_latency(data, "probe")

    def theirs():
        data, _ = run_rtt(["--scenario-file", CYCLICTEST_SCENARIO, "--scenario", "bench-cyclictest-hog"] + common)
        return rtt_latency(data, "cyclictest")

    pairs = []
    for i in range(PAIRS):
        if i % 2 == 0:
            pair = {"rtthrottle": ours(), "cyclictest": theirs(), "order": "AB"}
        else:
            pair = {"cyclictest": theirs(), "rtthrottle": ours(), "order": "BA"}
        pairs.append(pair)
        log(f"bench: alternating pair {i + 1}/{PAIRS} ({pair['order']}): {brief(pair)}")
    return pairs


def cyclictest_wakeups(lines, first_ns, interval_ns):
    """(intended wake-up ns, latency us) of each sample of `cyclictest -v` (lines "thread:
    cycle: latency"): from the first wake-up on, one interval later each, skipping the periods
    a late wake-up overran as cyclictest does (next += interval while now > next)."""
    out, wake = [], first_ns
    for line in lines:
        parts = line.split(":")
        if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
            continue
        lat = int(parts[2])
        out.append((wake, lat))
        now = wake + lat * 1000
        wake += interval_ns
        while now > wake:
            wake += interval_ns
    return out


def phased_scenario(folder, phase_us):
    """tests/bench/probe-phased.json with the probe's phase set to `phase_us`."""
    with open(PHASED_SCENARIO) as f:
        doc = json.load(f)
    doc["tasks"][0]["params"]["phase_us"] = phase_us
    path = os.path.join(folder, f"probe-phase-{phase_us}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def probe_runs_simultaneous(cpu):
    """Both probes at once on one CPU, same class, priority and interval, half an interval
    apart so they never wake together and see the same machine: cyclictest on its grid from
    the next whole second of CLOCK_MONOTONIC (--secaligned=OFFSET), rtthrottle's probe on the
    other half (phase_us). The halves swap from run to run: whatever sits on one phase of the
    millisecond (the 4 ms tick) falls on each tool as often. rtthrottle's window lies inside
    cyclictest's run; cyclictest's samples (-v) are cut to that window
    (results[].window_start_ns) before both go through one estimator."""
    interval_ns = 1000000
    folder = tempfile.mkdtemp(prefix="rtt-bench-")
    pairs = []
    for i in range(2 * math.ceil(PAIRS / 2)):  # as many runs on each half
        ct_offset_us = 0 if i % 2 == 0 else 500
        # Launch well inside a second, so cyclictest's start is the next whole second.
        while not 0.05 < time.monotonic() % 1 < 0.6:
            time.sleep(0.02)
        aligned_s = math.floor(time.monotonic()) + 1
        ct = subprocess.Popen(["cyclictest", "-q", "-v", "-m", "-p", "80", "-i", "1000", "-a", str(cpu), "-t", "1",
                               "-D", str(PROBE_S + 4), f"--secaligned={ct_offset_us}"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
        time.sleep(max(0.0, aligned_s + 0.05 - time.monotonic()))
        scenario = phased_scenario(folder, 500 - ct_offset_us)
        data, _ = run_rtt(["--scenario-file", scenario, "--scenario", "bench-probe-phased",
                           "--policy", "default", "--probe-seconds", "0", "--noise-seconds", "0.5",
                           "--duration", str(PROBE_S), "--cpu", str(cpu)])
        out, _ = ct.communicate()
        ours = rtt_latency(data)
        theirs = None
        if ours and ct.returncode == 0:
            start = data["results"][0]["window_start_ns"]
            end = start + int(PROBE_S * 1e9)
            first = aligned_s * 1000000000 + ct_offset_us * 1000 + interval_ns
            wakes = cyclictest_wakeups(out.splitlines(), first, interval_ns)
            inside = [lat for t, lat in wakes if start < t <= end]
            if wakes and wakes[-1][0] > end and inside:
                hist = {}
                for lat in inside:
                    hist[lat] = hist.get(lat, 0) + 1
                theirs = latency_summary(hist, len(inside), max(inside))
        pairs.append({"rtthrottle": ours, "cyclictest": theirs, "cyclictest_phase_us": ct_offset_us,
                      "rtthrottle_phase_us": 500 - ct_offset_us})
        log(f"bench: simultaneous run {i + 1}: {brief(pairs[-1])}")
        os.unlink(scenario)
    os.rmdir(folder)
    return pairs


def pair_ratio(p, k):
    return p["rtthrottle"][k] / p["cyclictest"][k] if p["cyclictest"][k] else float("inf")


def median_ratio(pairs, k):
    return statistics.median(pair_ratio(p, k) for p in pairs)


def pooled_ratio(pairs, k):
    """The ratio of both tools' samples pooled over all pairs: each percentile from every run's
    samples, not the median of a few noisy per-pair ratios."""
    ours = pooled_summary([p["rtthrottle"] for p in pairs])[k]
    theirs = pooled_summary([p["cyclictest"] for p in pairs])[k]
    return ours / theirs if theirs else float("inf")


def phase_balanced_ratio(pairs, k):
    """With rtthrottle on each half of the millisecond, the ratio of both tools' samples pooled
    over that half's runs (a p99 from every run's tail, not the median of a few noisy ones);
    the geometric mean of the halves: what sits on one phase (the tick) favours one tool there
    and the other in the swapped runs."""
    halves = {}
    for p in pairs:
        halves.setdefault(p["rtthrottle_phase_us"], []).append(p)
    ratios = []
    for h in halves.values():
        ours = pooled_summary([p["rtthrottle"] for p in h])[k]
        theirs = pooled_summary([p["cyclictest"] for p in h])[k]
        ratios.append(ours / theirs if theirs else float("inf"))
    return math.prod(ratios) ** (1 / len(ratios))


def probe_figures(b, pairs, label, combine, why):
    """For p50 and p99: the per-pair ratios rtthrottle / cyclictest, combined into one, judged.
    The max is not a figure: above a throttled hog both tools' worst wake-up is the throttle
    slot (~49 ms), which the kernel sets, so their ratio is ~1 whatever either tool does; it is
    shown in the detail."""
    good = [p for p in pairs if p["rtthrottle"] and p["cyclictest"]]
    if not good:
        b.figure(f"probe_{label}", f"3. probe/cyclictest, {label}", float("nan"), "1 +- 5%", False, "",
                 "no pair measured")
        return
    slot = "/".join(f"{p['rtthrottle']['max'] / 1000:.1f}:{p['cyclictest']['max'] / 1000:.1f}" for p in good)
    for k in ("p50", "p99"):
        r = [pair_ratio(p, k) for p in good]
        value = combine(good, k)
        ours = "/".join(f"{p['rtthrottle'][k]:g}" for p in good)
        theirs = "/".join(f"{p['cyclictest'][k]:g}" for p in good)
        detail = (f"(per pair {', '.join(f'{x:.2f}' for x in r)}; range {min(r):.2f}-{max(r):.2f}; "
                  f"rtthrottle {ours} us, cyclictest {theirs} us; {why}")
        if k == "p99":
            detail += f"; max (the throttle slot, not judged) rtthrottle:cyclictest ms {slot}"
        b.figure(f"probe_{label}_{k}_ratio", f"3. probe/cyclictest {k} ratio, {label} ({len(good)} runs)",
                 value, "1 +- 5%", abs(value - 1) <= 0.05, "", detail + ")")


def hold_cpu_dma_latency_zero():
    """An open /dev/cpu_dma_latency with 0 written (the PM QoS request cyclictest makes), or
    None where the file is missing."""
    try:
        fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    except OSError:
        return None
    os.write(fd, (0).to_bytes(4, sys.byteorder))
    return fd


def fig_probe(b):
    if not shutil.which("cyclictest"):
        b.figure("probe", "3. probe vs cyclictest", float("nan"), "within 5%", False, "",
                 "cyclictest missing: apt-get install rt-tests (ci/install-deps.sh)")
        return
    cpu = last_cpu()
    log(f"bench: probe vs cyclictest, {PAIRS} alternating pairs and {2 * math.ceil(PAIRS / 2)} simultaneous runs"
        f" of {PROBE_S} s")
    # cyclictest holds /dev/cpu_dma_latency at 0 while it runs: idle CPUs then poll instead of
    # halting, which on a VM takes host CPU from the measured vCPU. Held here for every probe
    # run, both tools measure the same machine. Closing the file drops the request (also when
    # this script dies).
    qos = hold_cpu_dma_latency_zero()
    try:
        alternating = probe_runs_alternating(cpu)
        simultaneous = probe_runs_simultaneous(cpu)
    finally:
        if qos is not None:
            os.close(qos)
    b.raw["probe_pairs"] = alternating
    b.raw["probe_simultaneous"] = simultaneous
    probe_figures(b, simultaneous, "simultaneous", phase_balanced_ratio,
                  "both at once above a FIFO hog, half an interval apart, halves swapped run to run: the same"
                  " machine for both; samples pooled by half, geometric mean of the halves' ratios")
    probe_figures(b, alternating, "alternating", pooled_ratio,
                  f"A B B A runs of {PROBE_S} s above a FIFO hog, samples pooled by tool: one tool's p50 and"
                  " p99 move up to 2x from run to run with the machine (see the per-pair ratios)")


def calibration_windows(data):
    """Each window of a periodic task ("app") in a run: asked and measured job CPU time, the
    loop's speed in the window and the hypervisor steal on the CPU during it."""
    out = []
    for r in data["results"]:
        m = task(r, "app")
        if r.get("verdict") == "skip" or not m.get("job_cpu_requested_us") or "job_cpu_us" not in m:
            continue
        out.append({"scenario": r["scenario"], "utilisation": (r.get("sweep") or {}).get("value"),
                    "requested_us": m["job_cpu_requested_us"], "job_cpu_us": m["job_cpu_us"],
                    "error": m["job_cpu_us"] / m["job_cpu_requested_us"] - 1,
                    "loops_per_cpu_us": m.get("loops_per_cpu_us"), "steal_us": r.get("steal_us", -1)})
    return out


def fig_calibration(b, runs):
    per_run = []
    for label, data in runs:
        cal = data.get("calibration") or {}
        w = calibration_windows(data)
        if not w or not cal.get("loops_per_us"):
            continue
        for x in w:
            x["loop_drift"] = x["loops_per_cpu_us"] / cal["loops_per_us"] - 1 if x["loops_per_cpu_us"] else None
        per_run.append({"run": label, "loops_per_us": cal["loops_per_us"], "calibration_spread": cal.get("spread"),
                        "windows": w, "mean_error": statistics.mean(x["error"] for x in w)})
    b.raw["calibration"] = per_run
    if not per_run:
        b.figure("calibration", "4. calibration error", float("nan"), "< 1%", False, "",
                 "no periodic-task results")
        return
    windows = [x for r in per_run for x in r["windows"]]
    # Every window is judged. Stolen time inside a job is charged to the job's CPU clock by the
    # kernel (the machine's doing, not the tool's): such windows are named, not left out.
    stolen = [x for x in windows if x["steal_us"] != 0]
    worst = max(abs(x["error"]) for x in windows) * 100
    means = [r["mean_error"] * 100 for r in per_run]
    detail = (f"(mean error per calibration {', '.join(f'{m:+.3f}%' for m in means)}, spread "
              f"{max(means) - min(means):.3f} pp; windows with steal {len(stolen)} of {len(windows)}")
    if stolen:
        detail += (": " + ", ".join(f"{x['error'] * 100:+.2f}% ({x['steal_us'] / 1000:g} ms)" if x["steal_us"] > 0
                                    else f"{x['error'] * 100:+.2f}% (steal unknown)" for x in stolen))
    clean = [abs(x["error"]) * 100 for x in windows if x["steal_us"] == 0]
    if clean and stolen:
        detail += f"; worst without steal {max(clean):.3f}%"
    drift = [x["loop_drift"] * 100 for x in windows if x["loop_drift"] is not None]
    spreads = [r["calibration_spread"] * 100 for r in per_run if r["calibration_spread"] is not None]
    if drift and spreads:
        # The machine, not the tool: what a job of a fixed loop count would have been off by.
        detail += (f"; loop speed in the windows vs its calibration {min(drift):+.2f}% to {max(drift):+.2f}%, "
                   f"calibration spread within a run {min(spreads):.1f}-{max(spreads):.1f}%")
    b.figure("calibration_worst_pct", f"4. job CPU vs requested, worst |error| ({len(per_run)} calibrations, "
             f"all {len(windows)} windows)", worst, "< 1%", worst < 1, " %", detail + ")")


def fig_efficiency(b, quick, quick_meas, one, one_meas):
    """The quick suite's wall time over its measuring windows, the deliberate settle (until the
    RT period timers fire after each window) counted as the wall time it is; without it and the
    setup and teardown of a one-scenario run in the detail."""
    w, s = windows_and_settle(quick)
    ratio_all = quick_meas["wall_s"] / w
    ratio_ns = (quick_meas["wall_s"] - s) / w
    w1, s1 = windows_and_settle(one)
    overhead_ms = (one_meas["wall_s"] - w1 - s1) * 1000
    b.raw["efficiency"] = {"quick_wall_s": quick_meas["wall_s"], "quick_windows_s": w, "quick_settle_s": s,
                           "quick_exit": quick_meas["exit"], "quick_ratio_excl_settle": ratio_ns,
                           "one_wall_s": one_meas["wall_s"], "one_windows_s": w1, "one_settle_s": s1,
                           "one_setup_teardown_ms": overhead_ms}
    b.figure("quick_ratio", "5. quick suite wall / measuring windows (settle included)", ratio_all, "<= 1.15",
             ratio_all <= 1.15, "",
             f"(wall {quick_meas['wall_s']:.1f} s, windows {w:.1f} s ({retried_note(quick)}), settle {s:.1f} s"
             " (the run's settle_s);"
             f" without the settle {ratio_ns:.2f}; setup + teardown of a one-scenario run"
             f" {overhead_ms:.0f} ms beside its windows {w1:.1f} s ({retried_note(one)}))")


def retried_note(data):
    """What of a run's windows were measured again, for the figures' detail."""
    r = data.get("retried")
    if not r:
        return "no case ran again"
    return (f"{retried_windows_s(data):.1f} s of them the case {r.get('case')} and a noise floor measured"
            f" once more, {r.get('too_wide_checks')} checks too wide the first time")


GRID = "ratios=0.3,0.5,0.8,0.9,0.95,0.99 periods=10ms,50ms,100ms,200ms,500ms,1s,2s"


def fig_grid_efficiency(b, grid, grid_meas):
    """The 42-cell knob grid's wall time over its windows, the settle included: its long periods
    (2 s) are where a whole-period wait cost most."""
    w, s = windows_and_settle(grid)
    ratio = grid_meas["wall_s"] / w
    cells = sum(1 for r in grid["results"] if r.get("verdict") != "skip")
    b.raw["grid_efficiency"] = {"wall_s": grid_meas["wall_s"], "windows_s": w, "settle_s": s, "cells": cells,
                                "exit": grid_meas["exit"]}
    b.figure("grid_ratio", "5b. 42-cell knob grid wall / measuring windows (settle included)", ratio, "<= 1.25",
             ratio <= 1.25, "",
             f"(wall {grid_meas['wall_s']:.1f} s, windows {w:.1f} s ({retried_note(grid)}), settle {s:.1f} s, {cells} cells run)")


def fig_memory(b, short_meas, long_meas):
    b.raw["memory"] = {"short_s": MEM_SHORT_S, "long_s": MEM_LONG_S, "short": short_meas, "long": long_meas}
    for key, title in (("harness_vmhwm_kb", "harness peak RSS (VmHWM)"),
                       ("maxrss_kb", "peak RSS of harness + tasks (wait4 ru_maxrss)")):
        a, c = short_meas[key], long_meas[key]
        if not a or not c:
            b.figure(f"mem_{key}", f"6. {title}", float("nan"), "equal within 5%", False)
            continue
        d = abs(c / a - 1) * 100
        b.figure(f"mem_{key}", f"6. {title}, {MEM_LONG_S:g} s vs {MEM_SHORT_S} s run", d, "equal within 5%",
                 d <= 5, " %", f"({a} kB vs {c} kB)")


def fig_harness_cpu(b, metas):
    ticks = sum(m["harness_cpu_in_windows_s"] for m in metas)
    secs = sum(m["windows_observed_s"] for m in metas)
    if secs <= 0:
        b.figure("harness_cpu_pct", "7. harness CPU during windows", float("nan"), "< 1%", False)
        return
    pct = 100 * ticks / secs
    b.figure("harness_cpu_pct", "7. harness CPU during windows (its own utime+stime, not its tasks')", pct,
             "< 1% of one CPU", pct < 1, " %",
             f"({ticks * 1000:.0f} ms over {secs:.1f} s of windows; /proc/PID/stat, {1000 / CLK_TCK:.0f} ms ticks)")


def main():
    relock()
    if os.geteuid() != 0:
        log("bench: needs root (it runs SCHED_FIFO tasks and writes the RT knobs)")
        return 2
    for p in (RTT, LOOP_COST):
        if not os.access(p, os.X_OK):
            log(f"bench: {p} missing: run `make bench`")
            return 2
    started = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    knobs_before = read_knobs()
    log(f"bench: holding {LOCK}; knobs {knobs_before}")
    b = Bench()
    t0 = time.monotonic()

    def guarded(fn, *args):
        try:
            fn(b, *args)
        except Exception as e:  # a figure that cannot be computed fails, the others still count
            b.figure(fn.__name__, f"{fn.__name__} could not be measured", float("nan"), "-", False, "",
                     f"{type(e).__name__}: {e}")

    def wants(part):
        return not ONLY or part in ONLY

    if wants("loop"):
        guarded(fig_loop)

    cpu = str(last_cpu())
    short = long_ = quick = None
    short_meas = long_meas = quick_meas = None
    if wants("share"):
        log(f"bench: fifo-hog-share, {MEM_SHORT_S} s and {MEM_LONG_S:g} s windows")
        share_args = ["--scenario", "fifo-hog-share", "--policy", "default", "--probe-seconds", "0", "--cpu", cpu]
        short, short_meas = run_rtt(share_args + ["--duration", str(MEM_SHORT_S)])
        long_, long_meas = run_rtt(share_args + ["--duration", f"{MEM_LONG_S:g}"])

    grid = grid_meas = None
    if wants("grid"):
        log("bench: the 42-cell knob grid")
        grid, grid_meas = run_rtt(["--grid", GRID, "--probe-seconds", "0", "--cpu", cpu])

    cal_runs = []
    if wants("quick"):
        log("bench: quick suite")
        quick, quick_meas = run_rtt(["--suite", "quick"])
        cal_runs = [("quick", quick)] if quick else []
    if wants("calibration"):
        for i in range(len(cal_runs), CALIBRATIONS):
            log(f"bench: calibration run {i + 1}/{CALIBRATIONS}")
            d, _ = run_rtt(["--scenario-file", CALIBRATION_SCENARIO, "--scenario", "bench-calibration",
                            "--probe-seconds", "0", "--noise-seconds", "0.5", "--cpu", cpu])
            if d:
                cal_runs.append((f"calibration-{i + 1}", d))

    if wants("share") or wants("quick"):
        # The share runs and every traced hog of the quick suite.
        runs = [(f"{MEM_SHORT_S}s", short), (f"{MEM_LONG_S:g}s", long_), ("quick", quick)]
        guarded(fig_share, [r for r in runs if r[1]])
    if wants("probe"):
        guarded(fig_probe)
    if cal_runs:
        guarded(fig_calibration, cal_runs)
    if quick and short:
        guarded(fig_efficiency, quick, quick_meas, short, short_meas)
    if grid:
        guarded(fig_grid_efficiency, grid, grid_meas)
    if short_meas and long_meas:
        guarded(fig_memory, short_meas, long_meas)
        guarded(fig_harness_cpu, [short_meas, long_meas])

    knobs_after = read_knobs()
    left = fifo_tasks_left()
    clean = knobs_after == knobs_before and not left
    print(f"{'ok' if clean else 'FAIL':4}  knobs after {knobs_after} (before {knobs_before}); "
          f"SCHED_FIFO tasks left: {left or 'none'}", flush=True)
    out = os.path.join(ROOT, "results", f"bench-{started}.json")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    doc = {"schema": "rtthrottle-bench/1", "start": started, "host": os.uname().nodename,
           "git_commit": commit.stdout.strip() if commit.returncode == 0 else "unknown",
           "kernel": os.uname().release, "cpu": int(cpu), "elapsed_s": time.monotonic() - t0,
           "figures": b.figures, "raw": b.raw,
           "runs": {"short": short_meas, "long": long_meas, "quick": quick_meas, "grid": grid_meas},
           "knobs_before": knobs_before, "knobs_after": knobs_after, "fifo_tasks_left": left}
    tmp = out + f".tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2, default=str)
    os.rename(tmp, out)
    misses = [f["key"] for f in b.figures if f["verdict"] != "ok"]
    print(f"bench: wrote {out}; {len(b.figures)} figures, {len(b.figures) - len(misses)} on target, "
          f"{len(misses)} missed{': ' + ', '.join(misses) if misses else ''}", flush=True)
    return 1 if misses or not clean else 0


if __name__ == "__main__":
    sys.exit(main())
