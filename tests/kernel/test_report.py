# SPDX-License-Identifier: GPL-2.0-only
"""compare, plot and report on the fixtures of tests/fixtures: no root, no knob touched.

compare: exit 1 on a regression, 0 otherwise, 2 on bad input naming the file and field.
plot: the PNGs exist and are valid PNG files (signature, chunk CRCs, IHDR size, IEND).
report: index.html opens in headless Chromium, shows the verdict table and every plot decoded.
unjudged results (measured, no verdict) are compared, plotted and reported, marked as such.
"""
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import rtt

FIXTURES = os.path.join(rtt.ROOT, "tests", "fixtures")
PYTHON = "/usr/bin/python3"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]


def fx(name):
    return os.path.join(FIXTURES, name)


def require_matplotlib():
    if not os.access(PYTHON, os.X_OK):
        raise rtt.Skip(f"{PYTHON} is missing")
    if subprocess.run([PYTHON, "-c", "import matplotlib"], capture_output=True).returncode:
        raise rtt.Skip(f"{PYTHON} has no matplotlib (apt-get install python3-matplotlib)")


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise rtt.Skip("no chromium (apt-get install chromium)")


def png_size(path):
    """(width, height) of a valid PNG; raises AssertionError otherwise."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG signature"
    pos, chunks, size = 8, [], None
    while pos < len(data):
        assert pos + 12 <= len(data), f"{path}: truncated chunk at {pos}"
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xffffffff == crc, f"{path}: bad CRC in {kind}"
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        chunks.append(kind)
        pos += 12 + length
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND" and b"IDAT" in chunks, f"{path}: chunks {chunks}"
    assert size[0] >= 400 and size[1] >= 300, f"{path}: {size}"
    return size


# --- compare -------------------------------------------------------------------------------------

def test_help_of_compare_plot_report():
    for cmd in ("compare", "plot", "report"):
        proc = rtt.run([cmd, "--help"])
        assert proc.returncode == 0 and "Usage: rtthrottle " + cmd in proc.stdout, (cmd, proc.stdout, proc.stderr)


def verdicts(stdout):
    """{(case, task.metric): verdict} of compare's text table."""
    out = {}
    for line in stdout.splitlines():
        cols = line.split()
        if len(cols) >= 9 and not line.startswith("#") and cols[0] != "case":
            out[(cols[0], cols[1])] = cols[-2]
    return out


def test_compare_regression_exits_1():
    for base, new in (("base-3rep.json", "regression-3rep.json"), ("base-1rep.json", "regression-1rep.json")):
        proc = rtt.run(["compare", fx(base), fx(new)])
        assert proc.returncode == 1, (new, proc.returncode, proc.stderr)
        v = verdicts(proc.stdout)
        assert v[("fifo-hog-share.unlimited", "victim.cpu_share")] == "regressed", proc.stdout
        assert v[("fifo-hog-share.unlimited", "victim.starvation_max_us")] == "regressed", proc.stdout
        assert v[("fifo-hog-share.default", "victim.cpu_share")] == "unchanged", proc.stdout
        method = "mann-whitney-exact" if "3rep" in new else "check-band"
        assert method in proc.stdout, (method, proc.stdout)
        assert "# 5 regressed, 0 improved" in proc.stdout, proc.stdout


def test_compare_improvement_exits_0():
    proc = rtt.run(["compare", fx("base-3rep.json"), fx("improvement-3rep.json")])
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    v = verdicts(proc.stdout)
    assert v[("fifo-hog-share.half", "victim.cpu_share_periods")] == "improved", proc.stdout
    assert list(v.values()).count("improved") == 3 and "regressed" not in v.values(), proc.stdout


def test_compare_noise_is_unchanged():
    for base, new in (("base-3rep.json", "noise-3rep.json"), ("base-1rep.json", "base-3rep.json")):
        proc = rtt.run(["compare", fx(base), fx(new)])
        assert proc.returncode == 0, (new, proc.returncode, proc.stderr)
        v = verdicts(proc.stdout)
        assert len(v) == 27 and set(v.values()) == {"unchanged"}, proc.stdout


