# SPDX-License-Identifier: GPL-2.0-only
"""What one finished lab job brought back: its test cases, its log (kept as <label>.lava.log),
the guest's console out of the log fed to ci/matrix/guest.py's Console (the framed files:
facts.txt, results.json, ...), and a status in make matrix's words:

  ok          the job completed and the guest sent its files and end marker
  unjudged    LAVA ended the job incomplete (a timeout, a boot that failed, ...): LAVA's reason
  cancelled   the job was cancelled in the lab: its results are not used
  no-results  the job completed but the log holds no end marker
  corrupt     a framed file did not decode or match its size and sha256
"""
import datetime
import os

import guest
import lava

SUITE = "0_rtthrottle"   # LAVA's name of the job's first test definition, "rtthrottle"


def seconds_between(start, end):
    try:
        a = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.datetime.fromisoformat(end.replace("Z", "+00:00"))
        return max((b - a).total_seconds(), 0.0)
    except (AttributeError, ValueError):
        return 0.0


def lava_reason(job, cases):
    """Why LAVA ended a job incomplete: its failure comment, else the error of its `job` case."""
    if job.get("failure_comment"):
        return job["failure_comment"]
    for c in cases:
        if c.get("name") == "job" and c.get("result") == "fail":
            meta = c.get("metadata") or ""
            return str(meta)[:300] or "the job failed"
    return f"LAVA ended the job {str(job.get('health', '?')).lower()}"


def case_counts(lab, job_id):
    """({result: count} of the rtthrottle definition's test cases, every case)."""
    names = {s.get("id"): s.get("name") for s in lab.suites(job_id)}
    cases = lab.tests(job_id)
    for c in cases:
        c["suite_name"] = names.get(c.get("suite"), c.get("suite"))
    mine = [c for c in cases if c["suite_name"] == SUITE]
    return {r: sum(c.get("result") == r for c in mine) for r in ("pass", "fail", "skip", "unknown")}, cases


def console_of(log_text, label, run_dir):
    """A Console fed with the target lines of a LAVA job log; the lines in <label>.console.log."""
    raw = os.path.join(run_dir, f"{label}.lava.log")
    with open(raw, "w") as f:
        f.write(log_text)
    with open(os.path.join(run_dir, f"{label}.console.log"), "w") as log_file:
        console = Console(log_file, label)
        for e in lava.read_log(raw):
            if e.get("lvl") == "target" and isinstance(e.get("msg"), str):
                for line in e["msg"].split("\n"):
                    console.feed(guest.TERMINAL_CODES.sub("", line).rstrip("\r"))
    return console


class Console(guest.Console):
    """guest.Console without progress lines: the follower reports a lab's jobs."""

    def __init__(self, log_file, label):
        super().__init__(log_file, label, lambda line: False)


def collect(lab, j, run_dir):
    """(console, status, reason, wall seconds, lab facts) of one followed job j ({label, id, job})."""
    label, job = j["label"], j.get("job") or {}
    info = {"job": j["id"], "url": lab.job_url(j["id"]), "device": job.get("actual_device"),
            "health": job.get("health"), "state": job.get("state")}
    counts, cases = case_counts(lab, j["id"])
    info["cases"] = counts
    console = console_of(lab.log(j["id"]), label, run_dir)
    wall = seconds_between(job.get("start_time"), job.get("end_time"))
    health = job.get("health")
    if job.get("state") != "Finished":
        return console, "unjudged", f"job {j['id']} did not finish in time ({job.get('state')}); cancelled", wall, info
    if health == "Canceled":
        # A cancelled job's files (if any) are not mixed into the table.
        console.files.clear()
        return console, "cancelled", f"job {j['id']} was cancelled in the lab", wall, info
    if health != "Complete":
        return console, "unjudged", f"LAVA: {lava_reason(job, cases)} (job {j['id']})", wall, info
    if console.done is None:
        return console, "no-results", f"job {j['id']} completed without the guest's end marker", wall, info
    if console.bad:
        return console, "corrupt", "; ".join(console.bad), wall, info
    return console, "ok", "", wall, info
