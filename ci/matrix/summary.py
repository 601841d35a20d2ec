# SPDX-License-Identifier: GPL-2.0-only
"""The cross-kernel figures of a matrix run: per kernel, from its results file, the regime, what
a hog and a CFS victim got at `default` and `unlimited`, collateral latency, admin recovery;
printed as one table and drawn in the style of harness/output/rtthrottle_plot.py."""
import importlib.util
import json
import os

from guest import ROOT

POLICIES = ("default", "unlimited")


def load_plot_module():
    spec = importlib.util.spec_from_file_location("rtthrottle_plot", os.path.join(ROOT, "harness", "output", "rtthrottle_plot.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def worst(values, pick):
    values = [v for v in values if isinstance(v, (int, float))]
    return pick(values) if values else None


def per_policy(doc, scenario, fn, pick=max):
    """{policy: the worst (pick: max, or min for a share) of fn(result)} over the measured
    results of scenario (repetitions included)."""
    out = {}
    for r in doc.get("results") or []:
        if r.get("scenario") == scenario and r.get("verdict") in ("pass", "fail"):
            name = (r.get("policy") or {}).get("name")
            out.setdefault(name, []).append(fn(r))
    return {name: worst(v, pick) for name, v in out.items()}


def metric(result, role, key):
    for t in result.get("tasks") or []:
        if t.get("role") == role:
            m = t.get("metrics") or {}
            value = m.get(key)
            if key == "share":
                value = m.get("cpu_share_periods", m.get("cpu_share"))
            return value.get("max") if isinstance(value, dict) else value
    return None


def figures(doc):
    """The table's figures of one results file (None where the run did not measure them)."""
    model = doc.get("kernel_model") or {}
    observed = model.get("observed") or {}
    regimes = {}
    for r in doc.get("results") or []:
        if r.get("scenario") == "fifo-hog-share":
            regimes.setdefault((r.get("policy") or {}).get("name"), r.get("regime"))
    hog = per_policy(doc, "fifo-hog-share", lambda r: metric(r, "hog", "share"))
    victim = per_policy(doc, "fifo-hog-share", lambda r: metric(r, "victim", "share"), pick=min)
    starve = per_policy(doc, "fifo-hog-share", lambda r: metric(r, "victim", "starvation_max_us"))
    collateral = per_policy(doc, "rt-probe-collateral", lambda r: metric(r, "probe", "latency_us"))
    admin = per_policy(doc, "admin-recovery", lambda r: metric(r, "admin", "recovery_ms"))
    # The scenarios' results and those about the kernel (regime-probe, kernel-defaults).
    results = (doc.get("kernel_results") or []) + (doc.get("results") or [])
    checks = [c for r in results for c in r.get("checks") or []]
    verdicts = [r.get("verdict") for r in results]
    out = {
        "release": ((doc.get("system") or {}).get("kernel") or {}).get("release"),
        "ext_server": ext_server(doc),
        "predicted": (model.get("predicted") or {}).get("basis"),
        "agrees": model.get("agrees"),
        "hog_alone_share": observed.get("hog_alone_share"),
        "probe_victim_share_unlimited": observed.get("victim_share_unlimited"),
        "checks_passed": sum(c.get("verdict") == "pass" for c in checks),
        "checks_failed": sum(c.get("verdict") == "fail" for c in checks),
        # A check that applied but could not be measured, or whose expression could not be evaluated.
        "checks_not_measured": sum(c.get("verdict") == "not-measured" for c in checks),
        # A check whose tolerance came out as wide as what it exists to catch (a pass that could not fail).
        "checks_unjudged": sum(c.get("verdict") == "unjudged" for c in checks),
        # A check whose condition did not hold in that window (recorded, neither pass nor unjudged).
        "checks_not_applicable": sum(c.get("verdict") == "not-applicable" for c in checks),
        # A check that cannot run here through no fault of the run (no trace, a tool or tracer missing).
        "checks_skipped": sum(c.get("verdict") == "skip" for c in checks),
        # Results by verdict: an "unjudged" one had a check that applies but was not judged, or none.
        "results": {v: verdicts.count(v) for v in ("pass", "fail", "unjudged", "skip", "error")},
    }
    for p in POLICIES:
        out[p] = {
            "regime": regimes.get(p),
            "hog_share": hog.get(p),
            "victim_share": victim.get(p),
            "victim_starvation_max_ms": starve[p] / 1000 if starve.get(p) is not None else None,
            "collateral_latency_max_us": collateral.get(p),
            "admin_recovery_ms": admin.get(p),
        }
    return out


def ext_server(doc):
    """The sched_ext server (7.0+) as the guest read it: "50/1000ms", "+adm" where deadline
    admission counts it; "unread" where the model expects one debugfs did not show; "none"."""
    kernel = (doc.get("system") or {}).get("kernel") or {}
    predicted = (doc.get("kernel_model") or {}).get("predicted") or {}
    runtime, period = kernel.get("ext_server_runtime_ns"), kernel.get("ext_server_period_ns")
    if kernel.get("ext_server_readable") and runtime is not None and period:
        return f"{runtime // 1000000}/{period // 1000000}ms" + ("+adm" if predicted.get("ext_server_reserved") else "")
    return "unread" if predicted.get("ext_server") else "none"


def failed_checks(doc):
    """'scenario.policy: task.metric measured M, expected kind E +- T' for every failed check,
    'kernel-defaults: kernel.SETTING ...' for a setting off its documented default (regime-probe
    is left to the regime finding, kernel_model.agrees)."""
    out = []
    kernel = [r for r in doc.get("kernel_results") or [] if r.get("name") != "regime-probe"]
    for r in kernel + (doc.get("results") or []):
        case = r.get("name") or f"{r.get('scenario')}.{(r.get('policy') or {}).get('name')}"
        if r.get("verdict") == "error":
            out.append(f"{case}: error: {r.get('error')}")
        for c in r.get("checks") or []:
            if c.get("verdict") == "fail":
                out.append(f"{case}: {c.get('task')}.{c.get('metric')} measured {c.get('measured'):.4g}, "
                           f"expected {c.get('kind')} {c.get('expected'):.4g} +- {c.get('tolerance'):.4g} "
                           f"{c.get('unit')}")
    return out


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


COLUMNS = (  # heading, width, how to get it from (entry, figures)
    ("kernel", 8, lambda e, f: e["label"]),
    ("release", 24, lambda e, f: f.get("release") or (e.get("guest") or {}).get("release") or "-"),
    ("status", 12, lambda e, f: e["status"]),
    ("fair srv", 9, lambda e, f: fair_server(e)),
    ("ext srv", 9, lambda e, f: f.get("ext_server") or "-"),
    ("hog alone", 9, lambda e, f: fmt(f.get("hog_alone_share"), ".4f")),
)
PER_POLICY = (
    ("regime", 18, lambda f: f.get("regime") or "-"),
    ("hog", 6, lambda f: fmt(f.get("hog_share"), ".4f")),
    ("victim", 6, lambda f: fmt(f.get("victim_share"), ".4f")),
    ("starve ms", 9, lambda f: fmt(f.get("victim_starvation_max_ms"), ".1f")),
    ("coll. us", 8, lambda f: fmt(f.get("collateral_latency_max_us"), ".0f")),
    ("admin ms", 8, lambda f: fmt(f.get("admin_recovery_ms"), ".1f")),
)


def fair_server(entry):
    g = entry.get("guest") or {}
    runtime, period = g.get("fair_server_cpu1_runtime_ns"), g.get("fair_server_cpu1_period_ns")
    if not runtime or not period:
        return "none"
    return f"{int(runtime) // 1000000}/{int(period) // 1000000}ms"


def table(entries):
    """The cross-kernel table: one line per kernel and policy, failures listed below."""
    # The label column is as wide as the longest label (kernels built from source have long ones).
    columns = [(h, max([w] + [len(e["label"]) for e in entries]) if h == "kernel" else w, get) for h, w, get in COLUMNS]
    head = [h.ljust(w) for h, w, _ in columns] + ["policy".ljust(9)] + [h.rjust(w) for h, w, _ in PER_POLICY]
    lines = ["  ".join(head).rstrip(), "-" * len("  ".join(head))]
    for e in entries:
        f = e.get("figures") or {}
        for i, p in enumerate(POLICIES):
            left = [str(get(e, f)).ljust(w) if i == 0 else " " * w for _, w, get in columns]
            right = [str(get(f.get(p) or {})).rjust(w) if get else "" for _, w, get in PER_POLICY]
            right[0] = right[0].ljust(PER_POLICY[0][1])
            lines.append("  ".join(left + [p.ljust(9)] + right).rstrip())
    lines.append("ext srv: the sched_ext server (7.0+), +adm where deadline admission counts it; "
                 "hog alone: a lone FIFO hog at 950000/1000000 (regime probe); hog, victim: CPU share of a FIFO "
                 "hog and a CFS task on one CPU; starve: the victim's longest wait; coll.: wake-up latency of an "
                 "RT probe above the hog; admin: kill -9 of a runaway hog from its CPU.")
    for e in entries:
        f = e.get("figures") or {}
        if e["status"] != "ok":
            lines.append(f"{e['label']}: {e['status']}: {e.get('reason')}")
        elif f:
            r = f.get("results") or {}
            lines.append(f"{e['label']}: {f['checks_passed']} checks passed, {f['checks_failed']} failed, "
                         f"{f.get('checks_unjudged', 0)} unjudged, {f.get('checks_not_measured', 0)} not measured; "
                         f"results: {r.get('pass', 0)} pass, "
                         f"{r.get('fail', 0)} fail, {r.get('unjudged', 0)} unjudged, {r.get('skip', 0)} skipped"
                         + (f", {r['error']} error" if r.get("error") else "")
                         + ("" if f.get("agrees") in (True, None) else "; the regime probe disagrees with the model"))
        for c in e.get("failed_checks") or []:
            lines.append(f"  FAIL {e['label']} {c}")
    return "\n".join(lines)


def bar_label(value):
    if value is None:
        return "n/a"
    return f"{value:.0f}" if value >= 100 else f"{value:.2g}"


def plot(entries, path, run):
    """Four panels, kernels on the x axis, one bar per policy; None when nothing was measured."""
    measured = [e for e in entries if e.get("figures")]
    if not measured:
        return None
    rp = load_plot_module()
    plt = rp.plt
    panels = (("victim_share", "CFS victim's CPU share", "share of one CPU"),
              ("victim_starvation_max_ms", "CFS victim's longest wait", "ms"),
              ("collateral_latency_max_us", "RT probe above the hog: worst wake-up latency", "us"),
              ("admin_recovery_ms", "admin kill -9 of a runaway hog: recovery", "ms"))
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    width = 0.8 / len(POLICIES)
    for ax, (key, title, unit) in zip(axes.flat, panels):
        for i, p in enumerate(POLICIES):
            for x, e in enumerate(measured):
                f = e["figures"][p]
                value = f.get(key)
                where = x + (i - (len(POLICIES) - 1) / 2) * width
                if value is not None:
                    colour = rp.REGIME_COLOURS.get(f.get("regime"), "0.5")
                    ax.bar(where, value, width * 0.9, color=colour, hatch="//" if p == "unlimited" else None,
                           edgecolor="white")
                # The figure on every bar: a zero bar is invisible, a missing one is not zero.
                ax.annotate(bar_label(value), (where, value or 0), ha="center", va="bottom", fontsize=7,
                            xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(range(len(measured)), [e["label"] for e in measured])
        ax.set_title(title, fontsize=11)
        ax.set_ylabel(unit)
        ax.grid(alpha=0.3, axis="y")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in rp.REGIME_COLOURS.values()]
    handles += [plt.Rectangle((0, 0), 1, 1, facecolor="0.6"),
                plt.Rectangle((0, 0), 1, 1, facecolor="0.6", hatch="//", edgecolor="white")]
    labels = list(rp.REGIME_COLOURS) + ["default (950000/1000000)", "unlimited (-1)"]
    fig.legend(handles, labels, loc="upper right", fontsize=8, ncol=3)
    fig.suptitle("rtthrottle across kernels: colour = regime, hatched = runtime -1", x=0.3)
    fig.text(0.995, 0.005, f"matrix run {run} · " + ", ".join(f"{e['label']}: {e['figures'].get('release')}"
                                                             for e in measured), ha="right", fontsize=8, color="0.3")
    fig.tight_layout(rect=(0, 0.03, 1, 0.93))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def debate_markdown(run_dir):
    """The debate table of every kernel of a matrix run (its results' `debate` rows: a row per
    policy, the fair server it set) as one markdown table; for the README's trade-off tables."""
    with open(os.path.join(run_dir, "matrix.json")) as f:
        doc = json.load(f)
    lines = ["| kernel | policy | fair server | RT share | CFS starved ms | admin back ms | 90% misses "
             "| collateral ms |", "|---|---|---|---|---|---|---|---|"]

    def cell(value, spec, scale=1):
        return "-" if value is None else format(value * scale, spec)

    for k in doc.get("kernels") or []:
        try:
            with open(os.path.join(run_dir, f"{k['label']}.json")) as f:
                rows = json.load(f).get("debate") or []
        except (OSError, ValueError):
            rows = []
        for r in rows:
            admin = "never" if r.get("admin_recovered") is False else cell(r.get("admin_recovery_ms"), ".0f")
            lines.append(f"| {k['label']} | {r.get('policy')} | {r.get('fair_server')} | "
                         f"{cell(r.get('rt_share'), '.3f')} | {cell(r.get('cfs_starvation_max_ms'), '.0f')} | "
                         f"{admin} | {cell(r.get('app90_deadline_misses'), '.0f')} | "
                         f"{cell(r.get('collateral_latency_max_us'), '.1f', 1e-3)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="Tables of a matrix run folder (results/matrix/<run>/).")
    parser.add_argument("--debate", metavar="RUN_DIR", required=True,
                        help="print each kernel's debate table (policy by policy) as markdown")
    args = parser.parse_args()
    try:
        print(debate_markdown(args.debate))
    except (OSError, ValueError) as exc:
        parser.exit(2, f"summary.py: --debate {args.debate}: {exc}\n")
