#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Plots and the HTML report of rtthrottle results (run by `rtthrottle plot` and `rtthrottle report`).

    rtthrottle_plot.py plot   --out DIR --rtthrottle BIN [--baseline FILE] [--trend TASK.METRIC]... RESULTS...
    rtthrottle_plot.py report --out DIR --rtthrottle BIN [--baseline FILE] [--compare JSON]... RESULTS...
    rtthrottle_plot.py soak   --out DIR SOAK.json        (soak.png, from `rtthrottle soak`)

The binary has already checked the files (schema version, fields). Directions, medians and the
bands beyond which a change is a regression come from `rtthrottle compare --json` (BIN), never
from this script. Needs Debian's python3-matplotlib (Agg backend, PNG). Exit status 0, or 2 with
a message naming what is wrong.
"""
import argparse
import base64
import datetime
import html
import json
import os
import subprocess
import sys
import textwrap


def fail(message):
    print(f"rtthrottle: {message}", file=sys.stderr)
    sys.exit(2)


try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.patches
    import matplotlib.pyplot as plt
except ImportError:
    fail(f"plots need matplotlib for {sys.executable}: apt-get install python3-matplotlib")

REGIME_COLOURS = {"classic-throttling": "C0", "fair-server-only": "C1", "no-limit": "C3", "rt-runtime-share": "C2",
                  "timers-starved": "C4"}
MARKERS = "os^Dv<>phX*"
DEFAULT_TRENDS = ("victim.cpu_share_periods", "victim.starvation_max_us")
# A result whose checks could not judge it still measured its window: drawn, but hollow (or dashed).
UNJUDGED_LABEL = "unjudged (measured, no verdict)"
# Checks whose expected value and tolerance are real; a "not-measured" one may hold placeholders.
CHECKS_WITH_FIGURES = ("pass", "fail", "unjudged")
LATENCY_LINEAR_US = 2000    # latency_us.hist: 1 us buckets below this, log2 buckets above


class Run:
    """One results file."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path) as f:
                self.doc = json.load(f)
        except (OSError, ValueError) as exc:
            fail(f"{path}: {exc}")
        run = self.doc.get("run") or {}
        system = self.doc.get("system") or {}
        self.start = run.get("start") or ""
        self.run_id = run.get("id") or os.path.basename(path)
        self.release = (system.get("kernel") or {}).get("release") or "unknown kernel"
        self.host = system.get("host") or "?"
        self.label = f"{self.release}\n{self.start[:16].replace('T', ' ')}"

    def results(self, measured=True):
        """Every result, or (measured) those with measurements, whatever their verdict."""
        for r in self.doc.get("results") or []:
            if not measured or has_measurements(r):
                yield r


def has_measurements(result):
    """Skipped and errored results measured nothing (whatever they hold); the others did if a task has metrics."""
    return result.get("verdict") not in ("skip", "error") and any(t.get("metrics") for t in result.get("tasks") or [])


def unjudged(result):
    return result.get("verdict") == "unjudged"


def marker_style(colour, hollow):
    """A point's marker: filled, or hollow (a white face, clear over the ideal's band) for an unjudged result's."""
    return {"mfc": "white", "mec": colour, "mew": 1.6} if hollow else {"color": colour, "mec": "black", "mew": 0.5}


def unjudged_handle(ax, marker="o"):
    """The legend entry of the hollow markers."""
    return ax.plot([], [], marker, ms=7, label=UNJUDGED_LABEL, **marker_style("black", True))


def load_runs(paths):
    runs = [Run(p) for p in paths]
    runs.sort(key=lambda r: (r.start, r.path))
    return runs


def tasks(result):
    """{name: (role, metrics, task)} of a result."""
    out = {}
    for t in result.get("tasks") or []:
        out[t.get("name") or t.get("role")] = (t.get("role"), t.get("metrics") or {}, t)
    return out


def by_role(result, role):
    for _, (r, m, _) in tasks(result).items():
        if r == role:
            return m
    return None


def check_of(result, task_roles, metrics):
    for c in result.get("checks") or []:
        if c.get("task") in task_roles and c.get("metric") in metrics and c.get("verdict") in CHECKS_WITH_FIGURES:
            return c
    return None


def share(m):
    v = m.get("cpu_share_periods")
    return v if isinstance(v, (int, float)) else m.get("cpu_share")


def policy_ratio(policy):
    runtime, period = policy.get("runtime_us", 0), policy.get("period_us", 1) or 1
    return 1.0 if runtime < 0 else runtime / period


def policy_label(policy):
    return f"{policy.get('name')} ({policy.get('runtime_us')}/{policy.get('period_us')})"


def case_name(result):
    name = f"{result.get('scenario')}.{(result.get('policy') or {}).get('name')}"
    sweep = result.get("sweep")
    if sweep:
        name += f".{sweep.get('param')}={sweep.get('value'):g}"
    return name


def hog_victim_results(run):
    for r in run.results():
        roles = {role for role, _, _ in tasks(r).values()}
        if {"hog", "victim"} <= roles:
            yield r


def caption(runs):
    releases = list(dict.fromkeys(r.release for r in runs))
    hosts = list(dict.fromkeys(r.host for r in runs))
    text = ("kernel " if len(releases) == 1 else "kernels ") + ", ".join(releases[:4])
    if len(releases) > 4:
        text += f" and {len(releases) - 4} more"
    text += " · host " + ", ".join(hosts[:3])
    if len(runs) == 1:
        text += f" · run {runs[0].run_id}"
    else:
        text += f" · {len(runs)} runs"
    return text


def finish(fig, runs, out, name):
    fig.text(0.995, 0.005, caption(runs), ha="right", va="bottom", fontsize=8, color="0.3")
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    path = os.path.join(out, name)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def run_suffix(runs, run):
    return f" [{run.release}]" if len(runs) > 1 else ""


# --- achieved share vs configured runtime/period ------------------------------------------------

