# SPDX-License-Identifier: GPL-2.0-only
"""`make evidence` (ci/evidence.py) on the small results tree of tests/fixtures/evidence/: the
newest soak, mutants, matrix, power and bench results each give their table with the figures a CI
owner adopts the suite on; a source whose commit predates a change to the judging code is warned
about, one of HEAD is not; a missing source names the make target that writes it. No root, nothing
measured: the script only reads files and git."""
import os
import shutil
import subprocess
import tempfile

import rtt

FIXTURES = os.path.join(rtt.ROOT, "tests", "fixtures", "evidence")
SCRIPT = os.path.join(rtt.ROOT, "ci", "evidence.py")


def _git(*args):
    proc = subprocess.run(["git", "-C", rtt.ROOT] + list(args), capture_output=True, text=True)
    if proc.returncode:
        raise rtt.Skip(f"not a git checkout: {proc.stderr.strip()}")
    return proc.stdout.strip()


def _evidence(results):
    out = os.path.join(results, "evidence.md")
    proc = subprocess.run(["/usr/bin/python3", SCRIPT, "--results", results, "--out", out, "--repo", rtt.ROOT],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(out) as f:
        return f.read()


def _fixture_tree():
    """The fixtures copied, the soak's commit set to HEAD and the others' to a commit before the
    last change to harness/judge (so the judging changed since it)."""
    head = _git("rev-parse", "--short", "HEAD")
    last_judge = _git("log", "-1", "--format=%H", "--", "harness/judge")
    old = _git("rev-parse", "--short", f"{last_judge}~1")
    tmp = tempfile.mkdtemp(prefix="rtt-evidence-")
    results = os.path.join(tmp, "results")
    shutil.copytree(FIXTURES, results)
    for folder, _, files in os.walk(results):
        for name in files:
            path = os.path.join(folder, name)
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace("@HEAD@", head).replace("@OLD@", old))
    return tmp, results, head, old


def _section(text, title):
    part = text.split(f"## {title}", 1)[1]
    return part.split("\n## ", 1)[0]


def test_each_source_gives_its_table_and_the_rates_a_ci_owner_needs():
    tmp, results, head, old = _fixture_tree()
    try:
        text = _evidence(results)
        soak = _section(text, "False alarms on a healthy kernel (soak)")
        assert "Source: `results/soak-20261207T031400Z/soak.json`" in soak, soak  # the newest, not the older one
        assert f"Commit {head} · 2026-12-07T03:14:00Z to 2026-12-07T03:45:00Z · kernel 6.18.0-test" in soak, soak
        assert "machine soakhost, x86_64, 2 CPUs" in soak, soak
        # 1 false alarm of 900 judged; 45 unjudged of 950 that applied.
        assert "| 2 | 900 | 1 | 0.11% | 45 | 4.74% | 5 | 50 | 1 |" in soak, soak
        assert "| fifo-hog-share.half | hog.rt_budget_excess_us | 2 | 1 | -0.2 |" in soak, soak
        assert "| default | 0.9452 | 950.3 | 451.9 | - | 49200 |" in soak, soak  # the debate's medians
        mutants = _section(text, "Detection of broken kernels (mutants)")
        assert f"Commit {old} · 2026-12-07 00:05:00 UTC · kernel 6.12.118-mutants" in mutants, mutants
        assert "1 of 2 mutants caught, 1 by a check their Promise names; detection rate 50.00%" in mutants, mutants
        assert "| unmodified | read | 2 | 0 | 1 | 33.33% |" in mutants, mutants
        assert "| rt-throttle-one-tick-late | ok | **no** | - | 0 | 0 |" in mutants, mutants
        assert "| fifo-hog-share.half: hog.rt_budget_excess_us | 1 | rt-throttle-never-set |" in mutants, mutants
        matrix = _section(text, "Distribution kernels (matrix)")
        assert "| 6.1 | 6.1.0-57-amd64 | ok | 170 | 2 | 6 | 3.33% | 2 | 20 | 24/1/1/2/0 | yes |" in matrix, matrix
        assert "| 6.1-rt | - | boot-failure | - | - | - | - | - | - | - | - |" in matrix and "- 6.1: duty-cycle.default: cfs" in matrix, matrix
        power = _section(text, "Detection power on recorded windows (power)")
        assert "| late-2-ticks-carried | hog.rt_budget_excess_us | 120 | 120 | 118 | 98.33% | 0 | 0 |" in power, power
        assert "480 windows, 4800 checks judged, 0 false alarms (0.00%), 12 unjudged" in power, power
        assert "caught in 98.33% of their windows at worst (late-2-ticks-carried)" in text, text
        bench = _section(text, "Accuracy of the measurements (bench)")
        assert "| 2. hog share against the trace | 0.456 pp | < 0.1 pp | MISS |" in bench, bench
        summary = _section(text, "Summary")
        assert "- Soak: 2 suites, 900 checks judged, 1 false alarms (0.11% of judged), 45 unjudged" in summary, summary
        assert "- Mutants: 1 of 2 caught (1 by a check their Promise names)" in summary, summary
        assert "- Bench: 1 of 2 accuracy figures on target (missed: share_vs_trace_pp)" in summary, summary
    finally:
        shutil.rmtree(tmp)


def test_a_source_older_than_the_judging_code_is_warned_about():
    tmp, results, head, old = _fixture_tree()
    try:
        text = _evidence(results)
        assert "**Warning**" not in _section(text, "False alarms on a healthy kernel (soak)")  # HEAD's own
        for title in ("Detection of broken kernels (mutants)", "Distribution kernels (matrix)"):
            part = _section(text, title)
            assert "**Warning**: the judging code (harness/judge, workloads/scenarios" in part, part
            assert f"since {old}:" in part and "predate HEAD's judging" in part, part
        power = _section(text, "Detection power on recorded windows (power)")
        assert "commit 0000000 is not in this repository's history" in power, power
    finally:
        shutil.rmtree(tmp)


def test_a_missing_source_names_the_target_that_writes_it():
    tmp = tempfile.mkdtemp(prefix="rtt-evidence-")
    try:
        text = _evidence(tmp)
        for source, pattern in (("soak", "soak-*/soak.json"), ("mutants", "mutants/*/table.json"),
                                ("matrix", "matrix/*/matrix.json"), ("bench", "bench-*.json")):
            assert f"- No {source} results: no `results/{pattern}`. `make {source}` writes them." in text, text
        assert "`make power` writes them" in text, text
        assert "**Warning**" not in text
    finally:
        shutil.rmtree(tmp)
