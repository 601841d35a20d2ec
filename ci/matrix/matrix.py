#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make matrix`: rtthrottle on several Debian kernels, side by side.

For each kernel of the list (ci/kernels.list: label, series, flavour) it fetches the newest
matching linux-image package with apt-get (cached in --cache; for `label series flavour
suite:NAME`, from Debian's sid or experimental through a private apt configuration in
--archive-dir, the host's apt untouched; from 7.x the image's linux-binary- and linux-base-
packages), or, for a kernel named
`label series source:CONFIG [PATCH...]`, builds Debian's linux-source-<series> with the config
fragments ci/kconfig/base.config + CONFIG.config and the patches (cached in --kernel-cache by
source version, fragment and patch hashes), boots it under QEMU with a
busybox initramfs holding rtthrottle and cyclictest with their libraries, runs `rtthrottle run` inside and brings the
results back over the serial console (framed, sha256-checked). Writes into --out/<run>/:
<label>.json (the guest's results file), <label>.console.log, matrix.json (per kernel: package,
status, guest facts, figures, failed checks), table.txt and matrix.png.

A kernel that cannot be fetched (no network, no such package) is skipped with why; a boot
failure, a timeout or a missing or corrupt results file is reported for its kernel and the next
kernel boots. Exit status: 0 every kernel not skipped ran and passed every check, 1 otherwise,
2 bad usage. Guests run one at a time under flock /tmp/rtt-machine.lock (--no-lock when the
caller holds it). Progress on stderr. With --lab the guests are jobs on a LAVA lab, all at once
(ci/lava/lab.py, doc/lava-lab.md): the same files and table; 2 when the lab cannot be used.
"""
import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lava"))
import archive  # noqa: E402
import guest  # noqa: E402
import kbuild  # noqa: E402
import lab  # noqa: E402
import summary  # noqa: E402

DEFAULT_LIST = os.path.join(guest.ROOT, "ci", "kernels.list")
DEFAULT_CACHE = "/var/cache/rtthrottle-matrix"


def add_guest_options(p, out_default):
    """The options of booting guests, shared with ci/mutants/run.py."""
    p.add_argument("--kernel-cache", default=kbuild.DEFAULT_CACHE,
                   help=f"source trees and built images of kernels built from source (default {kbuild.DEFAULT_CACHE})")
    p.add_argument("--out", default=out_default,
                   help=f"results folder; each run gets a <UTC time> folder in it (default {os.path.relpath(out_default, guest.ROOT)})")
    p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg",
                   help="QEMU accelerator (default tcg: software emulation, works everywhere)")
    p.add_argument("--timeout", type=float, default=900, help="seconds per guest, boot included (default 900)")
    p.add_argument("--boot-timeout", type=float, default=180,
                   help="seconds until the guest init must have started (default 180)")
    p.add_argument("--boot-retries", type=int, default=1, metavar="N",
                   help="boots more after a boot failure (default 1: the emulator now and then crashes a kernel "
                        "while it patches its own code at boot); every attempt is recorded")
    p.add_argument("--no-lock", action="store_true", help="do not take /tmp/rtt-machine.lock (the caller holds it)")
    p.add_argument("--binary", default=guest.DEFAULT_BINARY,
                   help="rtthrottle for the guests (default build/rtthrottle: make; it goes in with the "
                        "libraries ldd lists; a static one, make static, has no sched_switch trace)")
    p.add_argument("rtt_args", nargs="*", help=argparse.SUPPRESS)
    lab.add_options(p)


def check_guest_options(p, args):
    if args.boot_retries < 0:
        p.error(f"--boot-retries: {args.boot_retries} is below 0")
    if args.timeout <= 0 or args.boot_timeout <= 0:
        p.error(f"--timeout {args.timeout:g} / --boot-timeout {args.boot_timeout:g}: seconds above 0")
    args.rtt_args = args.rtt_args or ["--suite", "quick"]
    if "--output" in args.rtt_args:
        p.error("--output is chosen by the guest init; leave it out")
    lab.check_options(p, args)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ci/matrix/matrix.py", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Arguments after -- go to `rtthrottle run` in every guest "
                                       "(default: --suite quick).")
    p.add_argument("--list", default=DEFAULT_LIST, help="kernel list (default ci/kernels.list; "
                   "ci/kernels-source.list names kernels built from Debian's linux-source)")
    p.add_argument("--kernels", help="comma-separated labels of the list to run (default: all)")
    p.add_argument("--cache", default=DEFAULT_CACHE, help=f"package cache (default {DEFAULT_CACHE})")
    p.add_argument("--archive-dir", default=archive.DEFAULT_ROOT,
                   help="private apt configuration, lists and packages for the kernels of suite:NAME "
                        f"({', '.join(archive.SUITES)}; default {archive.DEFAULT_ROOT})")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="run every kernel N times (labels LABEL.rep1 .. LABEL.repN; default 1)")
    add_guest_options(p, os.path.join(guest.ROOT, "results", "matrix"))
    args = p.parse_args(argv)
    check_guest_options(p, args)
    if not 1 <= args.repeat <= 20:
        p.error(f"--repeat: {args.repeat} is outside 1..20")
    return args


# A kernel parameter a list line may add to the guest's command line (boot:PARAM): a name with
# an optional value, no blanks or quotes (QEMU's -append is one string the kernel splits).
BOOT_PARAM = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*(?:=[A-Za-z0-9_.,:/+-]+)?$")
# Parameters the guest needs as guest.APPEND sets them, or that would replace its init.
RESERVED_BOOT_PARAMS = {w.split("=", 1)[0] for w in guest.APPEND.split()} | {"init", "rdinit"}


def boot_param_error(param):
    """Why param cannot go on the guest's command line ('' when it can)."""
    if not BOOT_PARAM.match(param):
        return f"boot:{param}: want boot:NAME or boot:NAME=VALUE (letters, digits, _ . , : / + -)"
    name = param.split("=", 1)[0]
    if name in RESERVED_BOOT_PARAMS:
        return f"boot:{param}: {name} is the guest's own ({guest.APPEND}; init, rdinit)"
    return ""


