# SPDX-License-Identifier: GPL-2.0-only
"""The rule of `make mutants`: what a finding is, which findings catch a mutant and which are
false alarms. Pure functions of results files and `rtthrottle compare --json` tables (no guests).

A finding is a failed check in a result whose checks were judged (verdict pass or fail: not
unjudged, error or skip), or a row `rtthrottle compare` calls regressed. A mutant is caught by a
finding absent from every run of the unmodified kernel in the same `make mutants` (at least
MIN_UNMODIFIED of them for the rule to hold): a compare row also must not be regressed between
two unmodified runs, its case must be judged in the mutant's run, and its median must lie
outside the unmodified runs' values widened by their spread. Timeouts, boot failures and
results in error are run problems: reported, never a catch. A finding on an unmodified run is a
false alarm. Each mutant's header names the checks its Promise maps to (`Checks:` patterns,
fnmatch on `case: task.metric`), and each catch says whether it is one of them; a mutant that
reverts an upstream fix names that fix (`Upstream:`).
"""
import fnmatch
import re

JUDGED = ("pass", "fail")      # result verdicts whose checks were judged
MIN_UNMODIFIED = 3             # unmodified runs the rule needs


def case_name(r):
    """A result's case as `rtthrottle compare` names it: scenario.policy[.param=value], or the
    kernel result's own name (regime-probe, kernel-defaults)."""
    if r.get("name"):
        return r["name"]
    case = f"{r.get('scenario')}.{(r.get('policy') or {}).get('name')}"
    sweep = r.get("sweep")
    if sweep and isinstance(sweep.get("value"), (int, float)):
        case += f".{sweep.get('param')}={sweep['value']:g}"
    return case


def results_of(doc):
    return (doc.get("kernel_results") or []) + (doc.get("results") or [])


def num(value):
    return f"{value:.6g}" if isinstance(value, (int, float)) else "-"


def check_findings(doc):
    """One finding per failed check of a judged result (repetitions of a case count once)."""
    out, seen = [], set()
    for r in results_of(doc or {}):
        if r.get("verdict") not in JUDGED:
            continue
        case = case_name(r)
        for c in r.get("checks") or []:
            if c.get("verdict") != "fail":
                continue
            metric = f"{c.get('task')}.{c.get('metric')}"
            check = metric + (f".{c['name']}" if c.get("name") else "")
            key = f"{case}: {check} {c.get('kind')}"
            if key in seen:
                continue
            seen.add(key)
            out.append({"source": "check", "key": key, "case": case, "metric": metric, "check": check,
                        "text": f"{case}: {check} measured {num(c.get('measured'))}, expected {c.get('kind')} "
                                f"{num(c.get('expected'))}",
                        "tolerance": f"+- {num(c.get('tolerance'))} {c.get('unit') or ''}".rstrip()})
    return out


def judged_cases(doc):
    return {case_name(r) for r in results_of(doc or {}) if r.get("verdict") in JUDGED}


def run_problems(entry, doc):
    """What kept a run from being judged in full: its status (timeout, boot failure, ...) and
    each result in error. Reported beside the findings, never a catch."""
    out = []
    if entry.get("status") != "ok":
        out.append(f"{entry.get('status')}: {entry.get('reason')}")
    for r in results_of(doc or {}):
        if r.get("verdict") == "error":
            out.append(f"{case_name(r)}: error: {r.get('error')}")
    return out


def row_key(row):
    return f"{row.get('case')}: {row.get('task')}.{row.get('metric')}"


def regressed_rows(cmp_doc):
    return [row for row in (cmp_doc or {}).get("rows") or [] if row.get("verdict") == "regressed"]


def compare_finding(row):
    return {"source": "compare", "key": row_key(row), "case": row.get("case"),
            "metric": f"{row.get('task')}.{row.get('metric')}", "check": f"{row.get('task')}.{row.get('metric')}",
            "text": f"{row.get('case')}: {row.get('task')}.{row.get('metric')} {num(row.get('base_median'))} -> "
                    f"{num(row.get('new_median'))} {row.get('unit') or ''} (compare: regressed)".replace("  ", " ")}


