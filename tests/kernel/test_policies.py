# SPDX-License-Identifier: GPL-2.0-only
"""fifo-hog-share under default, half and unlimited on the last CPU: the physics, with the
tolerances the results carry (derived from tick, period and the measured noise floor)."""
import os
import tempfile

import rtt

_doc = {}


# The share tolerance grows with the noise floor measured at the run's start (1 s): past this
# a hog at 1.0 would pass a check of 0.95, and the run says nothing about the policies.
MEANINGFUL_SHARE_TOL = 0.05


def _failed(doc):
    """A result or check of the run failed or erred: that run is kept and judged, never measured
    again (a failure beside an unjudged result is the finding, not noise)."""
    return any(res.get("verdict") in ("fail", "error") or
               any(c.get("verdict") == "fail" for c in res.get("checks", []))
               for res in doc.get("results", []))


def _noisy(doc):
    """The run's share tolerances too wide to tell 0.95 from 1.0, or a check left unjudged
    (its tolerance as wide as what it exists to catch), and nothing failed: the machine was busy."""
    if _failed(doc):
        return False
    for res in doc.get("results", []):
        if res.get("verdict") == "unjudged":
            return True
        for c in res.get("checks", []):
            if c.get("metric") in ("cpu_share_periods", "cpu_share") and c.get("tolerance", 0) >= MEANINGFUL_SHARE_TOL:
                return True
    return False


ATTEMPTS = 3


def _run_once():
    """One run for all three policies (3 s windows); the tests below read its results. A run
    whose measured noise made its share tolerances meaningless, and in which nothing failed, is
    taken again, up to ATTEMPTS runs in all; the last is judged (the busy machine's own verdicts:
    unjudged, never passed). A run with a failure is judged as it is."""
    if "doc" not in _doc:
        rtt.require_root()
        for attempt in range(ATTEMPTS):
            out = os.path.join(tempfile.mkdtemp(prefix="rtt-test-"), "policies.json")
            knobs_before = rtt.read_knobs()
            proc = rtt.run(["run", "--scenario", "fifo-hog-share", "--policy", "default,half,unlimited",
                            "--duration", "3", "--quiet", "--output", out])
            doc = rtt.load(out)
            _doc.update(doc=doc, proc=proc, knobs_before=knobs_before, knobs_after=rtt.read_knobs(),
                        attempts=attempt + 1)
            if not _noisy(doc):
                break
            floor = doc["noise_floor"]
            print(f"# run {attempt + 1}: noise floor lost {floor['loss_share']:.3f} of the CPU, longest gap "
                  f"{floor['gap_max_us'] / 1000:.1f} ms, tolerances too wide to judge"
                  + (": measuring again" if attempt + 1 < ATTEMPTS else ""))
    return _doc["doc"]


def _share(res, role):
    """Whole-period share when the run had two throttle gaps, else the window share.

    The whole-period figures are left out of the results when not measurable (a gap the CFS
    witness slept through is no throttle), so their absence means the window share.
    """
    m = rtt.metrics(res, role)
    return m["cpu_share_periods"] if m.get("periods_span_s", 0) > 0 else m["cpu_share"]


def _share_check(res, role):
    """The role's share check. One whose tolerance the machine's noise made too wide to tell 0.95
    from 1.0 in every run must say so (unjudged, never passed); the test then cannot judge the
    physics here and is skipped with the noise that stopped it."""
    c = rtt.check(res, role, "cpu_share_periods") or rtt.check(res, role, "cpu_share")
    assert c is not None, f"no share check for {role}"
    if c["verdict"] == "not-measured" and c["rule"].startswith("not measured: censored:"):
        assert (res.get("promise") or {}).get("censored", {}).get("periods", 0) >= 1, res.get("promise")
        raise rtt.Skip(f"{role} share not measured: the trace saw every span of whole periods disturbed "
                       f"({c['rule']})")
    if c["tolerance"] >= MEANINGFUL_SHARE_TOL:
        assert c["verdict"] == "unjudged" or c["tolerance"] < c["detects"], c
        raise rtt.Skip(f"{role} share tolerance {c['tolerance']:.4f} too wide to judge in {_doc['attempts']} runs "
                       f"(noise floor lost {_doc['doc']['noise_floor']['loss_share']:.3f} of the CPU, "
                       f"steal {res['steal_us'] / 1000:.0f} ms in the window)")
    return c