def test_compare_json_output():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "verdicts.json")
        proc = rtt.run(["compare", "--json", path, fx("base-3rep.json"), fx("regression-3rep.json")])
        assert proc.returncode == 1 and "regressed" in proc.stdout, proc.stderr
        doc = rtt.load(path)
    assert doc["summary"]["regressed"] == 5, doc["summary"]
    row = next(r for r in doc["rows"] if r["case"] == "fifo-hog-share.unlimited" and r["task"] == "victim"
               and r["metric"] == "cpu_share")
    assert row["direction"] == "higher" and row["verdict"] == "regressed" and row["method"] == "mann-whitney-exact"
    assert abs(row["p"] - 0.1) < 1e-9 and row["regress_below"] < row["base_median"], row
    proc = rtt.run(["compare", "--json", "-", fx("base-1rep.json"), fx("base-1rep.json")])
    assert proc.returncode == 0 and json.loads(proc.stdout)["summary"]["regressed"] == 0, proc.stdout


def test_compare_all_unjudged_runs_compares_and_marks_them():
    unjudged = fx("all-unjudged-1rep.json")
    proc = rtt.run(["compare", unjudged, unjudged])
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    v = verdicts(proc.stdout)
    marks = {line.split()[-3] for line in proc.stdout.splitlines() if (line.split() or ["#"])[0] in
             {case for case, _ in v}}
    assert len(v) == 27 and set(v.values()) == {"unchanged"} and marks == {"both"}, proc.stdout
    assert "# 27 lines of cases unjudged in BASE or NEW" in proc.stdout, proc.stdout
    proc = rtt.run(["compare", "--json", "-", fx("base-1rep.json"), unjudged])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {(r["base_unjudged"], r["new_unjudged"]) for r in doc["rows"]} == {(False, True)}, doc["rows"][0]
    assert doc["summary"]["from_unjudged"] == 27 and doc["new"]["measured"] == 3, doc["summary"]


COMPARE_BAD = [
    (["other-scenario.json"], "other-scenario.json: results[0].scenario"),
    (["schema-v2.json"], "schema-v2.json: schema_version: 2"),
    (["malformed.json"], "malformed.json: not valid JSON"),
    (["missing-policy.json"], "missing-policy.json: results[1].policy: missing"),
    (["bad-metric.json"], "bad-metric.json: results[0].tasks[1].metrics.cpu_share: must be a number"),
    (["all-skipped.json"], "all-skipped.json: results: nothing was measured"),
    (["no-such-file.json"], "no-such-file.json: cannot read"),
]


def test_compare_bad_input_exits_2_naming_file_and_field():
    for new, named in COMPARE_BAD:
        proc = rtt.run(["compare", fx("base-1rep.json"), fx(new[0])])
        assert proc.returncode == 2, (new, proc.returncode, proc.stdout, proc.stderr)
        assert named in proc.stderr, (named, proc.stderr)
    for args, named in ((["--alpha", "2"], "--alpha"), (["--bogus"], "--bogus"), ([], "two result files"),
                        (["--json"], "needs a value")):
        proc = rtt.run(["compare"] + args + ([fx("base-1rep.json")] * 2 if args and args != ["--json"] else []))
        assert proc.returncode == 2 and named in proc.stderr, (args, proc.returncode, proc.stderr)


def test_compare_empty_and_truncated_inputs_exit_2_and_touch_nothing():
    before = rtt.read_knobs()
    with tempfile.TemporaryDirectory() as tmp:
        empty, truncated = os.path.join(tmp, "empty.json"), os.path.join(tmp, "truncated.json")
        open(empty, "w").close()
        with open(fx("base-1rep.json")) as src, open(truncated, "w") as dst:
            dst.write(src.read()[:300])
        for base, new, named in ((empty, fx("base-1rep.json"), empty), (fx("base-1rep.json"), truncated, truncated)):
            proc = rtt.run(["compare", base, new])
            assert proc.returncode == 2, (named, proc.returncode, proc.stderr)
            assert named in proc.stderr and "not valid JSON" in proc.stderr, proc.stderr
            assert proc.stdout == "", proc.stdout
    assert rtt.read_knobs() == before