def plot_shares(runs, out):
    points = []   # (panel, regime, x, y, expected, run, policy, unjudged)
    for run in runs:
        for r in hog_victim_results(run):
            x = policy_ratio(r.get("policy") or {})
            for panel, role in ((0, "hog"), (1, "victim")):
                m = by_role(r, role)
                y = share(m)
                if not isinstance(y, (int, float)):
                    continue
                c = check_of(r, {role} | {n for n, (ro, _, _) in tasks(r).items() if ro == role},
                             ("cpu_share_periods", "cpu_share"))
                points.append((panel, r.get("regime", "?"), x, y, c.get("expected") if c else None, run,
                               r.get("policy") or {}, unjudged(r)))
    if not points:
        return None, "no hog-and-victim results (fifo-hog-share) in these files: no share plot"
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
    titles = ("SCHED_FIFO hog: CPU share achieved", "SCHED_OTHER victim beside it: CPU share achieved")
    for panel, ax in enumerate(axes):
        handles = [ax.plot([0, 1], [0, 1] if panel == 0 else [1, 0], ls=":", color="0.5",
                           label="runtime/period" if panel == 0 else "1 - runtime/period")[0]]
        for regime in sorted({p[1] for p in points if p[0] == panel}):
            colour = REGIME_COLOURS.get(regime, "C4")
            ideal = sorted({(p[2], p[4]) for p in points if p[0] == panel and p[1] == regime and p[4] is not None})
            if ideal:
                handles += ax.plot([i[0] for i in ideal], [i[1] for i in ideal], "-", color=colour, alpha=0.45,
                                   lw=6, marker="_", ms=28, mew=6,
                                   label=f"{regime}: ideal (the checks' expected share)")
            for k, run in enumerate(runs):
                for hollow in (False, True):
                    sel = [p for p in points if p[0] == panel and p[1] == regime and p[5] is run and p[7] == hollow]
                    if sel:
                        ax.plot([p[2] for p in sel], [p[3] for p in sel], MARKERS[k % len(MARKERS)], ms=7,
                                **marker_style(colour, hollow))
            handles += ax.plot([], [], "o", color=colour, mec="black", mew=0.5, label=f"{regime}: measured")
        if any(p[0] == panel and p[7] for p in points):
            handles += unjudged_handle(ax)
        if len(runs) > 1:
            for k, run in enumerate(runs):
                handles += ax.plot([], [], MARKERS[k % len(MARKERS)], color="0.7", mec="black", mew=0.5,
                                   label=f"{run.release} ({run.start[:10]})")
        named = {}
        for p in points:
            if p[0] == panel:
                named.setdefault((p[6].get("name"), p[2]), p[3])
        for (name, x), y in named.items():
            right = x >= 0.99
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(0 if right else -9, 12 if right else -4),
                        ha="center" if right else "right", fontsize=8)
        ax.set_xlim(-0.02, 1.08)
        ax.set_ylim(-0.02, 1.08)
        ax.set_xlabel("configured sched_rt_runtime_us / sched_rt_period_us (runtime -1 drawn at 1.0)")
        ax.set_ylabel("CPU share (fraction of the CPU's time, 0..1)")
        ax.set_title(titles[panel], fontsize=11)
        ax.grid(alpha=0.3)
        ax.legend(handles=handles, fontsize=7, loc="upper left" if panel == 0 else "lower left")
    fig.suptitle("Achieved CPU share vs configured RT runtime/period, per throttling regime")
    return finish(fig, runs, out, "shares.png"), None


# --- gap lengths ---------------------------------------------------------------------------------

def plot_gaps(runs, out):
    hists = {}   # (panel, run index, policy label) -> {bucket: count}
    dashed = set()   # the keys an unjudged result adds to
    for k, run in enumerate(runs):
        for r in hog_victim_results(run):
            for panel, role in ((0, "hog"), (1, "victim")):
                h = by_role(r, role).get("gap_hist_us") or {}
                key = (panel, k, policy_label(r.get("policy") or {}))
                if unjudged(r):
                    dashed.add(key)
                acc = hists.setdefault(key, {})
                for bucket, count in h.items():
                    acc[int(bucket)] = acc.get(int(bucket), 0) + count
    if not any(hists.values()):
        return None, "no gap histograms (hog and victim tasks) in these files: no gap plot"
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5), sharey=True)
    titles = ("SCHED_FIFO hog: gaps (throttled, or preempted by others)",
              "SCHED_OTHER victim: gaps (starved by the hog)")
    colours = {}
    for (_, k, label) in sorted(hists, key=lambda key: (key[1], key[2])):
        colours.setdefault((k, label), f"C{len(colours) % 10}")
    for panel, ax in enumerate(axes):
        for (p, k, label), h in sorted(hists.items(), key=lambda kv: (kv[0][1], kv[0][2])):
            if p != panel or not h:
                continue
            # Every log2 bucket from the first to the last, empty ones at 0 (below the axis).
            lo, hi = min(h).bit_length() - 1, max(h).bit_length() - 1
            edges = [1 << b for b in range(lo, hi + 2)]
            counts = [h.get(1 << b, 0) or 0.1 for b in range(lo, hi + 1)]
            hollow = (p, k, label) in dashed
            ax.step(edges, counts + counts[-1:], where="post", lw=1.8, ls="--" if hollow else "-",
                    label=label + run_suffix(runs, runs[k]) + (f" - {UNJUDGED_LABEL}" if hollow else ""),
                    color=colours[(k, label)])
        ax.set_ylim(bottom=0.7)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("gap length (us; log2 buckets, each from its left edge)")
        ax.set_ylabel("number of gaps (summed over repetitions)")
        ax.set_title(titles[panel], fontsize=11)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle("Gap-length histogram per policy: how long each task went without the CPU")
    return finish(fig, runs, out, "gaps.png"), None


# --- probe latency -------------------------------------------------------------------------------

def latency_cdf(hist):
    items = sorted((float(k), v) for k, v in hist.items() if v)
    total = sum(v for _, v in items)
    xs, below = [], []
    acc = 0
    for lower, v in items:
        acc += v
        xs.append(lower + 1 if lower < LATENCY_LINEAR_US else lower * 2)   # the bucket's upper edge
        below.append(acc / total)
    return xs, below, total