def list_line(words):
    """(kernel, '') of a line of the list, or (None, why not). A kernel is 'label series flavour'
    (a Debian package the host's apt knows) or 'label series source:CONFIG [PATCH...]' (built
    from linux-source-<series> with ci/kconfig/CONFIG.config), each with optional words:
    suite:NAME (the package, or for source: linux-source-<series>, from Debian's NAME through
    the private apt) and boot:PARAM, one or more (kernel parameters added to the guest's)."""
    if len(words) < 3:
        return None, "want at least label, series and flavour or source:CONFIG"
    k = dict(zip(("label", "series", "flavour"), words[:3]))
    rest = []
    for w in words[3:]:
        if w.startswith("suite:"):
            suite = w[len("suite:"):]
            if suite not in archive.SUITES or "suite" in k:
                return None, f"{w}: suite:NAME once, NAME one of {', '.join(archive.SUITES)}"
            k["suite"] = suite
        elif w.startswith("boot:"):
            why = boot_param_error(w[len("boot:"):])
            if why:
                return None, why
            k.setdefault("boot_args", []).append(w[len("boot:"):])
        else:
            rest.append(w)
    if words[2].startswith("source:"):
        k["config"] = words[2][len("source:"):]
        k["patches"] = [p if os.path.isabs(p) else os.path.join(guest.ROOT, p) for p in rest]
        if not k["config"]:
            return None, "source: names no config"
    elif rest:
        return None, f"{rest[0]}: a packaged kernel takes no patches"
    return k, ""


def parse_list_line(words):
    """The kernel of a line of the list (list_line()), None when the line is not one."""
    return list_line(words)[0]


def usage_error(message):
    """Bad usage (a list line, a label, a list file): the message on stderr, exit status 2."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def read_list(path, only):
    kernels = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                words = line.split("#", 1)[0].split()
                if not words:
                    continue
                k, why = list_line(words)
                if k is None:
                    usage_error(f"matrix: {path}:{n}: {why}; want 'label series flavour [suite:NAME] "
                                f"[boot:PARAM...]' (NAME: {', '.join(archive.SUITES)}) or 'label series "
                                f"source:CONFIG [suite:NAME] [boot:PARAM...] [PATCH...]', got {line.strip()!r}")
                kernels.append(k)
    except OSError as exc:
        usage_error(f"matrix: {path}: {exc.strerror}")
    if only:
        wanted = only.split(",")
        unknown = [w for w in wanted if w not in {k["label"] for k in kernels}]
        if unknown:
            usage_error(f"matrix: --kernels: {', '.join(unknown)} not in {path} "
                             f"(labels: {', '.join(k['label'] for k in kernels)})")
        kernels = [k for k in kernels if k["label"] in wanted]
    return kernels


def parse_facts(text):
    facts = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        facts[key] = value
    return facts


def private_apt(args):
    """The run's archive.PrivateApt (one apt-get update a run)."""
    if getattr(args, "apt", None) is None:
        args.apt = archive.PrivateApt(getattr(args, "archive_dir", archive.DEFAULT_ROOT))
    return args.apt