# --- plot ----------------------------------------------------------------------------------------

def plot_fifo_hog_share(out, files):
    """rtthrottle plot of fifo-hog-share files: exit 0 and exactly its five PNGs, each valid."""
    proc = rtt.run(["plot", "--out", out] + files, timeout=180)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    expected = {"shares.png", "gaps.png", "tradeoff.png", "trend-victim-cpu_share_periods.png",
                "trend-victim-starvation_max_us.png"}
    assert set(os.listdir(out)) == expected, os.listdir(out)
    for name in expected:
        png_size(os.path.join(out, name))
    return proc


def test_plot_writes_valid_pngs():
    require_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        proc = plot_fifo_hog_share(os.path.join(tmp, "plots"), [fx(f) for f in (
            "base-3rep.json", "noise-3rep.json", "regression-3rep.json", "improvement-3rep.json")])
        # No probe and no admin results in these files: said, not failed.
        assert "no probe results in these files" in proc.stderr, proc.stderr
        assert "no admin recovery results" in proc.stderr, proc.stderr


def test_plot_probe_latency_and_tradeoff_when_present():
    require_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        proc = rtt.run(["plot", "--out", tmp, "--trend", "probe.latency_us.max", fx("quick-1rep.json")],
                       timeout=180)
        assert proc.returncode == 0, proc.stderr
        for name in ("latency.png", "tradeoff.png", "trend-probe-latency_us-max.png"):
            png_size(os.path.join(tmp, name))
        assert "no probe results" not in proc.stderr and "no admin recovery" not in proc.stderr, proc.stderr


def test_plot_bad_input_exits_2():
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            (["--out", tmp, fx("malformed.json")], "malformed.json: not valid JSON"),
            (["--out", tmp, fx("base-1rep.json"), fx("schema-v2.json")], "schema-v2.json: schema_version"),
            ([fx("base-1rep.json")], "--out DIR is required"),
            (["--out", tmp], "at least one results file"),
            (["--out", tmp, "--trend", "victim.nonsense", fx("base-1rep.json")], "--trend 'victim.nonsense'"),
            (["--out", "/proc/rtt-plots", fx("base-1rep.json")], "/proc/rtt-plots"),
        ]
        for args, named in cases:
            for cmd in ("plot", "report"):
                proc = rtt.run([cmd] + args)
                assert proc.returncode == 2, (cmd, args, proc.returncode, proc.stderr)
                assert named in proc.stderr, (cmd, named, proc.stderr)
        assert os.listdir(tmp) == [], os.listdir(tmp)
    proc = rtt.run(["report", "--out", "/tmp/rtt-never", "--baseline", fx("base-1rep.json"),
                    fx("other-scenario.json")])
    assert proc.returncode == 2 and "other-scenario.json: results[0].scenario" in proc.stderr, proc.stderr


