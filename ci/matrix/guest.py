# SPDX-License-Identifier: GPL-2.0-only
"""Getting a Debian kernel and booting it under QEMU with rtthrottle in a busybox initramfs.

resolve() finds the newest linux-image package of a kernel series and flavour that apt knows (the
host's apt, or archive.PrivateApt's for suites the host does not carry); fetch() downloads it
once into the cache (from 7.x the linux-binary- and linux-base- packages the image depends on)
and extracts its vmlinuz and config. boot() runs one guest
with a deadline and reads the framed files the guest init sends back over the serial console.
Stdlib only (Debian /usr/bin/python3).
"""
import base64
import fcntl
import hashlib
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MACHINE_LOCK = "/tmp/rtt-machine.lock"
BUSYBOX = "/bin/busybox"
# The host's own build (libtracefs: the checks against the sched_switch trace), rt-tests'
# cyclictest and rtla (its timerlat: cyclictest-crosscheck) go into the guest with the libraries
# ldd lists for them.
DEFAULT_BINARY = os.path.join(ROOT, "build", "rtthrottle")
CYCLICTEST = "cyclictest"
RTLA = "rtla"
LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)$")
# tsc=reliable: under TCG the clocksource watchdog may find the emulated TSC unstable mid-run and
# move the kernel to a clock that costs a system call a read, which slows every measuring loop
# ~15x halfway through a run. QEMU derives the TSC of all vCPUs from one host clock.
# noirqdebug: on PREEMPT_RT the serial port's interrupt thread waits behind the FIFO hogs, the
# spurious-interrupt detector counts its unhandled interrupts and disables IRQ 4 ("Disabling IRQ
# #4"): Debian's 6.1-rt then sent no more of results.json and timed out after 900 s.
APPEND = "console=ttyS0 panic=-1 quiet tsc=reliable noirqdebug"
# A kernel message the console printed into a frame's line (printk does not wait for a line's
# end: "IC[  119.449516] Disabling IRQ #4" on Debian's 6.12-rt): the line goes on in the next.
KERNEL_MESSAGE = re.compile(r"\[\s*\d+\.\d{6}\] .*$")
FRAME_BEGIN = re.compile(r"^RTT-MATRIX-BEGIN (\S+) (\d+) ([0-9a-f]{64})$")
FRAME_DONE = re.compile(r"^RTT-MATRIX-DONE (-?\d+)$")
TERMINAL_CODES = re.compile(r"\x1b(?:c|\[[0-9;?]*[A-Za-z])")  # the firmware clears the screen
# The init's own lines. The firmware ends "Booting from ROM.." without a newline, so the init's
# first line may follow it on the same console line.
GUEST_LINE = re.compile(r"matrix-guest: ")


def log(msg):
    print(f"matrix: {msg}", file=sys.stderr, flush=True)


class MatrixError(Exception):
    """A step for one kernel failed; the message says which and why."""


# --- packages -----------------------------------------------------------------------------------

def abi_key(abi):
    return tuple(int(n) for n in re.findall(r"\d+", abi))


def apt_run(args, apt, cwd=None, timeout=600):
    """apt-get/apt-cache through the host's configuration, or apt (archive.PrivateApt)'s."""
    if apt is not None:
        return apt.run(args, cwd=cwd, timeout=timeout)
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def image_pattern(series, flavour):
    """linux-image-<abi> of series and flavour: 6.1.0-57-amd64, 6.12.118+deb12-rt-amd64,
    7.2.13+deb14-amd64, 7.3-amd64 (a release candidate: no patch level), optionally -unsigned;
    never -dbg, meta-packages or other flavours."""
    return re.compile(rf"^linux-image-({re.escape(series)}(?:\.\d+)?(?:-\d+)?(?:\+deb\d+)?)-"
                      rf"{re.escape(flavour)}(-unsigned)?$")


def resolve(series, flavour, apt=None):
    """The newest linux-image package of series (e.g. 6.1) and flavour (e.g. rt-amd64)."""
    out = apt_run(["apt-cache", "search", "--names-only", f"^linux-image-{re.escape(series)}[.-]"], apt, timeout=60)
    pattern = image_pattern(series, flavour)
    found = []
    for line in out.stdout.splitlines():
        m = pattern.match(line.split(" - ")[0].strip())
        if m:
            # Newest ABI first; for one ABI the unsigned image (the newest may exist only so).
            found.append((abi_key(m.group(1)), m.group(2) is not None, m.group(0)))
    if not found:
        where = f" in {', '.join(apt.suites)}" if apt is not None else ""
        raise MatrixError(f"no linux-image package for {series} {flavour}{where} "
                          f"(apt-cache search found none; apt-get update?)")
    return max(found)[2]


