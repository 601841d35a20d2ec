#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""One step of `git bisect run` on a kernel tree: build it, boot it, run rtthrottle.

Run from the kernel tree being bisected (ci/bisect-step.sh is the entry point). Configures the
tree with `make tinyconfig` + ci/kconfig/base.config + the --config fragment (again only when
the fragments change), builds bzImage in place, boots it under QEMU with a busybox initramfs
and a static rtthrottle like `make matrix`, runs `rtthrottle run` with the arguments after --
(default: --scenario fifo-hog-share --policy default,half) and exits with what git bisect run
understands: 0 good (every check passed), 1 bad (a check failed), 125 skip (the tree does not
build, the kernel does not boot or time out, or rtthrottle could not judge: exit 125, an
error, a skipped result). Console log and results file go to --out (default
/tmp/rtthrottle-bisect/<commit>). With --lab the boot is a job on that LAVA lab (ci/lava/lab.py):
a job LAVA ends incomplete is a skip; a lab that cannot be used stops the bisection (128).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lava"))
import guest  # noqa: E402
import kbuild  # noqa: E402
import lab  # noqa: E402

GOOD, BAD, SKIP = 0, 1, 125
DEFAULT_RUN = ["--scenario", "fifo-hog-share", "--policy", "default,half"]


def say(msg):
    print(f"bisect-step: {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ci/bisect-step.sh", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Arguments after -- go to `rtthrottle run` in the guest (default: "
                                       f"{' '.join(DEFAULT_RUN)}). Exit status: 0 good, 1 bad, 125 skip "
                                       "(git bisect run's meanings); bad usage exits 128, not 2: git bisect "
                                       "run would take 2 as 'bad', while a status above 127 stops the bisection.")
    p.add_argument("--tree", default=os.getcwd(), help="the kernel tree (default: the current folder)")
    p.add_argument("--config", default="rt-group",
                   help="config fragment ci/kconfig/<CONFIG>.config on top of base.config (default rt-group)")
    p.add_argument("--jobs", type=int, default=os.cpu_count(), help="make -j (default: CPUs)")
    p.add_argument("--out", help="folder for the console log and results (default /tmp/rtthrottle-bisect/<commit>)")
    p.add_argument("--timeout", type=float, default=600, help="seconds for the guest, boot included (default 600)")
    p.add_argument("--boot-timeout", type=float, default=180, help="seconds until the guest init starts (default 180)")
    p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg", help="QEMU accelerator (default tcg)")
    p.add_argument("--no-lock", action="store_true", help="do not take /tmp/rtt-machine.lock (the caller holds it)")
    p.add_argument("--binary", default=os.path.join(guest.ROOT, "build-static", "rtthrottle"),
                   help="static rtthrottle for the guest (default build-static/rtthrottle: make static)")
    p.add_argument("rtt_args", nargs="*", help=argparse.SUPPRESS)
    lab.add_options(p)
    args = p.parse_args(argv)
    if not os.path.isfile(os.path.join(args.tree, "Makefile")) or \
            not os.path.isdir(os.path.join(args.tree, "kernel", "sched")):
        p.error(f"--tree {args.tree}: not a kernel source tree (no Makefile and kernel/sched/)")
    try:
        args.fragments = kbuild.fragments(args.config)
    except guest.MatrixError as exc:
        p.error(f"--config: {exc}")
    if args.jobs < 1 or args.timeout <= 0 or args.boot_timeout <= 0:
        p.error("--jobs, --timeout and --boot-timeout must be above 0")
    if not os.access(args.binary, os.X_OK):
        p.error(f"--binary {args.binary}: no static rtthrottle (make static)")
    args.rtt_args = args.rtt_args or DEFAULT_RUN
    if "--output" in args.rtt_args:
        p.error("--output is chosen by the guest init; leave it out")
    lab.check_options(p, args)
    return args


def verdict(status, guest_exit):
    """git bisect run's answer from the guest's status and rtthrottle's exit status."""
    if status != "ok" or guest_exit is None:
        return SKIP          # no boot, a timeout, a corrupt console: this commit cannot be judged
    if guest_exit in (GOOD, BAD):
        return guest_exit
    return SKIP              # 125 not judged, 2 usage, 4 all skipped, 128+N stopped


def lab_boot(connection, commit, vmlinuz, config, release, args, out):
    """The boot as one lab job: (console, status, reason, wall) as guest.boot gives them; the
    job's log in out/<commit>.lava.log and its console in out/<commit>.console.log."""
    got = {}

    def keep(label, console, status, reason, wall, run_dir, entry):
        got.update(console=console, status=status, reason=reason, wall=wall)
        return entry

    lab.run(connection, [{"label": commit, "vmlinuz": vmlinuz, "config": config, "kernel_name": release,
                          "entry": {}}], args, out, keep)
    return got["console"], got["status"], got["reason"], got["wall"]


def commit_of(tree):
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def main(argv):
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        # git bisect run aborts on statuses above 127: a usage error must stop the bisection.
        return 128 if exc.code else 0
    commit = commit_of(args.tree)
    connection = None
    if args.lab:
        try:
            connection = lab.connect(args)
        except lab.LabError as exc:
            say(f"lab: {exc}; stopping the bisection")
            return 128
    out = args.out or os.path.join("/tmp", "rtthrottle-bisect", commit)
    os.makedirs(out, exist_ok=True)
    build_log = os.path.join(out, "build.log")
    with open(build_log, "w") as log_file:
        try:
            kbuild.configure(args.tree, args.fragments, log_file)
        except guest.MatrixError as exc:
            say(f"{commit}: configuring failed: {exc}; skip")
            return SKIP
        say(f"{commit}: building bzImage (-j{args.jobs}; log {build_log})")
        if kbuild.run(["make", f"-j{args.jobs}", "bzImage"], args.tree, log_file) != 0:
            say(f"{commit}: the build failed; skip ({kbuild.tail(build_log, 3)})")
            return SKIP
    release = subprocess.run(["make", "-s", "kernelrelease"], cwd=args.tree, capture_output=True,
                             text=True).stdout.strip() or "unknown"
    config = os.path.join(out, f"config-{release}")
    with open(os.path.join(args.tree, ".config"), "rb") as src, open(config, "wb") as dst:
        dst.write(src.read())
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    vmlinuz = os.path.join(args.tree, "arch", "x86", "boot", "bzImage")
    if connection is not None:
        say(f"{commit}: {release} as a job on {args.lab_name}, rtthrottle run {' '.join(args.rtt_args)}")
        try:
            console, status, reason, wall = lab_boot(connection, commit, vmlinuz, config, release, args, out)
        except lab.LabError as exc:
            say(f"lab: {exc}; stopping the bisection")
            return 128
    else:
        base = guest.base_initramfs(work, args.binary, args.rtt_args)
        initrd = guest.kernel_initramfs(work, base, config, "bisect")
        say(f"{commit}: booting {release}, rtthrottle run {' '.join(args.rtt_args)}")
        console, status, reason, wall = guest.boot(commit, vmlinuz, initrd, args.accel, args.timeout,
                                                   args.boot_timeout, os.path.join(out, "console.log"),
                                                   lock=not args.no_lock)
    if "results.json" in console.files:
        with open(os.path.join(out, "results.json"), "wb") as f:
            f.write(console.files["results.json"])
    answer = verdict(status, console.done)
    say(f"{commit}: guest {status}{' (' + reason + ')' if reason else ''}, rtthrottle exited {console.done}, "
        f"{wall:.0f} s: {dict([(GOOD, 'good'), (BAD, 'bad'), (SKIP, 'skip')])[answer]} (results in {out})")
    return answer


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