def plot_latency(runs, out):
    series = {}   # scenario -> [(label, hist, task description)]
    for run in runs:
        for r in run.results():
            for name, (role, m, t) in tasks(r).items():
                lat = m.get("latency_us") or {}
                if role != "probe" or not lat.get("hist"):
                    continue
                who = f"{name}: {t.get('sched_policy', '?')} priority {t.get('priority', t.get('nice', 0))}"
                label = policy_label(r.get("policy") or {}) + run_suffix(runs, run)
                if unjudged(r):
                    label += f" - {UNJUDGED_LABEL}"
                series.setdefault(r.get("scenario"), []).append((label, lat["hist"], who, unjudged(r)))
    if not series:
        return None, "no probe results in these files: no latency plot"
    scenarios = sorted(series)[:4]
    fig, axes = plt.subplots(2, len(scenarios), figsize=(6 * len(scenarios), 8), squeeze=False)
    for col, scenario in enumerate(scenarios):
        top, bottom = axes[0][col], axes[1][col]
        for i, (label, hist, who, hollow) in enumerate(series[scenario]):
            xs, below, total = latency_cdf(hist)
            ls = "--" if hollow else "-"
            top.step(xs, below, where="post", color=f"C{i % 10}", lw=1.8, ls=ls, label=f"{label} ({total} wake-ups)")
            above = [max(1 - b, 0.5 / total) for b in below]
            bottom.step(xs, above, where="post", color=f"C{i % 10}", lw=1.8, ls=ls, label=label)
        who = series[scenario][0][2]
        top.set_title(f"{scenario} ({who}): CDF", fontsize=10)
        bottom.set_title(f"{scenario}: tail, 1 - CDF", fontsize=10)
        for ax in (top, bottom):
            ax.set_xscale("log")
            ax.set_xlabel("wake-up latency (us, log scale)")
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=8)
        top.set_ylabel("fraction of wake-ups with latency <= x")
        top.set_ylim(0, 1.02)
        bottom.set_yscale("log")
        bottom.set_ylabel("fraction of wake-ups with latency > x (log)")
    fig.suptitle("Probe wake-up latency per policy (cyclictest-style probe on the hog's CPU)")
    return finish(fig, runs, out, "latency.png"), None


# --- the policy trade-off ------------------------------------------------------------------------

def admin_policies(run):
    """The policies under which an admin task ran in this file."""
    return {(r.get("policy") or {}).get("name") for r in run.results()
            if any(role == "admin" for role, _, _ in tasks(r).values())}


def unjudged_policies(run):
    """The policies with an unjudged result in this file: their trade-off points are drawn hollow."""
    return {(r.get("policy") or {}).get("name") for r in run.results() if unjudged(r)}


def tradeoff_rows(run):
    """(policy, rt_share, worst starvation ms, admin recovery ms or None, recovered) per policy."""
    if run.doc.get("debate"):
        admins = admin_policies(run)
        return [(d.get("policy"), d.get("rt_share"), d.get("cfs_starvation_max_ms"), d.get("admin_recovery_ms"),
                 d.get("admin_recovered") if d.get("policy") in admins else None) for d in run.doc["debate"]]
    rows = {}
    for r in run.results():
        name = (r.get("policy") or {}).get("name")
        row = rows.setdefault(name, [name, None, None, None, None])
        ts = tasks(r)
        roles = {role for role, _, _ in ts.values()}
        for role, m, _ in ts.values():
            if {"hog", "victim"} <= roles and role == "hog" and isinstance(share(m), (int, float)):
                row[1] = max(row[1] or 0, share(m))
            if {"hog", "victim"} <= roles and role == "victim" and isinstance(m.get("starvation_max_us"), (int, float)):
                row[2] = max(row[2] or 0, m["starvation_max_us"] / 1000)
            if role == "admin" and "recovered" in m:
                row[4] = bool(m["recovered"]) if row[4] is None else row[4] and bool(m["recovered"])
                if isinstance(m.get("recovery_ms"), (int, float)):
                    row[3] = max(row[3] or 0, m["recovery_ms"])
    return [tuple(r) for r in rows.values()]


def plot_tradeoff(runs, out):
    data = [(k, row) for k, run in enumerate(runs) for row in tradeoff_rows(run)]
    data = [(k, row) for k, row in data if isinstance(row[1], (int, float))]
    if not data:
        return None, "no RT share results (fifo-hog-share) in these files: no trade-off plot", None
    has_admin = any(isinstance(row[3], (int, float)) or row[4] is False for _, row in data)
    hollow = [unjudged_policies(run) for run in runs]
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
    for panel, ax in enumerate(axes):
        index = 2 if panel == 0 else 3
        labels = {}   # policies whose points (nearly) coincide share one label
        top = max([abs(row[index]) for _, row in data if isinstance(row[index], (int, float))] or [1]) or 1
        for k, row in data:
            if isinstance(row[index], (int, float)):
                labels.setdefault((round(row[1] * 40), round(row[index] / top * 25)), []).append(
                    (row[1], row[index], row[0]))
        for group in labels.values():
            ax.annotate(", ".join(dict.fromkeys(g[2] for g in group)), group[0][:2], textcoords="offset points",
                        xytext=(-6, 6), ha="right", fontsize=8)
        for k, row in data:
            y = row[index]
            if panel == 1 and row[4] is False:
                ax.annotate(f"{row[0]}: never recovered", (row[1], 0.98), xycoords=("data", "axes fraction"),
                            fontsize=8, color="C3", rotation=90, va="top", ha="center")
                continue
            if not isinstance(y, (int, float)):
                continue
            ax.plot(row[1], y, MARKERS[k % len(MARKERS)], ms=8, **marker_style(f"C{k % 10}", row[0] in hollow[k]))
        ax.set_xlim(0, 1.05)
        ax.set_ylim(0, top * 1.18)
        ax.set_xlabel("RT share available to a FIFO hog (fraction of the CPU)")
        ax.grid(alpha=0.3, which="both")
        drawn = [(k, row) for k, row in data if isinstance(row[index], (int, float))]
        # One filled entry per run (when there are several), one hollow for the unjudged points.
        for k in sorted({k for k, _ in drawn}) if len(runs) > 1 else ():
            ax.plot([], [], MARKERS[k % len(MARKERS)], ms=8, **marker_style(f"C{k % 10}", False),
                    label=f"{runs[k].release} ({runs[k].start[:16].replace('T', ' ')})")
        if any(row[0] in hollow[k] for k, row in drawn):
            unjudged_handle(ax)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    axes[0].set_ylabel("worst CFS starvation (ms)")
    axes[0].set_title("RT share vs worst starvation of a CFS task on the CPU", fontsize=11)
    axes[1].set_ylabel("time until the admin's kill -9 took effect (ms)")
    axes[1].set_title("RT share vs admin recovery time (runaway hog)", fontsize=11)
    note = None
    if not has_admin:
        note = "no admin recovery results in these files (scenario admin-recovery): right panel empty"
        axes[1].text(0.5, 0.5, "no admin recovery results\nin these files", transform=axes[1].transAxes,
                     ha="center", va="center", fontsize=12, color="0.4")
    fig.suptitle("Policy trade-off: RT share available against CFS starvation and admin recovery")
    return finish(fig, runs, out, "tradeoff.png"), None, note


# --- knob grids: does each runtime x period keep its promise? -----------------------------------