def split_packages(package, apt=None):
    """From 7.x linux-image-<abi> is an empty meta package: the kernel is in linux-binary-<abi>
    (usr/lib/modules/<abi>/vmlinuz), its config in linux-base-<abi> (usr/lib/modules/<abi>/config)
    and the modules in linux-modules-<abi>. The packages holding vmlinuz and config, read from the
    image's Depends: [package] before the split."""
    show = apt_run(["apt-cache", "show", "--no-all-versions", package], apt, timeout=60)
    depends = ""
    for line in show.stdout.splitlines():
        if line.startswith("Depends:"):
            depends = line[len("Depends:"):]
    names = [d.split()[0] for d in depends.split(",") if d.strip()]
    wanted = [n for n in names if n.startswith(("linux-binary-", "linux-base-"))]
    return sorted(wanted) if len(wanted) == 2 else [package]


def cached_deb(cache, package):
    debs = sorted(f for f in os.listdir(cache) if f.startswith(package + "_") and f.endswith(".deb"))
    return os.path.join(cache, debs[-1]) if debs else None


def download(package, cache, apt=None):
    """package's .deb in cache, downloaded once."""
    deb = cached_deb(cache, package)
    if deb:
        return deb
    log(f"downloading {package} into {cache}")
    # Root cannot hand the folder to apt's sandbox user; the download is an ordinary apt fetch.
    proc = apt_run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", package], apt, cwd=cache)
    deb = cached_deb(cache, package)
    if proc.returncode != 0 or not deb:
        raise MatrixError(f"apt-get download {package} failed: {proc.stderr.strip()[-300:]}")
    return deb


def extract(debs, where):
    """vmlinuz and config from debs into where/boot/vmlinuz-<abi>, config-<abi> (the names the
    guest's /boot and rtthrottle expect), from ./boot (before 7.x) or ./usr/lib/modules/<abi>."""
    tmp = where + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "boot"))
    for deb in debs:
        tar = subprocess.run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{tmp}' --wildcards --no-anchored "
                             "'boot/vmlinuz-*' 'boot/config-*' 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/config'",
                             shell=True, capture_output=True, text=True, timeout=300)
        # tar exits 2 when a pattern matched nothing in this package (the other one has it):
        # whether vmlinuz came out is checked below.
        if tar.returncode not in (0, 2):
            shutil.rmtree(tmp, ignore_errors=True)
            raise MatrixError(f"{deb}: extracting the kernel failed: {tar.stderr.strip()[-300:]}")
    modules = os.path.join(tmp, "usr", "lib", "modules")
    for abi in (os.listdir(modules) if os.path.isdir(modules) else []):
        for name in ("vmlinuz", "config"):
            if os.path.exists(os.path.join(modules, abi, name)):
                os.replace(os.path.join(modules, abi, name), os.path.join(tmp, "boot", f"{name}-{abi}"))
    shutil.rmtree(os.path.join(tmp, "usr"), ignore_errors=True)
    if not any(n.startswith("vmlinuz-") for n in os.listdir(os.path.join(tmp, "boot"))):
        shutil.rmtree(tmp, ignore_errors=True)
        raise MatrixError(f"{', '.join(os.path.basename(d) for d in debs)}: no boot/vmlinuz-* and no "
                          "usr/lib/modules/<abi>/vmlinuz")
    os.rename(tmp, where)


def fetch(package, cache, apt=None):
    """Downloads package (from 7.x: linux-binary- and linux-base-<abi>, which the meta package
    linux-image-<abi> depends on) into cache (once) and extracts its kernel; returns
    (vmlinuz, config)."""
    os.makedirs(cache, exist_ok=True)
    where = os.path.join(cache, package)
    boot = os.path.join(where, "boot")
    if not os.path.isdir(boot):
        parts = [package] if cached_deb(cache, package) else split_packages(package, apt)
        extract([download(p, cache, apt) for p in parts], where)
    names = os.listdir(boot)
    vmlinuz = [n for n in names if n.startswith("vmlinuz-")]
    config = [n for n in names if n.startswith("config-")]
    if not vmlinuz:
        raise MatrixError(f"{where} holds no boot/vmlinuz-*")
    return os.path.join(boot, vmlinuz[0]), os.path.join(boot, config[0]) if config else None


# --- initramfs ----------------------------------------------------------------------------------

def cpio(stage, out):
    """A newc archive of stage, owned by root (the kernel unpacks it as the root file system)."""
    names = subprocess.run("find . | sort", shell=True, cwd=stage, capture_output=True, text=True,
                           check=True).stdout
    with open(out, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=stage, input=names.encode(),
                       stdout=f, check=True)