def kernel_image(k, args, entry):
    """(vmlinuz, config) of a kernel of the list: a Debian package fetched with apt, or a build
    of linux-source with a config and patches. Raises guest.MatrixError."""
    if "config" in k:
        apt = None
        if "suite" in k:
            # linux-source-<series> of a suite the host does not carry: downloaded and unpacked, not installed.
            apt = archive.for_suite(private_apt(args), k["suite"])
        built = kbuild.build(k["series"], k["config"], k.get("patches") or (), args.kernel_cache,
                             getattr(args, "jobs", None), apt)
        entry["package"] = f"{built['source_package']} {built['source_version']}"
        entry["build"] = {key: built[key] for key in ("key", "config", "fragments", "patches", "release", "cached",
                                                        "build_s")}
        return built["vmlinuz"], built["config_path"]
    if "suite" not in k:
        entry["package"] = guest.resolve(k["series"], k["flavour"])
        return guest.fetch(entry["package"], args.cache)
    apt = archive.for_suite(private_apt(args), k["suite"])
    entry["package"] = guest.resolve(k["series"], k["flavour"], apt)
    return guest.fetch(entry["package"], apt.packages, apt)


def fetch_kernel(k, args):
    """(entry of matrix.json, vmlinuz, config) of a kernel of the list, fetched or built; a kernel
    that cannot be is (entry with its status and why, None, None)."""
    entry = {"label": k["label"], "series": k["series"], "flavour": k["flavour"], "accel": args.accel}
    if "suite" in k:
        entry["suite"] = k["suite"]
    if k.get("boot_args"):
        entry["boot_args"] = k["boot_args"]
    try:
        vmlinuz, config = kernel_image(k, args, entry)
        entry["vmlinuz"] = os.path.basename(vmlinuz)
        return entry, vmlinuz, config
    except (guest.MatrixError, subprocess.SubprocessError, OSError) as exc:
        # A kernel that cannot be fetched (no network, no such package) is skipped with why.
        entry.update(status="build-failure" if "config" in k else "skipped",
                     reason=str(exc) if "config" in k else f"not fetched: {exc}")
        return entry, None, None


def run_kernel(k, args, run_dir, base):
    """Fetches (or builds), boots and collects one kernel; returns its entry of matrix.json."""
    entry, vmlinuz, config = fetch_kernel(k, args)
    if vmlinuz is None:
        return entry
    try:
        initrd = guest.kernel_initramfs(os.path.join(run_dir, "work"), base, config, k["label"])
    except (subprocess.SubprocessError, OSError) as exc:
        entry.update(status="skipped", reason=f"no initramfs: {exc}")
        return entry
    return boot_kernel(k["label"], vmlinuz, initrd, args, run_dir, entry)


def run_kernels(kernels, args, run_dir, base):
    """Every kernel's entry: booted here one after another, or with --lab fetched (or built) here
    and run as jobs on the lab at once (ci/lava/lab.py). Raises lab.LabError."""
    if args.lab:
        # The lab, its token and device type are checked before any kernel is fetched or built.
        connection = lab.connect(args)
        entries, items = [], []
        for k in kernels:
            entry, vmlinuz, config = fetch_kernel(k, args)
            entries.append(entry)
            if vmlinuz is not None:
                items.append({"label": k["label"], "vmlinuz": vmlinuz, "config": config, "entry": entry,
                              "boot_args": k.get("boot_args") or [],
                              "kernel_name": entry.get("package") or os.path.basename(vmlinuz)})
            else:
                guest.log(f"{k['label']}: {entry['status']} ({entry['reason']})")
        if items:
            lab.run(connection, items, args, run_dir, collect)
        return entries
    entries = []
    for i, k in enumerate(kernels, 1):
        guest.log(f"[{i}/{len(kernels)}] {k['label']} ({k['series']} {k['flavour']})")
        entry = run_kernel(k, args, run_dir, base)
        entries.append(entry)
        failed = len(entry.get("failed_checks") or [])
        guest.log(f"{k['label']}: {entry['status']}" + (f" ({entry['reason']})" if entry.get("reason") else "")
                  + (f", {failed} failed check(s)" if entry["status"] == "ok" else "")
                  + (f", {entry['wall_s']} s" if "wall_s" in entry else ""))
    return entries


def repeated(kernels, n):
    """The list with each kernel n times, labelled LABEL.rep1 .. LABEL.repN (n 1: as it is)."""
    if n == 1:
        return kernels
    return [dict(k, label=f"{k['label']}.rep{i}") for k in kernels for i in range(1, n + 1)]