def plot_module():
    """harness/output/rtthrottle_plot.py loaded here, to look at what it draws."""
    require_matplotlib()
    if importlib.util.find_spec("matplotlib") is None:
        raise rtt.Skip(f"{sys.executable} has no matplotlib: run the tests with {PYTHON}")
    spec = importlib.util.spec_from_file_location("rtthrottle_plot",
                                                  os.path.join(rtt.ROOT, "harness", "output", "rtthrottle_plot.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def share_plot(plot, path, tmp):
    """shares.png of one file: per panel, the hollow and the filled points drawn, and the legend's texts."""
    panels, finish = [], plot.finish

    def keep(fig, runs, out, name):
        for ax in fig.axes:
            points = {True: set(), False: set()}
            for line in ax.get_lines():
                if line.get_marker() not in ("None", None, "", "_") and len(line.get_xdata()):
                    hollow = plot.matplotlib.colors.same_color(line.get_markerfacecolor(), "white")
                    points[hollow] |= {(round(x, 4), round(y, 4)) for x, y in zip(line.get_xdata(), line.get_ydata())}
            panels.append((points, [t.get_text() for t in ax.get_legend().get_texts()]))
        return finish(fig, runs, out, name)

    plot.finish = keep
    try:
        png, note = plot.plot_shares(plot.load_runs([path]), tmp)
    finally:
        plot.finish = finish
    assert png and note is None, note
    png_size(png)
    return panels


def test_plot_draws_unjudged_results_hollow():
    require_matplotlib()
    unjudged = fx("all-unjudged-1rep.json")
    with tempfile.TemporaryDirectory() as tmp:
        plot_fifo_hog_share(tmp, [unjudged])
    # Every result's share is a hollow point at its runtime/period, in the legend as unjudged.
    plot = plot_module()
    want = {}
    for r in rtt.load(unjudged)["results"]:
        x = plot.policy_ratio(r["policy"])
        for panel, t in enumerate(r["tasks"]):
            want.setdefault(panel, set()).add((round(x, 4), round(t["metrics"]["cpu_share_periods"], 4)))
    with tempfile.TemporaryDirectory() as tmp:
        for panel, (points, legend) in enumerate(share_plot(plot, unjudged, tmp)):
            assert points[True] == want[panel] and not points[False], (panel, points, want[panel])
            assert plot.UNJUDGED_LABEL == "unjudged (measured, no verdict)" and plot.UNJUDGED_LABEL in legend, legend
        # The same figures judged: filled points, no such legend entry.
        for points, legend in share_plot(plot, fx("base-1rep.json"), tmp):
            assert points[False] and not points[True] and plot.UNJUDGED_LABEL not in legend, (points, legend)


def test_report_of_unjudged_results_marks_them():
    require_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        proc = rtt.run(["report", "--out", tmp, "--baseline", fx("base-1rep.json"), fx("all-unjudged-1rep.json")],
                       timeout=180)
        assert proc.returncode == 0, (proc.returncode, proc.stderr)
        with open(os.path.join(tmp, "index.html")) as f:
            page = f.read()
    assert 'id="plot-shares"' in page and "<th>unjudged</th>" in page, "no share plot or no unjudged column"
    rows = re.findall(r'<tr class="unchanged">.*?</tr>', page)
    assert len(rows) == 27 and all("<td>NEW</td>" in row for row in rows), rows[:2]
    assert "27 lines are of cases unjudged in BASE or NEW" in page


# --- report --------------------------------------------------------------------------------------

def render(browser, page, tmp):
    """The DOM after load (images marked by the page's own script) and a screenshot."""
    profile = tempfile.mkdtemp(dir=tmp)
    dom = subprocess.run([browser] + CHROMIUM_FLAGS + [f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                                                       "--dump-dom", "file://" + page],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert dom.returncode == 0 and "</html>" in dom.stdout, (dom.returncode, dom.stderr[-2000:])
    shot = os.path.join(tmp, "screenshot.png")
    proc = subprocess.run([browser] + CHROMIUM_FLAGS + [f"--user-data-dir={profile}", "--window-size=1300,2000",
                                                        f"--screenshot={shot}", "file://" + page],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    png_size(shot)
    return dom.stdout


def check_page(dom, plots):
    imgs = re.findall(r"<img [^>]*>", dom)
    assert len(imgs) == len(plots) and len(imgs) >= 4, (len(imgs), plots)
    for img in imgs:
        assert 'data-loaded="1"' in img, f"an image did not decode: {img[:200]}"
        width, height = map(int, re.search(r'data-size="(\d+)x(\d+)"', img).groups())
        assert width >= 400 and height >= 300, img[:200]
    assert f'data-images-loaded="{len(plots)}"' in dom, "the page's image check did not run"
    table = re.search(r'<div id="verdicts">(.*?)</div>', dom, re.S)
    assert table and '<table class="verdicts">' in table.group(1), "no verdict table"
    return table.group(1)


def test_report_renders_in_chromium_with_baseline():
    require_matplotlib()
    browser = chromium()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report")
        proc = rtt.run(["report", "--out", out, "--baseline", fx("base-3rep.json"), fx("regression-3rep.json"),
                        fx("improvement-3rep.json")], timeout=180)
        assert proc.returncode == 0, proc.stderr
        page = os.path.join(out, "index.html")
        assert f"report: {page}" in proc.stdout, proc.stdout
        plots = sorted(f for f in os.listdir(out) if f.endswith(".png"))
        table = check_page(render(browser, page, tmp), plots)
        rows = re.findall(r'<tr class="(regressed|improved|unchanged)">', table)
        assert rows.count("regressed") == 5 and rows.count("improved") == 3, rows
        assert "mann-whitney-exact" in table
        # The page embeds everything: no file next to it is needed.
        assert not re.search(r'src="(?!data:)', open(page).read())


def test_report_renders_in_chromium_own_checks_debate_and_probes():
    require_matplotlib()
    browser = chromium()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report")
        proc = rtt.run(["report", "--out", out, fx("quick-1rep.json")], timeout=180)
        assert proc.returncode == 0, proc.stderr
        plots = sorted(f for f in os.listdir(out) if f.endswith(".png"))
        assert "latency.png" in plots and "tradeoff.png" in plots, plots
        dom = render(browser, os.path.join(out, "index.html"), tmp)
        table = check_page(dom, plots)
        assert "fifo-hog-share.default" in table and "admin-recovery.default" in table, table[:500]
        assert '<table class="debate">' in dom and "admin recovery ms" in dom
        assert "6.18.44-fc-v1147" in dom and "regime evidence" in dom


# --- knob grids ----------------------------------------------------------------------------------

GRID_CELLS = ("r0.03p50ms", "r0.03p1s", "r0.03p2s", "r0.5p50ms", "r0.5p1s", "r0.5p2s", "r0.95p50ms", "r0.95p1s",
              "r0.95p2s")


def grid_rows(page):
    """{cell: (cells of its row in the grid table)} of a report."""
    table = re.search(r'<table class="grid">(.*?)</table>', page, re.S)
    assert table, "no grid table in the report"
    rows = {}
    for row in re.findall(r"<tr class=\"(\w+)\">(.*?)</tr>", table.group(1), re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row[1])
        rows[cells[0]] = (row[0],) + tuple(cells[1:])
    return rows


def test_plot_and_report_draw_a_heatmap_of_every_grid_cell():
    require_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        proc = rtt.run(["plot", "--out", tmp, fx("grid-1rep.json")], timeout=180)
        assert proc.returncode == 0, proc.stderr
        png_size(os.path.join(tmp, "heatmap-fifo-hog-share.png"))
        proc = rtt.run(["report", "--out", tmp, fx("grid-1rep.json")], timeout=180)
        assert proc.returncode == 0, proc.stderr
        with open(os.path.join(tmp, "index.html")) as f:
            page = f.read()
    assert '<h2 id="grids">' in page and 'id="plot-heatmap-fifo-hog-share"' in page, "no heatmap in the report"
    rows = grid_rows(page)
    assert set(rows) == set(GRID_CELLS), sorted(rows)
    # Verdicts: the promise's own when a result carries one, else the result's verdict.
    states = {cell: row[0] for cell, row in rows.items()}
    assert states == {"r0.03p50ms": "skip", "r0.03p1s": "skip", "r0.03p2s": "skip", "r0.5p50ms": "error",
                      "r0.95p50ms": "error", "r0.5p1s": "pass", "r0.5p2s": "fail", "r0.95p1s": "pass",
                      "r0.95p2s": "unjudged"}, states
    # Promised longest CFS wait: the promise's bound, else twice the runtime.
    assert rows["r0.95p1s"][5] == "1000" and rows["r0.5p1s"][5] == "1000", (rows["r0.95p1s"], rows["r0.5p1s"])
    assert abs(float(rows["r0.5p2s"][4]) - 951.2) < 0.05 and rows["r0.5p2s"][5] == "2000", rows["r0.5p2s"]
    assert "deadline fair server" in rows["r0.03p1s"][6] and "refused" in rows["r0.5p50ms"][6], rows


def test_plot_without_grid_says_so():
    require_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        proc = rtt.run(["plot", "--out", tmp, fx("base-1rep.json")], timeout=180)
        assert proc.returncode == 0, proc.stderr
        assert "no knob-grid results" in proc.stderr and not any(f.startswith("heatmap-") for f in os.listdir(tmp))
