# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for kernel tests: run the binary, read the knobs, find realtime tasks."""
import json
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, "build", "rtthrottle")
KNOB_FILES = {
    "sched_rt_runtime_us": "/proc/sys/kernel/sched_rt_runtime_us",
    "sched_rt_period_us": "/proc/sys/kernel/sched_rt_period_us",
    "cgroup_rt_runtime_us": "/sys/fs/cgroup/cpu/cpu.rt_runtime_us",
    "cgroup_rt_period_us": "/sys/fs/cgroup/cpu/cpu.rt_period_us",
}
SCHED_FIFO, SCHED_RR, SCHED_DEADLINE = 1, 2, 6


class Skip(Exception):
    """Raised by a test that cannot run here; the message is the reason."""


def require_root():
    if os.geteuid() != 0:
        raise Skip("needs root (writes the throttling knobs, starts SCHED_FIFO tasks)")
    if not os.access(KNOB_FILES["sched_rt_runtime_us"], os.W_OK):
        raise Skip("sched_rt_runtime_us is not writable here")


def guest_ready(why_root, tools=()):
    """Before a test boots its own guest: root (why_root says what for), QEMU, cpio and tools
    installed, ci/matrix importable and build/rtthrottle built (it goes into the guest)."""
    import shutil
    import sys
    if os.geteuid() != 0:
        raise Skip(f"needs root ({why_root})")
    for tool in ("qemu-system-x86_64", "cpio") + tuple(tools):
        if not shutil.which(tool):
            raise Skip(f"{tool} not installed (ci/install-deps.sh)")
    matrix = os.path.join(ROOT, "ci", "matrix")
    if matrix not in sys.path:
        sys.path.insert(0, matrix)
    build = subprocess.run(["make", "--no-print-directory", "all"], cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, f"make failed:\n{build.stderr[-2000:]}"


def read_knobs():
    knobs = {}
    for name, path in KNOB_FILES.items():
        try:
            with open(path) as f:
                knobs[name] = int(f.read())
        except OSError:
            pass
    return knobs


def processes():
    """(pid, comm, fields after comm) of every process in /proc (fields[0] is the state)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        yield int(pid), stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()


def cfs_spinner(cpu=1, seconds=120):
    """A CFS task spinning on `cpu` that ends by itself after `seconds`: a test stopped before its
    cleanup (a signal, a CI timeout) leaves no load behind on the measured CPU for the next run."""
    code = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass"
    return subprocess.Popen(["taskset", "-c", str(cpu), "/usr/bin/python3", "-c", code], stdin=subprocess.DEVNULL)


def rt_tasks_of(comm_prefix="rtthrottle"):
    """Threads with an RT or deadline policy whose command starts with comm_prefix. A zombie's
    stat still shows its policy, but it runs nothing: it waits for a parent to reap it (a killed
    harness's hog waited 1.2-1.4 s for this container's init, past a 2 s check on a busy host)."""
    found = []
    for pid, comm, fields in processes():
        policy = int(fields[38])  # field 41 of proc(5), after pid and comm
        if fields[0] in ("Z", "X"):  # field 3, the state
            continue
        if policy in (SCHED_FIFO, SCHED_RR, SCHED_DEADLINE) and comm.startswith(comm_prefix):
            found.append((pid, comm, policy))
    return found


def run(args, timeout=300, env=None, user=None):
    """Runs rtthrottle with args; returns CompletedProcess (text)."""
    cmd = [BINARY] + list(args)
    if user:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--inh-caps=-all"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL, cwd=ROOT)


def start(args, env=None):
    """Starts rtthrottle in the background; returns Popen."""
    return subprocess.Popen([BINARY] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, stdin=subprocess.DEVNULL, cwd=ROOT)


def wait_for(predicate, timeout, step=0.02):
    """Polls predicate until true or timeout; returns the time it took or None."""
    start_time = time.monotonic()
    while time.monotonic() - start_time < timeout:
        if predicate():
            return time.monotonic() - start_time
        time.sleep(step)
    return None


def load(path):
    with open(path) as f:
        return json.load(f)


def check(results_entry, task, metric):
    """The check of one task metric in a result, or None."""
    for c in results_entry.get("checks", []):
        if c["task"] == task and c["metric"] == metric:
            return c
    return None


def result(doc, scenario, policy):
    for r in doc["results"]:
        if r["scenario"] == scenario and r["policy"]["name"] == policy:
            return r
    raise AssertionError(f"no result for {scenario}.{policy}")


def passed_or_hollow(c):
    """A check that passed, or one left unjudged because its tolerance is as wide as the regression
    it exists to catch (it could not have failed where it should: honest, never a pass)."""
    return c["verdict"] == "pass" or (c["verdict"] == "unjudged" and c["tolerance"] >= c["detects"] > 0)


def judged_or_hollow(res):
    """A result that passed, or whose only unjudged checks are hollow: tolerances the machine's
    noise (an emulator's) made as wide as the regressions they exist to catch. No check failed
    and none that applies went unmeasured. Returns the hollow checks' names."""
    assert res["verdict"] in ("pass", "unjudged"), (res["verdict"], [c for c in res["checks"] if c["verdict"] == "fail"])
    # A cross-check on a trace the guest cannot record does not apply (the static binary has no libtracefs).
    # A check whose condition does not hold here is recorded as such (not-applicable), and says why.
    for c in res["checks"]:
        assert c["verdict"] != "not-applicable" or c["rule"].startswith("not applicable: its condition"), c
    # A check on a task this system could not run (timerlat without the tracer) is skip, and says why.
    for c in res["checks"]:
        assert c["verdict"] != "skip" or " was skipped: " in c["rule"], c
    # A promise check with no period left to judge: the trace saw the machine disturb every whole
    # period of the window (promise.censored), so no figure of it was kept. Not a pass either.
    promise = res.get("promise") or {}
    all_censored = promise.get("periods") == 0 and (promise.get("censored") or {}).get("periods", 0) >= 1
    # A figure whose every span touched a disturbed period is taken away and says so (censored).
    censored = (promise.get("censored") or {}).get("periods", 0) >= 1
    hollow = [c for c in res["checks"] if c["verdict"] not in ("pass", "not-applicable", "skip") and
              not c["rule"].startswith("not measured: no trace") and
              not (all_censored and c["verdict"] == "not-measured" and c["metric"].startswith("rt_")) and
              not (censored and c["verdict"] == "not-measured" and c["rule"].startswith("not measured: censored:"))]
    for c in hollow:
        assert c["verdict"] == "unjudged" and c["tolerance"] >= c["detects"] > 0, c
    return [f"{c['task']}.{c['metric']}" for c in hollow]


def metrics(results_entry, role):
    for t in results_entry["tasks"]:
        if t["role"] == role:
            return t["metrics"]
    raise AssertionError(f"no {role} task")


TRACEFS_DIR = "/sys/kernel/tracing"


def tracefs_mounts(fstype="tracefs"):
    """The tracefs (or debugfs) mounts, as /proc/mounts lists them (source, dir, type, options)."""
    with open("/proc/mounts") as f:
        return sorted(line.split()[:4] for line in f if line.split()[2] == fstype)


def tracefs_tracers():
    """The tracers the kernel offers (tracefs's available_tracers), [] where tracefs is not mounted."""
    for where in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        try:
            with open(os.path.join(where, "available_tracers")) as f:
                return f.read().split()
        except OSError:
            pass
    return []


def tracefs_state():
    """What a run may change in tracefs: its mounts, rtthrottle-* instances and the mount marker;
    and in debugfs (which it mounts to read the RT queues): its mounts and their marker."""
    instances = []
    for _, where, _, _ in tracefs_mounts():
        try:
            instances += [os.path.join(where, "instances", n) for n in os.listdir(os.path.join(where, "instances"))
                          if n.startswith("rtthrottle-")]
        except OSError:
            pass
    state_dir = os.environ.get("RTTHROTTLE_STATE_DIR") or "/run/rtthrottle"
    return {"mounts": tracefs_mounts(), "instances": sorted(instances),
            "marker": os.path.exists(os.path.join(state_dir, "tracefs-mounted")),
            "debugfs": tracefs_mounts("debugfs"),
            "debugfs_marker": os.path.exists(os.path.join(state_dir, "debugfs-mounted"))}


def remount_tracefs(entry):
    """Mounts tracefs again as /proc/mounts described it before (source, dir, type, options)."""
    source, where, fstype, options = entry
    subprocess.run(["mount", "-t", fstype, "-o", options, source, where], check=True)