def shared_libraries(binary):
    """The libraries ldd lists for binary, as the paths the loader finds them at (the loader
    itself included); none for a static binary."""
    proc = subprocess.run(["ldd", binary], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:       # "not a dynamic executable"
        return []
    return [m.group(1) for m in (LDD_LINE.search(line.strip()) for line in proc.stdout.splitlines()) if m]


def install(stage, binary, dest):
    """binary at dest in stage, and every library it needs at the path ldd names (a symbolic
    link's target copied under the link's name); returns the libraries."""
    shutil.copy(binary, os.path.join(stage, dest.lstrip("/")))
    libs = shared_libraries(binary)
    for lib in libs:
        where = os.path.join(stage, lib.lstrip("/"))
        os.makedirs(os.path.dirname(where), exist_ok=True)
        shutil.copyfile(os.path.realpath(lib), where)
        os.chmod(where, 0o755)
    return libs


def base_initramfs(work, binary, rtt_args, config=None, script=None):
    """busybox, the init, rtthrottle (static, or dynamic with its libraries), cyclictest and rtla
    when the host has them, the scenarios and the arguments to run it with (None: none, the init gives the
    console a shell); with config, the kernel's config as /boot/<its name> in the same archive
    (one archive: LAVA unpacks only the first); with script (shell text), the init runs that
    instead of `rtthrottle run` and sends its output back as script.txt."""
    stage = os.path.join(work, "initramfs")
    shutil.rmtree(stage, ignore_errors=True)
    for d in ("bin", "dev", "proc", "sys", "run", "tmp", "etc", "root", "boot", "usr/share/rtthrottle"):
        os.makedirs(os.path.join(stage, d))
    shutil.copy(BUSYBOX, os.path.join(stage, "bin", "busybox"))
    libs = install(stage, binary, "/bin/rtthrottle")
    cyclictest = shutil.which(CYCLICTEST)
    if cyclictest:
        libs += install(stage, cyclictest, "/bin/cyclictest")
    rtla = shutil.which(RTLA)
    if rtla:
        libs += install(stage, rtla, "/bin/rtla")
    log(f"initramfs: {binary} ({'dynamic' if libs else 'static'}), "
        f"{'cyclictest' if cyclictest else 'no cyclictest (rt-tests not installed)'}, "
        f"{'rtla' if rtla else 'no rtla (package rtla not installed)'}, {len(set(libs))} libraries")
    shutil.copy(os.path.join(HERE, "init"), os.path.join(stage, "init"))
    # The facts and the console framing, for the init and for a LAVA job's test shell.
    shutil.copy(os.path.join(HERE, "report.sh"), os.path.join(stage, "usr", "share", "rtthrottle"))
    os.makedirs(os.path.join(stage, "usr", "share", "rtthrottle", "lava"))
    shutil.copy(os.path.join(ROOT, "ci", "lava", "rtthrottle.sh"), os.path.join(stage, "usr", "share", "rtthrottle", "lava"))
    shutil.copytree(os.path.join(ROOT, "workloads", "scenarios"),
                    os.path.join(stage, "usr", "share", "rtthrottle", "scenarios"))
    if rtt_args is not None:
        with open(os.path.join(stage, "etc", "rtthrottle-args"), "w") as f:
            f.write(" ".join(rtt_args) + "\n")
    if script is not None:
        with open(os.path.join(stage, "etc", "rtthrottle-script"), "w") as f:
            f.write(script)
    if config:
        shutil.copy(config, os.path.join(stage, "boot"))
    # The kernel opens /dev/console before devtmpfs is mounted: it must be in the archive.
    os.mknod(os.path.join(stage, "dev", "console"), 0o600 | 0o020000, os.makedev(5, 1))
    out = os.path.join(work, "base.cpio")
    cpio(stage, out)
    return out


def kernel_initramfs(work, base, config, label):
    """The base archive plus this kernel's config as /boot/config-<release>, where rtthrottle
    reads HZ, the preemption model and RT group scheduling (the kernel unpacks archives in turn)."""
    out = os.path.join(work, f"{label}.cpio")
    shutil.copy(base, out)
    if config:
        stage = os.path.join(work, f"config-{label}")
        shutil.rmtree(stage, ignore_errors=True)
        os.makedirs(os.path.join(stage, "boot"))
        shutil.copy(config, os.path.join(stage, "boot"))
        cpio(stage, out + ".config")
        with open(out, "ab") as f, open(out + ".config", "rb") as extra:
            f.write(extra.read())
    return out


# --- booting ------------------------------------------------------------------------------------

def qemu_command(vmlinuz, initrd, accel, boot_args=()):
    """QEMU's command line; boot_args (kernel parameters, a list line's boot:PARAM) go after APPEND."""
    accel_opt = "kvm" if accel == "kvm" else "tcg,thread=multi"
    return ["qemu-system-x86_64", "-accel", accel_opt, "-cpu", "max" if accel != "kvm" else "host",
            "-smp", "2", "-m", "1G", "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
            "-kernel", vmlinuz, "-initrd", initrd, "-append", " ".join([APPEND, *boot_args])]


class MachineLock:
    """flock on the machine lock for one boot (guests measure real time: one at a time)."""

    def __init__(self, enabled):
        self.enabled, self.fd = enabled, None

    def __enter__(self):
        if self.enabled:
            self.fd = os.open(MACHINE_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log(f"waiting for {MACHINE_LOCK} (a run holding it may take minutes; "
                    "if this command already runs under it, pass --no-lock)")
                fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)


def read_lines(stream, lines):
    for raw in iter(stream.readline, b""):
        lines.put(TERMINAL_CODES.sub("", raw.decode("utf-8", "replace")).rstrip("\r\n"))
    lines.put(None)


class Console:
    """Parses the guest's serial output: framed files, the end marker, the rest as the log."""

    def __init__(self, log_file, label, show):
        self.log_file, self.label, self.show = log_file, label, show
        self.files, self.bad, self.done, self.guest_up = {}, [], None, False
        self.frame = None     # (name, size, sha256, [base64 lines]) while inside a frame
        self.tail = []

    def feed(self, line):
        self.log_file.write(line + "\n")
        if self.frame:
            name, size, digest, body = self.frame
            if line == f"RTT-MATRIX-END {name}":
                self.frame = None
                self.finish(name, size, digest, body)
            else:
                body.append(KERNEL_MESSAGE.sub("", line).strip())
            return
        m = FRAME_BEGIN.match(line)
        if m:
            self.frame = (m.group(1), int(m.group(2)), m.group(3), [])
            return
        m = FRAME_DONE.match(line)
        if m:
            self.done = int(m.group(1))
            return
        self.tail = (self.tail + [line])[-15:]
        if GUEST_LINE.search(line):
            self.guest_up = True
        if self.show(line):
            print(f"[{self.label}] {line}", file=sys.stderr, flush=True)

    def finish(self, name, size, digest, body):
        try:
            data = base64.b64decode("".join(body), validate=True)
        except ValueError as exc:
            self.bad.append(f"{name}: base64 does not decode ({exc})")
            return
        if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
            self.bad.append(f"{name}: {len(data)} bytes with sha256 {hashlib.sha256(data).hexdigest()[:12]}, "
                            f"the guest sent {size} bytes with {digest[:12]}")
            return
        self.files[name] = data


def shown(line):
    """Progress worth a line on stderr: the guest init's own lines and top-level KTAP results."""
    return line.startswith(("ok ", "not ok ", "Kernel panic")) or "# regime:" in line or bool(GUEST_LINE.search(line))


def watch(proc, console, start, timeout_s, boot_timeout_s):
    """Feeds the console until QEMU exits or a deadline passes; (status, reason) of a deadline,
    (None, None) when QEMU ended by itself."""
    lines = queue.Queue()
    threading.Thread(target=read_lines, args=(proc.stdout, lines), daemon=True).start()
    while True:
        elapsed = time.monotonic() - start
        limit = timeout_s if console.guest_up else boot_timeout_s
        if elapsed > limit:
            if console.guest_up:
                return "timeout", f"no end marker after {limit:.0f} s"
            return "boot-failure", f"the guest init did not start within {limit:.0f} s"
        try:
            line = lines.get(timeout=min(1.0, limit - elapsed + 0.01))
        except queue.Empty:
            continue
        if line is None:
            return None, None
        console.feed(line)


def boot(label, vmlinuz, initrd, accel, timeout_s, boot_timeout_s, log_path, lock=True, boot_args=()):
    """Boots one guest (boot_args: kernel parameters added to APPEND); returns (Console, status,
    reason, wall seconds). status: ok, timeout, boot-failure, guest-died, corrupt. Never waits
    past timeout_s: the guest is killed then."""
    cmd = qemu_command(vmlinuz, initrd, accel, boot_args)
    with MachineLock(lock), open(log_path, "w") as log_file:
        console = Console(log_file, label, shown)
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            status, reason = watch(proc, console, start, timeout_s, boot_timeout_s)
        finally:  # also on Ctrl-C or SIGTERM: no guest outlives the run
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        wall = time.monotonic() - start
    if status is None:
        if console.done is None:
            status = "boot-failure" if not console.guest_up else "guest-died"
            reason = f"QEMU exited ({proc.returncode}) before the end marker; last lines: " + \
                " | ".join(console.tail[-5:])
        elif console.bad:
            status, reason = "corrupt", "; ".join(console.bad)
        else:
            status, reason = "ok", ""
    return console, status, reason, wall
