# SPDX-License-Identifier: GPL-2.0-only
"""Following submitted jobs until each is finished: their states, with progress and an estimate
of the time left on stderr. A lab that stops answering for longer than `patience` seconds is a
LabError (the run cannot say what its jobs did)."""
import math
import sys
import time

from lab_api import LabError

FINISHED = "Finished"


def log(msg):
    print(f"lab: {msg}", file=sys.stderr, flush=True)


def eta_seconds(durations, running, queued, elapsed_running, parallel):
    """Seconds until the last job ends, from the finished jobs' mean duration; None before one
    has finished. Running jobs end at the mean, queued ones follow in waves of `parallel`."""
    if not durations:
        return None
    mean = sum(durations) / len(durations)
    left_running = max([mean - e for e in elapsed_running] + [0])
    waves = math.ceil(queued / max(parallel, 1))
    return left_running + waves * mean if running else waves * mean


def fmt_eta(seconds):
    if seconds is None:
        return "ETA after the first job ends"
    return f"ETA {int(seconds // 60)} min {int(seconds % 60):02d} s"


class Follower:
    """jobs: [{'label', 'id'}]; fills each with 'job' (LAVA's last answer about it)."""

    def __init__(self, lab, jobs, poll_s=10, patience=300, clock=time.monotonic, sleep=time.sleep):
        self.lab, self.jobs, self.poll_s, self.patience = lab, jobs, poll_s, patience
        self.clock, self.sleep = clock, sleep
        self.started, self.durations, self.parallel, self.last = {}, [], 1, None

    def poll(self):
        """One look at every unfinished job; False while any is not finished."""
        now = self.clock()
        for j in self.jobs:
            if (j.get("job") or {}).get("state") == FINISHED:
                continue
            job = self.lab.job(j["id"])
            before = (j.get("job") or {}).get("state")
            j["job"] = job
            if job.get("state") == "Running" and j["label"] not in self.started:
                self.started[j["label"]] = now
            if job.get("state") != before:
                log(f"{j['label']}: job {j['id']} {job.get('state')}"
                    + (f" on {job['actual_device']}" if job.get("actual_device") and job.get("state") == "Running" else "")
                    + (f", {job.get('health')}" if job.get("state") == FINISHED else ""))
            if job.get("state") == FINISHED and j["label"] in self.started:
                self.durations.append(now - self.started[j["label"]])
        running = [j for j in self.jobs if (j.get("job") or {}).get("state") in ("Running", "Canceling")]
        self.parallel = max(self.parallel, len(running))
        return all((j.get("job") or {}).get("state") == FINISHED for j in self.jobs)

    def progress(self):
        states = [(j.get("job") or {}).get("state") for j in self.jobs]
        done, running = states.count(FINISHED), states.count("Running") + states.count("Canceling")
        queued = len(states) - done - running
        now = self.clock()
        eta = eta_seconds(self.durations, running, queued,
                          [now - self.started[j["label"]] for j in self.jobs
                           if (j.get("job") or {}).get("state") == "Running" and j["label"] in self.started],
                          self.parallel)
        return f"[{done}/{len(states)} finished, {running} running, {queued} queued] {fmt_eta(eta)}"

    def run(self, deadline_s=None):
        """Polls until every job is finished (or deadline_s passes: returns False)."""
        start = last_ok = self.clock()
        shown = None
        while True:
            try:
                if self.poll():
                    log(self.progress())
                    return True
                last_ok = self.clock()
            except LabError as exc:
                if self.clock() - last_ok > self.patience:
                    raise LabError(f"{exc}; no answer for {self.patience:.0f} s while following "
                                   f"{len(self.jobs)} job(s)", usage=True) from None
                log(f"{exc}; trying again")
            line = self.progress()
            if line != shown or self.clock() - (self.last or 0) >= 60:
                log(line)
                shown, self.last = line, self.clock()
            if deadline_s is not None and self.clock() - start > deadline_s:
                return False
            self.sleep(self.poll_s)