# Cell states, worst first: a cell with several results shows the worst.
CELL_STATES = (("fail", "#e8737a", "promise broken (fail)"), ("error", "#b39ddb", "error: not measured"),
               ("unjudged", "#ffe08a", "unjudged: measured, no verdict"), ("pass", "#8fd19e", "promise kept (pass)"),
               ("skip", "#e6e6e6", "skipped: the kernel refuses the cell"))


def format_us(us):
    """2s, 100ms, 1500us: as the grid's cell names write a time."""
    us = int(us)
    if us and us % 1000000 == 0:
        return f"{us // 1000000}s"
    return f"{us // 1000}ms" if us and us % 1000 == 0 else f"{us}us"


def number(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def cell_state(result):
    """pass, fail, unjudged, skip or error: the promise's own verdict when the result carries one."""
    verdict = result.get("verdict")
    if verdict in ("skip", "error"):
        return verdict
    promise = result.get("promise")
    if isinstance(promise, dict) and "kept" in promise:
        return {True: "pass", False: "fail"}.get(promise["kept"], "unjudged")
    return verdict if verdict in ("pass", "fail") else "unjudged"


def cell_figures(result):
    """The measured RT share, longest CFS wait and its promised bound (us), RT time in the worst period."""
    promise = result.get("promise") if isinstance(result.get("promise"), dict) else {}
    hog, victim = by_role(result, "hog") or {}, by_role(result, "victim") or {}
    runtime = number((result.get("policy") or {}).get("runtime_us"))
    wait = number(promise.get("cfs_wait_max_us"))
    bound = number(promise.get("cfs_wait_bound_us"))
    return {
        "rt_share": number(share(hog)) if hog else None,
        "cfs_wait_us": wait if wait is not None else number(victim.get("starvation_max_us")),
        "cfs_bound_us": bound if bound is not None else (2 * runtime if runtime and runtime > 0 else None),
        "rt_period_max_us": number(promise.get("rt_period_max_us")),
        "runtime_us": number(promise.get("runtime_us")) or runtime,
        "why": result.get("skip_reason") or result.get("error") or "",
    }


def grid_layout(run):
    """{scenario: (rows label, {(row, period_us): [results]})} of the run's grid cells."""
    grids = {}
    for r in run.results(measured=False):
        place, policy = r.get("grid"), r.get("policy") or {}
        if not isinstance(place, dict) or not number(policy.get("period_us")):
            continue
        by_runtime = place.get("rows") == "runtime"
        row = policy.get("runtime_us") if by_runtime else place.get("ratio")
        label, cells = grids.setdefault(r.get("scenario"), ("runtime" if by_runtime else "ratio", {}))
        cells.setdefault((row, policy["period_us"]), []).append(r)
    return grids


def summarise_cell(results):
    """One cell from its results (repetitions): the worst state, the mean share, the longest wait."""
    order = [s for s, _, _ in CELL_STATES]
    figures = [cell_figures(r) for r in results]
    shares = [f["rt_share"] for f in figures if f["rt_share"] is not None]
    waits = [f["cfs_wait_us"] for f in figures if f["cfs_wait_us"] is not None]
    peaks = [f["rt_period_max_us"] for f in figures if f["rt_period_max_us"] is not None]
    return {
        "policy": (results[0].get("policy") or {}).get("name"),
        "state": min((cell_state(r) for r in results), key=order.index),
        "rt_share": sum(shares) / len(shares) if shares else None,
        "cfs_wait_us": max(waits) if waits else None,
        "cfs_bound_us": figures[0]["cfs_bound_us"],
        "rt_period_max_us": max(peaks) if peaks else None,
        "runtime_us": figures[0]["runtime_us"],
        "why": next((f["why"] for f in figures if f["why"]), ""),
        "count": len(results),
    }


def cell_text(cell):
    lines = [cell["state"] + (f" (x{cell['count']})" if cell["count"] > 1 else "")]
    if cell["state"] in ("skip", "error"):
        return "\n".join(lines + textwrap.wrap(cell["why"], 30)[:5])
    if cell["rt_share"] is not None:
        lines.append(f"RT share {cell['rt_share']:.3f}")
    if cell["rt_period_max_us"] is not None and cell["runtime_us"]:
        lines.append(f"RT/period {cell['rt_period_max_us'] / 1000:.1f} of {cell['runtime_us'] / 1000:.1f} ms")
    if cell["cfs_wait_us"] is not None:
        bound = f" / {cell['cfs_bound_us'] / 1000:.0f}" if cell["cfs_bound_us"] else ""
        lines.append(f"CFS wait {cell['cfs_wait_us'] / 1000:.0f}{bound} ms")
    return "\n".join(lines)


def row_label(kind, row):
    return format_us(row) if kind == "runtime" else f"{row:g}"


def plot_heatmaps(runs, out):
    """heatmap-SCENARIO.png per run and scenario with grid cells: rows ratio (or runtime), columns period."""
    made, seen = [], {}
    colours = {s: c for s, c, _ in CELL_STATES}
    for run in runs:
        for scenario, (kind, cells) in grid_layout(run).items():
            rows = sorted({k[0] for k in cells}, reverse=True)
            periods = sorted({k[1] for k in cells})
            fig, ax = plt.subplots(figsize=(2.3 * len(periods) + 2.2, 1.15 * len(rows) + 2.4))
            for (row, period), results in cells.items():
                cell = summarise_cell(results)
                x, y = periods.index(period), rows.index(row)
                ax.add_patch(matplotlib.patches.Rectangle((x, y), 1, 1, facecolor=colours[cell["state"]],
                                                          edgecolor="white", lw=2,
                                                          hatch="//" if cell["state"] == "skip" else None))
                ax.text(x + 0.5, y + 0.5, cell_text(cell), ha="center", va="center", fontsize=7, linespacing=1.3)
            ax.set_xlim(0, len(periods))
            ax.set_ylim(len(rows), 0)
            ax.set_xticks([i + 0.5 for i in range(len(periods))])
            ax.set_xticklabels([format_us(p) for p in periods])
            ax.set_yticks([i + 0.5 for i in range(len(rows))])
            ax.set_yticklabels([row_label(kind, r) for r in rows])
            ax.set_xlabel("RT period (sched_rt_period_us)")
            ax.set_ylabel("RT runtime / period" if kind == "ratio" else "RT runtime (sched_rt_runtime_us)")
            ax.tick_params(length=0)
            for side in ax.spines.values():
                side.set_visible(False)
            ax.legend(handles=[matplotlib.patches.Patch(facecolor=c, label=label, hatch="//" if s == "skip" else None)
                               for s, c, label in CELL_STATES], fontsize=7, loc="upper left",
                      bbox_to_anchor=(1.01, 1), borderaxespad=0)
            ax.set_title(f"{scenario}: the promise of each runtime x period\nRT share = the hog's measured share; "
                         "CFS wait = the victim's longest wait / the promised longest (ms)", fontsize=9)
            seen[scenario] = seen.get(scenario, 0) + 1
            name = f"heatmap-{scenario}" + (f"-{seen[scenario]}" if seen[scenario] > 1 else "") + ".png"
            PLOT_TITLES[name] = f"Knob grid of {scenario} ({run.release}, {run.run_id}): verdict per cell"
            made.append(finish(fig, [run], out, name))
    if not made:
        return made, ["no knob-grid results in these files (rtthrottle run --grid): no heatmap"]
    return made, []


def grid_tables_html(runs):
    """One table per grid: every cell by name, its verdict and figures."""
    parts = []
    for run in runs:
        for scenario, (kind, cells) in grid_layout(run).items():
            rows = []
            for (row, period), results in sorted(cells.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
                cell = summarise_cell(results)
                wait, bound = cell["cfs_wait_us"], cell["cfs_bound_us"]
                rt = "-" if cell["rt_share"] is None else f"{cell['rt_share']:.4f}"
                rows.append(f'<tr class="{esc(cell["state"])}"><td>{esc(cell["policy"])}</td>'
                            f'<td>{esc(row_label(kind, row))}</td><td>{esc(format_us(period))}</td>'
                            f'<td class="num">{rt}</td><td class="num">{fmt(None if wait is None else wait / 1000, "ms")}</td>'
                            f'<td class="num">{fmt(None if bound is None else bound / 1000, "ms")}</td>'
                            f'<td>{esc(cell["why"])}</td><td class="verdict">{esc(cell["state"])}</td></tr>')
            parts.append(f'<h3>{esc(scenario)} &middot; {esc(run.release)} &middot; {esc(run.run_id)}</h3>'
                         f'<table class="grid"><thead><tr><th>cell</th><th>{esc(kind)}</th><th>period</th>'
                         '<th>RT share</th><th>longest CFS wait ms</th><th>promised at most ms</th>'
                         f'<th>why skipped or not measured</th><th>verdict</th></tr></thead><tbody>{"".join(rows)}'
                         '</tbody></table>')
    return "".join(parts)


# --- trends against a baseline, with compare's bands ---------------------------------------------

def compare_json(binary, base, new):
    proc = subprocess.run([binary, "compare", "--json", "-", base, new], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode not in (0, 1):
        return None, (proc.stderr.strip().splitlines() or ["compare failed"])[-1]
    try:
        return json.loads(proc.stdout), None
    except ValueError as exc:
        return None, f"compare --json gave no JSON: {exc}"


def plot_trends(runs, out, binary, baseline, metrics):
    base = baseline or runs[0]
    if baseline and os.path.realpath(baseline.path) not in {os.path.realpath(r.path) for r in runs}:
        runs = sorted(runs + [baseline], key=lambda r: (r.start, r.path))
    notes, made = [], []
    if not binary:
        return made, ["no rtthrottle binary given: no trend plots"]
    ref, err = compare_json(binary, base.path, base.path)
    if not ref:
        return made, [f"baseline {base.path}: {err}: no trend plots"]
    points = []   # (run index, row)
    for k, run in enumerate(runs):
        doc, err = compare_json(binary, base.path, run.path)
        if doc is None:
            notes.append(f"{run.path} left out of the trends: {err}")
            continue
        points += [(k, row) for row in doc["rows"]]
    for metric in metrics:
        task, _, name = metric.partition(".")
        bands = {row["case"]: row for row in ref["rows"] if row["task"] == task and row["metric"] == name}
        if not bands:
            notes.append(f"trend {metric}: not in the baseline {base.path}")
            continue
        cases = list(bands)[:9]
        cols = min(3, len(cases))
        nrows = (len(cases) + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.8 * nrows + 0.8), squeeze=False)
        for i, case in enumerate(cases):
            ax = axes[i // cols][i % cols]
            band = bands[case]
            mine = [(k, row) for k, row in points if row["case"] == case and row["task"] == task
                    and row["metric"] == name]
            unit, scale = band["unit"], 1.0
            if unit == "us" and abs(band["base_median"]) >= 10000:
                unit, scale = "ms", 1000.0

            def y(v):
                return None if v is None else v / scale
            xs = [k for k, _ in mine]
            ys = [y(row["new_median"]) for _, row in mine]
            ax.plot(xs, ys, "-", color="0.6", lw=1)
            for verdict, colour in (("unchanged", "C0"), ("improved", "C2"), ("regressed", "C3")):
                label = verdict   # on the first of its points drawn
                for hollow in (False, True):
                    sel = [(k, y(row["new_median"])) for k, row in mine
                           if row["verdict"] == verdict and bool(row.get("new_unjudged")) == hollow]
                    if sel:
                        ax.plot([s[0] for s in sel], [s[1] for s in sel], "o", ms=7, label=label,
                                **(marker_style(colour, True) if hollow else {"color": colour}))
                        label = None
            if any(row.get("new_unjudged") for _, row in mine):
                unjudged_handle(ax)
            below, above = y(band.get("regress_below")), y(band.get("regress_above"))
            ax.axhline(y(band["base_median"]), color="0.2", lw=1, ls="--" if band.get("base_unjudged") else "-",
                       label="baseline median" + (f" ({UNJUDGED_LABEL})" if band.get("base_unjudged") else ""))
            values = ys + [y(band["base_median"])] + [v for v in (below, above) if v is not None]
            lo, hi = min(values), max(values)
            pad = (hi - lo) * 0.15 or abs(hi) * 0.05 or 1
            lo, hi = lo - pad, hi + pad
            if below is not None:
                ax.axhspan(lo, below, color="C3", alpha=0.12, label="regression zone (compare)")
            if above is not None:
                ax.axhspan(above, hi, color="C3", alpha=0.12,
                           label=None if below is not None else "regression zone (compare)")
            ax.set_ylim(lo, hi)
            ax.set_xlim(-0.5, len(runs) - 0.5)
            ax.set_xticks(range(len(runs)))
            ax.set_xticklabels([r.label for r in runs], fontsize=7, rotation=30 if len(runs) > 3 else 0)
            ax.set_title(f"{case}: {metric}", fontsize=10)
            ax.set_ylabel(f"{name} ({unit}), median of repetitions")
            ax.set_xlabel("kernel release and run time")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        for j in range(len(cases), nrows * cols):
            axes[j // cols][j % cols].axis("off")
        how = ("rank test: beyond the band and p <= alpha" if ref["rows"] and
               ref["rows"][0]["method"].startswith("mann") else "beyond the checks' tolerance band")
        plural = "s" if len(runs) > 1 else ""
        fig.suptitle(f"Trend of {metric} across {len(runs)} run{plural}; shaded: where compare calls a "
                     f"regression against baseline {base.run_id} ({how})", fontsize=10)
        name = f"trend-{metric.replace('.', '-')}.png"
        PLOT_TITLES[name] = f"Trend of {metric} against the baseline, with the band of compare"
        made.append(finish(fig, runs, out, name))
    return made, notes


# --- soak: margins per scenario and the checks closest to their bounds ---------------------------

SOAK_SHOWN_CHECKS = 30
SOAK_CLIP = (-1.0, 3.0)     # margins beyond are drawn at the edge (the JSON keeps them)


def plot_soak(path, out):
    """soak.png from `rtthrottle soak`'s soak.json: each scenario's margins (1 at the expected value,
    0 at the bound) and the checks whose worst margin came closest to or past the bound."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        fail(f"{path}: {exc}")
    if doc.get("schema") != "rtthrottle-soak/1":
        fail(f"{path}: schema: not an rtthrottle soak document")
    lo, hi = SOAK_CLIP
    near = doc.get("near_margin", 0.1)

    def clip(v):
        return min(max(v, lo), hi)

    scen = []
    for sc in doc.get("scenarios") or []:
        values = [m for c in doc.get("checks") or [] if c["scenario"] == sc["scenario"] for m in c.get("margins") or []]
        if values:
            scen.append((sc["scenario"], [clip(v) for v in values], sc["checks"]["false_alarms"]))
    checks = [c for c in doc.get("checks") or [] if (c.get("margin") or {}).get("worst") is not None]
    checks.sort(key=lambda c: c["margin"]["worst"])
    checks = checks[:SOAK_SHOWN_CHECKS]
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, max(5, 0.28 * max(len(scen), len(checks)) + 2)))
    if scen:
        left.boxplot([v for _, v, _ in scen], vert=False, whis=(1, 99), flierprops={"markersize": 3})
        left.set_yticks(range(1, len(scen) + 1))
        left.set_yticklabels([f"{n} ({a} failed)" if a else n for n, _, a in scen], fontsize=8)
        left.invert_yaxis()
    for ax in (left, right):
        ax.axvline(0, color="C3", lw=1)
        ax.axvline(near, color="C1", lw=1, ls="--")
        ax.axvline(1, color="0.6", lw=1, ls=":")
        ax.set_xlim(lo - 0.1, hi + 0.1)
        ax.set_xlabel("margin: 1 = expected value, 0 = bound (red), < 0 failed; clipped to [-1, 3]")
    left.set_title("Margins per scenario (box 25-75%, whiskers 1-99%)")
    for y, c in enumerate(checks):
        m = c["margin"]
        colour = "C3" if c["false_alarms"] else ("C1" if c["flagged"] else "C0")
        right.plot([clip(m["worst"]), clip(m["median"])], [y, y], color=colour, lw=1)
        right.plot(clip(m["median"]), y, "o", color=colour, ms=4)
        right.plot(clip(m["p1"]), y, "|", color=colour, ms=8)
        right.plot(clip(m["worst"]), y, "x", color=colour, ms=6)
    right.set_yticks(range(len(checks)))
    right.set_yticklabels([f"{c['case']} {c['check']}" for c in checks], fontsize=7)
    right.invert_yaxis()
    right.set_title(f"The {len(checks)} checks closest to their bounds (x worst, | p1, o median)")
    kernel = doc.get("kernel") or "?"
    t = doc.get("totals") or {}
    fig.suptitle(f"Soak: {doc.get('suites')} suites on {kernel} ({doc.get('host') or '?'}): {t.get('judged')} "
                 f"judged, {t.get('false_alarms')} false alarms, {t.get('unjudged')} unjudged, "
                 f"{t.get('flagged_checks')} check{'' if t.get('flagged_checks') == 1 else 's'} flagged")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    os.makedirs(out, exist_ok=True)
    png = os.path.join(out, "soak.png")
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


# --- putting it together -------------------------------------------------------------------------

PLOT_TITLES = {
    "shares.png": "Achieved CPU share vs configured runtime/period, per regime",
    "gaps.png": "Gap-length histograms per policy",
    "latency.png": "Probe wake-up latency CDF per policy",
    "tradeoff.png": "Policy trade-off: RT share vs CFS starvation and admin recovery",
}


def draw_all(runs, out, binary, baseline, trends):
    made, notes = [], []
    for fn in (plot_shares, plot_gaps, plot_latency):
        path, note = fn(runs, out)
        made += [path] if path else []
        notes += [note] if note else []
    path, note, extra = plot_tradeoff(runs, out)
    made += [path] if path else []
    notes += [n for n in (note, extra) if n]
    heatmaps, heatmap_notes = plot_heatmaps(runs, out)
    trend_paths, trend_notes = plot_trends(runs, out, binary, baseline, trends)
    return made + heatmaps + trend_paths, notes + heatmap_notes + trend_notes


def esc(v):
    return html.escape(str(v))


def fmt(value, unit):
    if value is None:
        return "-"
    if unit == "ratio":
        return f"{value:.4f}"
    if unit == "count" and float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.1f}"


def system_html(run):
    d = run.doc
    s, k = d.get("system") or {}, (d.get("system") or {}).get("kernel") or {}
    knobs = d.get("knobs_before") or s.get("knobs") or {}
    noise = d.get("noise_floor") or {}
    model = d.get("kernel_model") or {}
    tool = d.get("tool") or {}
    runinfo = d.get("run") or {}
    rows = [
        ("results file", run.path),
        ("run", f"{runinfo.get('id')} from {runinfo.get('start')} to {runinfo.get('end', '?')}; complete: "
                f"{'yes' if runinfo.get('complete') else 'no'}"
                + (f"; stopped: {runinfo['stop_reason']}" if runinfo.get("stop_reason") else "")),
        ("command", runinfo.get("cmdline")),
        ("tool", f"{tool.get('name')} {tool.get('version')} (git {tool.get('git_commit')})"),
        ("kernel", f"{k.get('release')} {k.get('version', '')}"),
        ("kernel config", f"HZ={k.get('hz')}, preempt {k.get('preempt_model')}"
                          f"{' (dynamic)' if k.get('preempt_dynamic') else ''}, RT group scheduling "
                          f"{'yes' if k.get('rt_group_sched') else 'no'}, nohz_full {'yes' if k.get('no_hz_full') else 'no'}"),
        ("host, CPUs", f"{s.get('host')}, online CPUs {(s.get('cpus') or {}).get('online')}, NUMA nodes "
                       f"{len((s.get('numa') or {}).get('nodes') or [])}"),
        ("knobs before the run", ", ".join(f"{a}={b}" for a, b in knobs.items())),
        ("knobs restored", d.get("knobs_restored")),
        ("noise floor", f"CPU {noise.get('cpu')}: longest gap {noise.get('gap_max_us', 0):.0f} us, "
                        f"{100 * (noise.get('loss_share') or 0):.2f}% of the time lost" if noise else "not measured"),
        ("regime prediction", (model.get("predicted") or {}).get("basis")),
        ("regime evidence", (model.get("observed") or {}).get("evidence")),
    ]
    def text(v):
        return "yes" if v is True else "no" if v is False else v
    body = "".join(f"<tr><th>{esc(a)}</th><td>{esc(text(b))}</td></tr>" for a, b in rows if b is not None)
    return f'<table class="system">{body}</table>'


def unjudged_in(row):
    """Where a compare row's case was unjudged: BASE, NEW, both or -."""
    base, new = row.get("base_unjudged"), row.get("new_unjudged")
    return "both" if base and new else "BASE" if base else "NEW" if new else "-"


def compare_table_html(doc):
    rows = []
    for r in doc["rows"]:
        if r["verdict"] == "info":
            continue
        want = f"= {fmt(r['target_base'], r['unit'])}" if r["direction"] == "target" else r["direction"]
        change = fmt(r["change"], r["unit"])
        if r["change"] is not None and r["change"] >= 0:
            change = "+" + change
        if r.get("change_rel") is not None:
            change += f" ({100 * r['change_rel']:+.1f}%)"
        test = (f"p = {r['p']:.3f} ({len(r['base_values'])} v {len(r['new_values'])})" if r.get("p") is not None
                else f"&plusmn; {fmt(r['band'], r['unit'])}" if r.get("band") is not None else "-")
        rows.append(f'<tr class="{esc(r["verdict"])}"><td>{esc(r["case"])}</td><td>{esc(r["task"])}.'
                    f'{esc(r["metric"])}</td><td>{esc(want)}</td><td class="num">{fmt(r["base_median"], r["unit"])}'
                    f'</td><td class="num">{fmt(r["new_median"], r["unit"])}</td><td class="num">{esc(change)}</td>'
                    f'<td>{test}</td><td>{esc(r["method"])}</td><td>{unjudged_in(r)}</td>'
                    f'<td class="verdict">{esc(r["verdict"])}</td></tr>')
    s = doc["summary"]
    notes = "".join(f"<li>not compared: {esc(n)}</li>" for n in doc.get("not_compared") or [])
    m = doc.get("method") or {}
    return (f'<p>BASE <code>{esc(doc["base"]["path"])}</code> ({esc(doc["base"].get("kernel_release"))}) against '
            f'NEW <code>{esc(doc["new"]["path"])}</code> ({esc(doc["new"].get("kernel_release"))}): '
            f'<b>{s["regressed"]} regressed</b>, {s["improved"]} improved, {s["unchanged"]} unchanged. '
            + (f'{s["from_unjudged"]} lines are of cases unjudged in BASE or NEW (column unjudged): measured, '
               'without a verdict of their own checks, compared all the same. ' if s.get("from_unjudged") else '') +
            f'With {m.get("min_repetitions")}+ repetitions on both sides a {esc(m.get("rank_test"))} test '
            f'(alpha {m.get("alpha")}) plus a minimum effect decides, otherwise {esc(m.get("otherwise"))}.</p>'
            '<table class="verdicts"><thead><tr><th>case</th><th>metric</th><th>want</th>'
            '<th>base median</th><th>new median</th><th>change</th><th>p or band</th><th>method</th>'
            f'<th>unjudged</th><th>verdict</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            + (f"<ul class=notes>{notes}</ul>" if notes else ""))


def check_text(c):
    unit = c.get("unit", "")
    return (f"{c.get('task')}.{c.get('metric')} {fmt(c.get('measured'), unit)} {unit}: {c.get('kind')} "
            f"{fmt(c.get('expected'), unit)} \u00b1 {fmt(c.get('tolerance'), unit)}")


def checks_table_html(runs):
    """No baseline: one line per result with its own checks' verdict, every check below."""
    rows, details = [], []
    for run in runs:
        for r in run.results(measured=False):
            name = case_name(r) + (f" rep {r['repetition']}" if r.get("repetition", 1) > 1 else "")
            checks = r.get("checks") or []
            failed = [c for c in checks if c.get("verdict") == "fail"]
            judged = [c for c in checks if c.get("verdict") in ("pass", "fail")]
            if not checks:
                what = r.get("error") or r.get("skip_reason") or "no checks"
            elif failed:
                what = "; ".join(check_text(c) for c in failed[:3]) + (" ..." if len(failed) > 3 else "")
            else:
                what = f"all {len(judged)} checks pass"
            rows.append(f'<tr class="{esc(r.get("verdict"))}"><td>{esc(run.release)}</td><td>{esc(name)}</td>'
                        f'<td>{esc(r.get("regime", "-"))}</td><td class="num">{len(judged) - len(failed)}/'
                        f'{len(judged)}</td><td>{esc(what)}</td><td class="verdict">{esc(r.get("verdict"))}</td></tr>')
            for c in checks:
                unit = c.get("unit", "")
                rule = f"{c.get('kind')} {fmt(c.get('expected'), unit)} &plusmn; {fmt(c.get('tolerance'), unit)}"
                details.append(f'<tr class="{esc(c.get("verdict"))}"><td>{esc(run.release)}</td><td>{esc(name)}</td>'
                               f'<td>{esc(c.get("task"))}.{esc(c.get("metric"))}</td>'
                               f'<td class="num">{fmt(c.get("measured"), unit)}</td><td>{rule}</td>'
                               f'<td>{esc(unit)}</td><td class="verdict">{esc(c.get("verdict"))}</td></tr>')
    return ('<p>No baseline given: each result\'s own checks (what the throttling settings promise on '
            'that kernel), as the run judged them. <code>rtthrottle report --baseline FILE</code> '
            'shows a regression verdict against a baseline instead.</p><table class="verdicts">'
            '<thead><tr><th>kernel</th><th>result</th><th>regime</th><th>checks passed</th>'
            f'<th>failed checks (or why nothing was judged)</th><th>verdict</th></tr></thead><tbody>{"".join(rows)}'
            '</tbody></table><details><summary>every check</summary><table class="checks"><thead><tr>'
            '<th>kernel</th><th>result</th><th>metric</th><th>measured</th><th>expected</th><th>unit</th>'
            f'<th>verdict</th></tr></thead><tbody>{"".join(details)}</tbody></table></details>')


DEBATE_COLUMNS = (("policy", "policy", None), ("runtime_us", "runtime us", "count"),
                  ("period_us", "period us", "count"), ("fair_server", "fair server", None),
                  ("rt_share", "RT share", "ratio"),
                  ("cfs_starvation_max_ms", "worst CFS starvation ms", "ms"),
                  ("admin_recovery_ms", "admin recovery ms", "ms"), ("admin_recovered", "admin got in", None),
                  ("app90_deadline_misses", "90% app deadline misses", "count"),
                  ("collateral_latency_max_us", "RT probe worst latency us", "us"))


def debate_html(runs):
    parts = []
    for run in runs:
        rows = run.doc.get("debate")
        if not rows:
            continue
        head = "".join(f"<th>{esc(label)}</th>" for _, label, _ in DEBATE_COLUMNS)
        body = ""
        for row in rows:
            cells = []
            for key, _, unit in DEBATE_COLUMNS:
                v = row.get(key)
                if key == "admin_recovered":
                    v = None if row.get("policy") not in admin_policies(run) else "yes" if v else "no"
                cells.append("-" if v is None else esc(v) if unit is None else fmt(v, unit))
            body += "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        parts.append(f"<h3>{esc(run.release)} ({esc(run.run_id)})</h3><table class=debate>"
                     f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    return "".join(parts)


STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1250px; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
thead th { background: #eef; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.system th { background: #f4f4f4; width: 14em; }
tr.regressed td.verdict, tr.fail td.verdict, tr.error td.verdict { background: #fcc; font-weight: bold; }
tr.improved td.verdict { background: #cfc; font-weight: bold; } tr.skip td.verdict { color: #777; }
table.grid tr.pass td.verdict { background: #cfc; } table.grid tr.unjudged td.verdict { background: #ffe08a; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 13px; color: #444; } .notes { color: #555; font-size: 13px; }
details { margin: 0.4em 0; } summary { cursor: pointer; font-weight: bold; }
"""

SCRIPT = """
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img'), ok = 0;
  imgs.forEach(function (img) {
    var loaded = img.complete && img.naturalWidth > 0;
    img.setAttribute('data-loaded', loaded ? '1' : '0');
    img.setAttribute('data-size', img.naturalWidth + 'x' + img.naturalHeight);
    if (loaded) ok++;
  });
  document.body.setAttribute('data-images', imgs.length);
  document.body.setAttribute('data-images-loaded', ok);
});
"""


def figure_html(path):
    name = os.path.basename(path)
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    title = PLOT_TITLES.get(name, name)
    return (f'<figure id="plot-{esc(name[:-4])}"><img alt="{esc(title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{esc(title)} ({esc(name)})</figcaption></figure>")


def write_report(runs, out, plots, notes, compares):
    # Heatmaps sit beside their grid's cell table; the other plots at the end.
    heatmaps = "".join(figure_html(p) for p in plots if os.path.basename(p).startswith("heatmap-"))
    figures = "".join(figure_html(p) for p in plots if not os.path.basename(p).startswith("heatmap-"))
    grids = grid_tables_html(runs)
    verdicts = "".join(compare_table_html(d) for d in compares) if compares else checks_table_html(runs)
    debate = debate_html(runs) or "<p>No debate table in these files (the debate suite answers it).</p>"
    # The newest run open, the others folded.
    systems = f"<h3>{esc(runs[-1].release)} &middot; {esc(runs[-1].run_id)}</h3>{system_html(runs[-1])}"
    systems += "".join(f"<details><summary>{esc(r.release)} &middot; {esc(r.run_id)}</summary>{system_html(r)}"
                       "</details>" for r in reversed(runs[:-1]))
    note_html = "".join(f"<li>{esc(n)}</li>" for n in notes)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>rtthrottle report: "
            f"{esc(caption(runs))}</title><style>{STYLE}</style></head><body>"
            f"<h1>rtthrottle report</h1><p>{esc(caption(runs))}; made {now} from "
            f"{len(runs)} result file{'s' if len(runs) > 1 else ''}.</p>"
            f'<h2 id="system">System</h2>{systems}'
            f'<h2 id="verdict">Verdict</h2><div id="verdicts">{verdicts}</div>'
            + (f'<h2 id="grids">Knob grids: the promise of each runtime x period</h2><div id="grid-cells">'
               f'{heatmaps}{grids}</div>' if grids else "")
            + f'<h2 id="debate-table">The 2008 debate, policy by policy</h2><div id="debate">{debate}</div>'
            f'<h2 id="plots">Plots</h2>' + (f'<ul class="notes" id="plot-notes">{note_html}</ul>' if notes else "")
            + f"{figures}<script>{SCRIPT}</script></body></html>")
    path = os.path.join(out, "index.html")
    tmp = path + f".tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, path)
    return path


def main(argv):
    ap = argparse.ArgumentParser(prog="rtthrottle_plot.py")
    ap.add_argument("command", choices=("plot", "report", "soak"))
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rtthrottle", help="the rtthrottle binary, for compare --json")
    ap.add_argument("--baseline")
    ap.add_argument("--trend", action="append")
    ap.add_argument("--compare", action="append", default=[], help="compare --json output to show")
    args = ap.parse_args(argv)
    if args.command == "soak":
        print(plot_soak(args.results[0], args.out))
        return 0
    runs = load_runs(args.results)
    baseline = Run(args.baseline) if args.baseline else None
    os.makedirs(args.out, exist_ok=True)
    plots, notes = draw_all(runs, args.out, args.rtthrottle, baseline, args.trend or DEFAULT_TRENDS)
    for p in plots:
        print(p)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    if args.command == "report":
        compares = []
        for path in args.compare:
            try:
                with open(path) as f:
                    compares.append(json.load(f))
            except (OSError, ValueError) as exc:
                fail(f"{path}: {exc}")
        print(f"report: {write_report(runs, args.out, plots, notes, compares)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