def boot_kernel(label, vmlinuz, initrd, args, run_dir, entry):
    """Boots one guest (again after a boot failure, --boot-retries) and fills entry with its
    status, guest facts and, from its results file <label>.json, figures and failed checks."""
    log_path = os.path.join(run_dir, f"{label}.console.log")
    entry["boot_failures"] = []
    for attempt in range(1 + args.boot_retries):
        guest.log(f"{label}: booting {os.path.basename(vmlinuz)} ({args.accel})" +
                  (f", attempt {attempt + 1}" if attempt else ""))
        console, status, reason, wall = guest.boot(label, vmlinuz, initrd, args.accel, args.timeout,
                                                   args.boot_timeout, log_path, lock=not args.no_lock,
                                                   boot_args=entry.get("boot_args") or ())
        if status != "boot-failure" or attempt == args.boot_retries:
            break
        # Kept beside the next attempt's log, and named in matrix.json.
        kept = os.path.join(run_dir, f"{label}.boot{attempt + 1}.console.log")
        os.replace(log_path, kept)
        entry["boot_failures"].append({"reason": reason, "console_log": os.path.basename(kept)})
        guest.log(f"{label}: boot failure ({reason[:120]}); booting again")
    return collect(label, console, status, reason, wall, run_dir, entry)


def collect(label, console, status, reason, wall, run_dir, entry):
    """Fills entry from what one guest sent (a guest.Console fed with its console, here from QEMU,
    for a lab from the LAVA job's log): status, guest facts, and from its results file
    <label>.json (written into run_dir) the figures and failed checks."""
    entry.update(status=status, reason=reason, wall_s=round(wall, 1), guest_exit=console.done)
    if "facts.txt" in console.files:
        entry["guest"] = parse_facts(console.files["facts.txt"].decode("utf-8", "replace"))
    if "dmesg.txt" in console.files:
        entry["dmesg"] = console.files["dmesg.txt"].decode("utf-8", "replace").splitlines()[-40:]
    if "record.tar.gz" in console.files:
        # The window recordings of a run given --record /tmp/record: `rtthrottle judge` reads them.
        with open(os.path.join(run_dir, f"{label}.record.tar.gz"), "wb") as f:
            f.write(console.files["record.tar.gz"])
        entry["record"] = f"{label}.record.tar.gz"
    if status == "ok":
        data = console.files.get("results.json")
        try:
            doc = json.loads(data) if data else None
        except ValueError as exc:
            doc, entry["reason"] = None, f"results.json is not JSON: {exc}"
        if doc is None:
            entry["status"] = "no-results"
            entry["reason"] = entry["reason"] or "the guest sent no results.json " \
                f"(rtthrottle exited {console.done}; see {label}.console.log)"
        else:
            with open(os.path.join(run_dir, f"{label}.json"), "wb") as f:
                f.write(data)
            if not (doc.get("run") or {}).get("complete"):
                entry["status"] = "incomplete"
                entry["reason"] = (doc.get("run") or {}).get("stop_reason") or \
                    f"rtthrottle exited {console.done} before judging (see {label}.console.log)"
            entry["figures"] = summary.figures(doc)
            entry["failed_checks"] = summary.failed_checks(doc)
    return entry


def main(argv):
    args = parse_args(argv)
    # SIGTERM/SIGHUP unwind like Ctrl-C, so the running guest is killed on the way out.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    kernels = repeated(read_list(args.list, args.kernels), args.repeat)
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"matrix: {args.binary}: no rtthrottle binary (make)")
    run = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_dir = os.path.join(args.out, run)
    os.makedirs(os.path.join(run_dir, "work"))
    # A lab's guests get the ramdisk without arguments (the job runs rtthrottle): lab.py builds it.
    base = None if args.lab else guest.base_initramfs(os.path.join(run_dir, "work"), args.binary, args.rtt_args)
    guest.log(f"{len(kernels)} kernel(s), rtthrottle run {' '.join(args.rtt_args)}"
              + (f" on the lab {args.lab_name}" if args.lab else "") + f"; results in {run_dir}")
    try:
        entries = run_kernels(kernels, args, run_dir, base)
    except lab.LabError as exc:
        guest.log(f"lab: {exc}; no table written")
        return 2 if exc.usage else 1
    doc = {"run": run, "rtthrottle_args": args.rtt_args, "kernels": entries}
    if args.lab:
        doc["lab"] = {"url": args.lab_url, "device_type": args.device_type}
    with open(os.path.join(run_dir, "matrix.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    table = summary.table(entries)
    print(table)
    with open(os.path.join(run_dir, "table.txt"), "w") as f:
        f.write(table + "\n")
    plot = summary.plot(entries, os.path.join(run_dir, "matrix.png"), run)
    subprocess.run(["rm", "-rf", os.path.join(run_dir, "work")], check=False)
    guest.log(f"wrote {run_dir}/matrix.json, table.txt" + (", matrix.png" if plot else ""))
    ok = all(e["status"] in ("ok", "skipped") and not e.get("failed_checks") for e in entries)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