def unmodified_summary(runs, pairs):
    """What the unmodified kernel's runs say. runs: [(label, entry, doc or None)], the first the
    base of every comparison; pairs: [(label, compare table of the first run against that one)].
    Returns {finished, labels, false_alarms: [{label, finding...}], check_keys, compare_noise,
    values: {row key: [every unmodified run's values]}}."""
    out = {"finished": 0, "labels": [label for label, _, _ in runs], "false_alarms": [], "check_keys": set(),
           "compare_noise": set(), "values": {}}
    for label, entry, doc in runs:
        if entry.get("status") == "ok" and doc is not None:
            out["finished"] += 1
        for f in check_findings(doc):
            out["check_keys"].add(f["key"])
            out["false_alarms"].append(dict(f, label=label))
    judged_base = judged_cases(runs[0][2]) if runs and runs[0][2] else set()
    for label, table in pairs:
        for row in (table or {}).get("rows") or []:
            values = out["values"].setdefault(row_key(row), [])
            if not values:
                values += row.get("base_values") or []
            values += row.get("new_values") or []
        for row in regressed_rows(table):
            out["compare_noise"].add(row_key(row))
            if row.get("case") in judged_base:
                out["false_alarms"].append(dict(compare_finding(row), label=f"{label} vs {runs[0][0]}"))
    return out


def outside_spread(row, values):
    """(outside, why): whether the mutant's median lies beyond the unmodified runs' values by
    more than their spread (at least compare's minimum effect), on the side compare calls worse."""
    values = [v for v in values if isinstance(v, (int, float))]
    new = row.get("new_median")
    if not values or not isinstance(new, (int, float)):
        return False, "no unmodified values to judge it against"
    lo, hi = min(values), max(values)
    margin = max(hi - lo, row.get("min_effect") or 0)
    above, below = new > hi + margin, new < lo - margin
    direction = row.get("direction")
    outside = above if direction == "lower" else below if direction == "higher" else above or below
    return outside, f"unmodified {num(lo)}..{num(hi)} ({len(values)} values) +- {num(margin)}"


def parse_checks(text):
    """The `Checks:` header field: comma-separated `case: task.metric` patterns."""
    return [p.strip() for p in (text or "").split(",") if p.strip()]


UPSTREAM = re.compile(r'^([0-9a-f]{12,40}) (\d{4}-\d{2}-\d{2}) "([^"]+)"$')


def parse_upstream(text):
    """The `Upstream:` header field of a mutant that reverts an upstream fix: `<commit id, 12 to
    40 hex digits> <committer date YYYY-MM-DD> "<subject>"`. {'commit', 'date', 'subject'}, None
    when the field is absent; ValueError when it is there but not of that form."""
    if text is None:
        return None
    m = UPSTREAM.match(text.strip())
    if not m:
        raise ValueError(f'Upstream: {text!r} is not <commit id> <YYYY-MM-DD> "<subject>"')
    return {"commit": m.group(1), "date": m.group(2), "subject": m.group(3)}


def matches_promise(finding, patterns):
    names = (f"{finding['case']}: {finding['check']}", f"{finding['case']}: {finding['metric']}")
    return any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)


def judge_mutant(entry, doc, cmp_doc, unmodified, patterns):
    """{'caught', 'promise' ('yes': a catch is one of the Checks patterns, 'no', '-' when not
    caught), 'first' (the finding the table shows), 'by': {checks, compare, also_unmodified,
    within_spread, not_judged, run}}."""
    by = {"checks": [], "compare": [], "also_unmodified": [], "within_spread": [], "not_judged": [],
          "run": run_problems(entry, doc)}
    for f in check_findings(doc):
        by["also_unmodified" if f["key"] in unmodified["check_keys"] else "checks"].append(f)
    judged = judged_cases(doc)
    for row in regressed_rows(cmp_doc):
        f = compare_finding(row)
        if row.get("case") not in judged:
            by["not_judged"].append(f)
        elif f["key"] in unmodified["compare_noise"]:
            by["also_unmodified"].append(f)
        else:
            outside, why = outside_spread(row, unmodified["values"].get(f["key"]) or row.get("base_values") or [])
            f["tolerance"] = why
            by["compare" if outside else "within_spread"].append(f)
    catches = by["checks"] + by["compare"]
    for f in catches:
        f["promise"] = matches_promise(f, patterns)
    promised = [f for f in catches if f["promise"]]
    return {"caught": bool(catches), "promise": ("yes" if promised else "no") if catches else "-",
            "first": (promised or catches or [None])[0], "by": by}