def test_default_gives_95_percent():
    doc = _run_once()
    res = rtt.result(doc, "fifo-hog-share", "default")
    c = _share_check(res, "hog")
    hog = _share(res, "hog")
    assert abs(hog - 0.95) <= c["tolerance"], f"hog share {hog:.4f} not 0.95 +- {c['tolerance']:.4f}"
    victim = _share(res, "victim")
    assert victim >= 0.04, f"victim got {victim:.4f} of the CPU, the default promises ~0.05"
    # No check failed; one the noise made as wide as its regression is unjudged, never passed.
    rtt.judged_or_hollow(res)


def test_half_gives_50_percent():
    doc = _run_once()
    res = rtt.result(doc, "fifo-hog-share", "half")
    c = _share_check(res, "hog")
    hog = _share(res, "hog")
    assert abs(hog - 0.50) <= c["tolerance"], f"hog share {hog:.4f} not 0.50 +- {c['tolerance']:.4f}"
    gap = rtt.metrics(res, "hog")["gap_max_us"]
    assert 450000 < gap < 560000, f"longest throttle gap {gap} us, half of a 1 s period is 500000"
    # No check failed; one the noise made as wide as its regression is unjudged, never passed.
    rtt.judged_or_hollow(res)


def test_unlimited_matches_detected_regime():
    doc = _run_once()
    res = rtt.result(doc, "fifo-hog-share", "unlimited")
    model = doc["kernel_model"]
    assert model["agrees"], f"regime probe disagrees with the prediction: {model['observed']['evidence']}"
    hog, victim = _share(res, "hog"), _share(res, "victim")
    if res["regime"] == "fair-server-only":
        assert abs(hog - 0.95) < 0.03, f"fair server should leave the hog ~0.95, got {hog:.4f}"
        assert victim > 0.03, f"fair server should give CFS ~0.05, got {victim:.4f}"
    elif res["regime"] == "no-limit":
        assert hog > 0.97 and victim < 0.01, f"no limit: hog {hog:.4f}, victim {victim:.4f}"
    else:
        raise AssertionError(f"unexpected regime at runtime -1: {res['regime']}")
    # No check failed; one the noise made as wide as its regression is unjudged, never passed.
    rtt.judged_or_hollow(res)


def test_knobs_restored_and_recorded():
    doc = _run_once()
    # 0, or 125 when the noise left a result unjudged after both tries: nothing failed, nothing
    # errored, and the knobs were put back either way (1 would mean one was not).
    verdicts = {r.get("verdict") for r in doc["results"]}
    assert _doc["proc"].returncode == 0 or (_doc["proc"].returncode == 125 and "unjudged" in verdicts and
                                            not verdicts & {"fail", "error"}), (verdicts, _doc["proc"].stderr[-2000:])
    assert doc["knobs_before"] == doc["knobs_after"], (doc["knobs_before"], doc["knobs_after"])
    assert doc["knobs_restored"] is True
    assert _doc["knobs_after"] == _doc["knobs_before"], (_doc["knobs_before"], _doc["knobs_after"])
    assert doc["run"]["complete"] is True
    assert doc["noise_floor"]["gap_max_us"] > 0, "noise floor not measured"


def test_ktap_output():
    _run_once()
    lines = _doc["proc"].stdout.splitlines()
    # Two results about the kernel itself come first: the regime probe and its defaults.
    assert lines[0] == "KTAP version 1" and lines[1] == "1..5", lines[:2]
    results = [line for line in lines if line.startswith(("ok ", "not ok "))]
    assert [r.split()[2] if r.startswith("ok") else r.split()[3] for r in results] == [
        "regime-probe", "kernel-defaults", "fifo-hog-share.default", "fifo-hog-share.half",
        "fifo-hog-share.unlimited"], results
    assert [int(r.split()[1 if r.startswith("ok") else 2]) for r in results] == [1, 2, 3, 4, 5], results
