# SPDX-License-Identifier: GPL-2.0-only
"""A real knob grid: fifo-hog-share at ratios 0.03, 0.5, 0.95 x periods 50 ms, 200 ms, 1 s, 2 s
(12 cells, the shortest windows the grid allows: about 20 s of windows and 10 s of settling).
The 3% row is below the deadline fair server's 5% and must be skipped with that reason; every
other cell runs, the knobs come back, the results name each cell with its runtime and period, and
the heatmap renders. Whether each cell keeps its promise is the last test."""
import math
import os
import tempfile

import rtt
from test_report import png_size, require_matplotlib

RATIOS = (0.03, 0.5, 0.95)
PERIODS_US = (50000, 200000, 1000000, 2000000)
GRID = "ratios=0.03,0.5,0.95 periods=50ms,200ms,1s,2s"

_doc = {}


def _name(ratio, period_us):
    period = f"{period_us // 1000000}s" if period_us % 1000000 == 0 else f"{period_us // 1000}ms"
    return f"r{ratio:g}p{period}"


def _run_once():
    if "doc" not in _doc:
        rtt.require_root()
        out = os.path.join(tempfile.mkdtemp(prefix="rtt-test-"), "grid.json")
        knobs_before = rtt.read_knobs()
        proc = rtt.run(["run", "--grid", GRID, "--duration", "0.1", "--probe-seconds", "0", "--output", out],
                       timeout=240)
        assert os.path.exists(out), (proc.returncode, proc.stderr[-3000:])
        _doc.update(doc=rtt.load(out), proc=proc, out=out, knobs_before=knobs_before, knobs_after=rtt.read_knobs())
    return _doc["doc"]


def _cells(doc):
    return {r["policy"]["name"]: r for r in doc["results"]}


def _fair_server(doc):
    return doc["kernel_model"]["predicted"].get("fair_server")


def _assert_only_hollow(name, r):
    """An unjudged cell is one whose checks could not all fail where they should: the short
    windows of this grid (one throttle, so the window share with its two slots) and short
    periods (CFS's rest within a tick) make some tolerances as wide as what they catch. Every
    check that applies is still measured, unless the trace saw every span it needs disturbed
    (censored), and each one left unjudged says so."""
    # Checks whose condition does not hold in a cell are recorded as not applicable, saying why.
    assert all(c["rule"].startswith("not applicable: its condition") for c in r["checks"]
               if c["verdict"] == "not-applicable"), name
    unjudged = [c for c in r["checks"] if c["verdict"] not in ("pass", "fail", "not-applicable")]
    # The result says why: checks unjudged, or checks that apply but were not judged (censored).
    assert unjudged and ("unjudged" in r["skip_reason"] or "not judged" in r["skip_reason"]), \
        (name, r.get("skip_reason"))
    # A figure whose every span the trace saw disturbed is not measured, with the periods left out.
    censored = (r.get("promise") or {}).get("censored", {}).get("periods", 0)
    for c in unjudged:
        if c["verdict"] == "not-measured" and c["rule"].startswith("not measured: censored:"):
            assert censored >= 1, (name, c, r.get("promise"))
            continue
        assert c["verdict"] == "unjudged" and c["tolerance"] >= c["detects"] > 0, (name, c)
        assert c["rule"].startswith("unjudged: tolerance"), (name, c["rule"])


def test_every_cell_runs_or_is_skipped_with_a_reason():
    doc = _run_once()
    cells = _cells(doc)
    want = [_name(r, p) for r in RATIOS for p in PERIODS_US]
    assert [r["policy"]["name"] for r in doc["results"]] == want, list(cells)
    assert all(r["scenario"] == "fifo-hog-share" for r in doc["results"])
    for k, name in enumerate(want):
        r = cells[name]
        ratio, period = RATIOS[k // len(PERIODS_US)], PERIODS_US[k % len(PERIODS_US)]
        assert r["policy"]["period_us"] == period and r["policy"]["runtime_us"] == round(ratio * period), r["policy"]
        assert r["grid"] == {"rows": "ratio", "ratio": ratio, "cell": k + 1, "cells": len(want)}, r["grid"]
        if ratio < 0.05 and _fair_server(doc):
            assert r["verdict"] == "skip" and "deadline fair server" in r["skip_reason"], r
        elif r["verdict"] == "error":
            # Until the knob planner reaches short periods through runtime -1 the kernel refuses
            # the first write of a 50 ms cell (EBUSY); any other error is a failure.
            assert period <= 50000 and "the kernel refused policy" in r["error"], (name, r["error"])
        else:
            assert r["verdict"] in ("pass", "fail", "unjudged") and r["tasks"], (name, r["verdict"])
            if r["verdict"] == "unjudged":
                _assert_only_hollow(name, r)
            # The shortest window the grid allows: a second (one fair-server period), two whole
            # periods, after the server's first second where periods are longer; the timer settle
            # ends it just before a period timer firing, at most a tenth and 0.4 of a period early.
            asked = max(1.0, 2 * period / 1e6)
            if period > 1000000:
                asked = math.ceil((1.0 + 2 * period / 1e6) / (period / 1e6)) * period / 1e6
            assert abs(r.get("window_asked_s", r["window_s"]) - asked) < 1e-9, (name, r.get("window_asked_s"))
            assert asked - min(asked / 10, 0.4 * period / 1e6) - 1e-6 <= r["window_s"] <= asked + 1e-9, \
                (name, r["window_s"], asked)
    progress = _doc["proc"].stderr
    assert "grid fifo-hog-share: 12 cells" in progress and "grid cell 12 of 12" in progress, progress[-2000:]


def test_knobs_restored():
    doc = _run_once()
    assert doc["knobs_restored"] is True and doc["knobs_before"] == doc["knobs_after"]
    assert _doc["knobs_after"] == _doc["knobs_before"], (_doc["knobs_before"], _doc["knobs_after"])
    assert doc["run"]["complete"] is True
    assert not rtt.rt_tasks_of()


def test_heatmap_renders():
    _run_once()
    require_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        proc = rtt.run(["report", "--out", tmp, _doc["out"]], timeout=180)
        assert proc.returncode == 0, proc.stderr
        png_size(os.path.join(tmp, "heatmap-fifo-hog-share.png"))
        with open(os.path.join(tmp, "index.html")) as f:
            page = f.read()
    for name in _cells(_doc["doc"]):
        assert f"<td>{name}</td>" in page, f"the report's grid table does not name {name}"


def test_every_reachable_cell_keeps_its_promise():
    """Every cell the kernel accepts passes. Figures of those that do not are in the message."""
    doc = _run_once()
    broken = []
    for name, r in _cells(doc).items():
        if r["verdict"] in ("pass", "skip", "unjudged"):
            continue
        if r["verdict"] == "error":
            broken.append(f"{name}: error: {r['error']}")
            continue
        hog, victim = rtt.metrics(r, "hog"), rtt.metrics(r, "victim")
        failed = "; ".join(f"{c['task']}.{c['metric']} {c['measured']:.4g} {c['kind']} {c['expected']:.4g} "
                           f"+- {c['tolerance']:.3g}" for c in r["checks"] if c["verdict"] == "fail")
        broken.append(f"{name}: hog share {hog.get('cpu_share_periods', hog['cpu_share']):.4f}, longest CFS wait "
                      f"{victim['starvation_max_us'] / 1000:.1f} ms: {failed}")
    assert not broken, "cells that do not keep their promise:\n" + "\n".join(broken)
