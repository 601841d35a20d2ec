#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""rtthrottle's guests as jobs on a LAVA lab's scheduler, instead of one QEMU after another.

`make matrix LAB=...`, `make mutants LAB=...` and `ci/bisect-step.sh --lab ...` hand their kernels
to run(): for each kernel (and repetition) it builds the matrix ramdisk without arguments (its
init gives LAVA a shell), renders ci/lava/lab-job.yaml.jinja2 for the device type, submits the
jobs through the lab's REST API, follows them with progress and an ETA on stderr, and reads each
job's test cases and log: the results file comes back framed on the console, parsed by
ci/matrix/guest.py's Console; ci/matrix/matrix.py then writes the same files and table as a
local run. A job LAVA ends incomplete (a timeout, a failed boot) is `unjudged` with LAVA's
reason; a cancelled job's results are not used; an interrupted run cancels its jobs and writes
no table. A lab that cannot be reached, a refused token or a device type the lab does not have
exits 2 naming it.

Run alone, this file checks a lab (`check`) or prints the job one kernel would get (`render`).
"""
import argparse
import math
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.path.insert(0, HERE)
import guest  # noqa: E402
import lab_collect  # noqa: E402
import lab_identity  # noqa: E402
import lab_job  # noqa: E402
from lab_api import Lab, LabError  # noqa: E402
from lab_follow import Follower, log  # noqa: E402

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def add_options(p):
    """The lab options of make matrix, make mutants and the bisect step."""
    g = p.add_argument_group("LAVA lab (doc/lava-lab.md)")
    g.add_argument("--lab", metavar="URL|IDENTITY|local",
                   help="run the guests as jobs on this LAVA lab: its URL, an identity of lavacli's "
                        f"~/.config/lavacli.yaml, or '{lab_identity.LOCAL}' (the lab `make lab` stands up)")
    g.add_argument("--lab-token", help="the lab's API token (default: the lavacli identity's)")
    g.add_argument("--device-type", default="qemu",
                   help=f"LAVA device type of the jobs ({', '.join(lab_job.DEVICE_TYPES)}; default qemu)")
    g.add_argument("--artifact-dir", help="a lab not on this machine: folder a web server publishes, where the "
                                          "kernels and ramdisks are copied")
    g.add_argument("--artifact-url", help="the URL the lab's workers download --artifact-dir's files from")
    g.add_argument("--poll", type=float, default=10, help="seconds between looks at the jobs (default 10)")
    g.add_argument("--lab-patience", type=float, default=300,
                   help="seconds the lab may not answer while jobs run before the run gives up (default 300)")


def check_options(p, args):
    """Resolves --lab into args.lab_url, args.lab_token, args.lab_name; exits 2 on bad input."""
    if not args.lab:
        return
    try:
        args.lab_url, args.lab_token, args.lab_name = lab_identity.resolve(args.lab, args.lab_token)
    except (lab_identity.IdentityError, OSError) as exc:
        p.error(str(exc))
    except Exception as exc:  # a lavacli.yaml that does not parse  # noqa: BLE001
        p.error(f"{lab_identity.identities_path()}: {exc}")
    if args.device_type not in lab_job.DEVICE_TYPES:
        p.error(f"--device-type {args.device_type}: the job template knows {', '.join(lab_job.DEVICE_TYPES)}")
    if bool(args.artifact_dir) != bool(args.artifact_url):
        p.error("--artifact-dir and --artifact-url go together")
    if not args.artifact_url and not is_local(args.lab_url):
        p.error(f"--lab {args.lab_name}: not on this machine, so its workers cannot read file:// URLs: "
                "give --artifact-dir and --artifact-url")
    if args.poll <= 0 or args.lab_patience <= 0:
        p.error("--poll and --lab-patience: seconds above 0")


def is_local(url):
    return urllib.parse.urlparse(url).hostname in LOCAL_HOSTS


def connect(args):
    """The lab, after checking the token and that it has --device-type with devices; LabError
    (usage) when not."""
    lab = Lab(args.lab_url, args.lab_token)
    user = lab.whoami()
    if not user:
        raise LabError(f"{args.lab_url}: no token (or a token of no user): jobs cannot be submitted "
                       "(--lab-token, or a lavacli identity with a token)", usage=True)
    types = lab.device_types()
    if args.device_type not in types:
        raise LabError(f"{args.lab_url}: unknown device type {args.device_type!r} "
                       f"(the lab has: {', '.join(sorted(types)) or 'none'})", usage=True)
    devices = [d for d in lab.devices() if d.get("device_type") == args.device_type
               and d.get("health") not in ("Retired", "Bad", "Maintenance")]
    log(f"{args.lab_name}: user {user}, {len(devices)} {args.device_type} device(s) "
        f"({', '.join(d.get('hostname', '?') for d in devices)})")
    if not devices:
        raise LabError(f"{args.lab_url}: no {args.device_type} device in service", usage=True)
    args.lab_devices = len(devices)
    return lab


def job_minutes(args):
    """(job, test) minutes from the per-guest --timeout: the test gets it, deploy and boot get 10 more."""
    test = max(math.ceil(args.timeout / 60), 1)
    return test + 10, test


def write_jobs(items, args, run_dir):
    """Each item's ramdisk (and for x86 its root tarball) published and its job rendered; the
    job definitions as <label>.job.yaml in run_dir."""
    artifacts = lab_job.Artifacts(args.artifact_dir, args.artifact_url)
    total, test = job_minutes(args)
    run = os.path.basename(run_dir)
    for it in items:
        work = os.path.join(run_dir, "work", it["label"])
        os.makedirs(work, exist_ok=True)
        # One archive with the config in it: LAVA unpacks only the first of concatenated ones.
        ramdisk = guest.base_initramfs(work, args.binary, None, it.get("config"))
        fields = {"label": it["label"], "kernel_name": it["kernel_name"], "run_args": " ".join(args.rtt_args),
                  "job_name": f"rtthrottle {it['label']}: {it['kernel_name']}", "job_minutes": total,
                  # A list line's boot:PARAM, added to the kernel command line of either device type.
                  "boot_args": " ".join(it.get("boot_args") or []),
                  "test_minutes": test,
                  "kernel_url": artifacts.publish(it["vmlinuz"], f"{run}-{it['label']}-vmlinuz")}
        if args.device_type == "x86":
            tarball = lab_job.rootfs_tarball(ramdisk, os.path.join(work, "rootfs.tar.gz"))
            fields["rootfs_url"] = artifacts.publish(tarball, f"{run}-{it['label']}-rootfs.tar.gz")
        else:
            fields["ramdisk_url"] = artifacts.publish(ramdisk, f"{run}-{it['label']}-ramdisk.cpio")
        it["definition"] = lab_job.render(args.device_type, fields)
        with open(os.path.join(run_dir, f"{it['label']}.job.yaml"), "w") as f:
            f.write(it["definition"])


def cancel_unfinished(lab, jobs):
    for j in jobs:
        if (j.get("job") or {}).get("state") != "Finished":
            try:
                lab.cancel(j["id"])
                log(f"{j['label']}: cancelled job {j['id']}")
            except LabError as exc:
                log(f"{j['label']}: could not cancel job {j['id']}: {exc}")


def run(lab, items, args, run_dir, collect):
    """Runs items ([{label, vmlinuz, config, kernel_name, entry}]) as jobs on lab (connect()'s);
    returns their entries, each filled by collect(label, console, status, reason, wall, run_dir,
    entry) (make matrix's), with the job's lab facts under 'lab'. LabError when the lab fails."""
    write_jobs(items, args, run_dir)
    total, _ = job_minutes(args)
    # Jobs queue for the devices: the last may start after the others have used their time.
    deadline = math.ceil(len(items) / args.lab_devices) * total * 60 + 600
    jobs = []
    with guest.MachineLock(is_local(args.lab_url) and not args.no_lock):
        try:
            for it in items:
                jobs.append({"label": it["label"], "id": lab.submit(it["definition"])})
                log(f"{it['label']}: job {jobs[-1]['id']} submitted ({lab.job_url(jobs[-1]['id'])})")
            follower = Follower(lab, jobs, args.poll, args.lab_patience)
            if not follower.run(deadline):
                log(f"jobs still unfinished after {deadline} s: cancelling them")
                cancel_unfinished(lab, jobs)
        except BaseException:
            # Ctrl-C, SIGTERM or a lab that went away: no job of this run outlives it.
            try:
                cancel_unfinished(lab, jobs)
            except BaseException:  # noqa: BLE001 - already on the way out
                pass
            raise
    entries = []
    for it, j in zip(items, jobs):
        console, status, reason, wall, info = lab_collect.collect(lab, j, run_dir)
        entry = collect(it["label"], console, status, reason, wall, run_dir, it["entry"])
        entry["lab"] = info
        log(f"{it['label']}: {status}" + (f" ({reason})" if reason else "")
            + f", job {j['id']}, {info['cases'].get('pass', 0)} cases passed, "
            f"{info['cases'].get('fail', 0)} failed, {wall:.0f} s")
        entries.append(entry)
    return entries


def main(argv):
    p = argparse.ArgumentParser(prog="ci/lava/lab.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="make matrix LAB=URL and make mutants LAB=URL run their guests through "
                                       "this client (ci/matrix/matrix.py --lab, ci/mutants/run.py --lab).")
    sub = p.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="reach the lab, check the token and the device type; exit 2 when not")
    render = sub.add_parser("render", help="print the job of one kernel (nothing submitted)")
    for s in (check, render):
        s.add_argument("--lab", required=s is check, metavar="URL|IDENTITY|local")
        s.add_argument("--lab-token")
        s.add_argument("--device-type", default="qemu", choices=lab_job.DEVICE_TYPES)
    render.add_argument("--kernel-url", default="http://artifacts.example.org/vmlinuz")
    render.add_argument("--ramdisk-url", default="http://artifacts.example.org/ramdisk.cpio")
    render.add_argument("--rootfs-url", default="http://artifacts.example.org/rootfs.tar.gz")
    render.add_argument("--minutes", type=int, default=15, help="the test's minutes (default 15)")
    render.add_argument("rtt_args", nargs="*", help="rtthrottle run arguments (default --suite quick)")
    args = p.parse_args(argv)
    if args.command == "render":
        try:
            print(lab_job.render(args.device_type, {
                "label": "example", "kernel_name": "example", "job_name": "rtthrottle example",
                "kernel_url": args.kernel_url, "ramdisk_url": args.ramdisk_url, "rootfs_url": args.rootfs_url,
                "run_args": " ".join(args.rtt_args or ["--suite", "quick"]), "job_minutes": args.minutes + 10,
                "test_minutes": args.minutes}), end="")
        except lab_job.JobError as exc:
            p.error(str(exc))
        return 0
    try:
        args.lab_url, args.lab_token, args.lab_name = lab_identity.resolve(args.lab, args.lab_token)
    except lab_identity.IdentityError as exc:
        p.error(str(exc))
    try:
        connect(args)
    except LabError as exc:
        print(f"lab: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
