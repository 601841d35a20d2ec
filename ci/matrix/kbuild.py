# SPDX-License-Identifier: GPL-2.0-only
"""Kernels built from Debian's linux-source package: a config fragment set and optional patches.

build() returns a bzImage and its .config for guest.boot(). Everything lives in the cache
(default /var/cache/rtthrottle-kernels):

  sources/linux-source-<series>_<version>/    a package from a suite the host does not carry
                                              (archive.PrivateApt), unpacked with dpkg-deb -x
  trees/<series>_<source version>_<config>/   the unpacked source, built in place, one per config;
                                              patches are applied for a build and taken back after
  images/<key>/bzImage, config-<release>,     one per (source version, fragments, patches), key =
         meta.json, build.log                 sha256 of all three: a second build is a copy away

A tree is used under flock (<tree>.lock), so two builds never share one. A patch left applied
by a build that died is taken back before the next build (marker file in the tree). Stdlib only.
"""
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

from guest import ROOT, MatrixError, log

DEFAULT_CACHE = "/var/cache/rtthrottle-kernels"
KCONFIG_DIR = os.path.join(ROOT, "ci", "kconfig")
APPLIED = ".rtthrottle-applied"       # in a tree: the patches applied right now, one path a line
CONFIGURED = ".rtthrottle-config"     # in a tree: sha256 of the fragments its .config came from
FRAGMENT_LINE = re.compile(r"^(?:(CONFIG_\w+)=(.*)|# (CONFIG_\w+) is not set)$")


def source_package(series):
    return f"linux-source-{series}"


def source_version(series, apt=None, cache=DEFAULT_CACHE):
    """linux-source-<series>'s version and tarball: the installed package's, or with apt
    (archive.PrivateApt, a suite the host does not carry) the package downloaded into apt's
    packages folder and unpacked into <cache>/sources/, nothing installed on the host."""
    if apt is not None:
        return fetched_source(series, apt, cache)
    pkg = source_package(series)
    q = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", pkg], capture_output=True, text=True)
    status, _, version = q.stdout.partition("\t")
    tarball = f"/usr/src/{pkg}.tar.xz"
    if q.returncode != 0 or "install ok installed" not in status or not os.path.exists(tarball):
        raise MatrixError(f"{pkg} is not installed (ci/install-deps.sh --kernel-build, or apt-get install {pkg})")
    return version, tarball


def candidate_version(pkg, apt):
    """The version apt would fetch of pkg ('' when its lists do not have it)."""
    proc = apt.run(["apt-cache", "policy", pkg], timeout=60)
    for line in proc.stdout.splitlines():
        key, _, value = line.strip().partition(":")
        if key == "Candidate" and value.strip() != "(none)":
            return value.strip()
    return ""


def fetched_source(series, apt, cache):
    """(version, tarball) of linux-source-<series> from apt's suites: the .deb is downloaded once
    (apt-get download into apt.packages, the version apt's lists name) and `dpkg-deb -x`
    unpacks it into <cache>/sources/<pkg>_<version>/; dpkg's database is never touched."""
    pkg = source_package(series)
    version = candidate_version(pkg, apt)
    if not version:
        raise MatrixError(f"{pkg}: not in {', '.join(apt.suites)} (apt-cache policy names no candidate)")
    where = os.path.join(cache, "sources", f"{pkg}_{safe(version)}")
    tarball = os.path.join(where, "usr", "src", f"{pkg}.tar.xz")
    if os.path.exists(tarball):
        return version, tarball
    os.makedirs(apt.packages, exist_ok=True)
    # The file name apt gives it: the epoch's colon is %3a.
    deb_name = f"{pkg}_{version.replace(':', '%3a')}_all.deb"
    deb = os.path.join(apt.packages, deb_name)
    if not os.path.exists(deb):
        log(f"downloading {pkg} {version} into {apt.packages}")
        proc = apt.run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", f"{pkg}={version}"],
                       cwd=apt.packages, timeout=1800)
        if proc.returncode != 0 or not os.path.exists(deb):
            raise MatrixError(f"apt-get download {pkg}={version} failed: {proc.stderr.strip()[-300:]}")
    tmp = where + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log(f"unpacking {deb_name} into {where} (dpkg-deb -x; nothing installed)")
    proc = subprocess.run(["dpkg-deb", "-x", deb, tmp], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or not os.path.exists(os.path.join(tmp, "usr", "src", f"{pkg}.tar.xz")):
        shutil.rmtree(tmp, ignore_errors=True)
        raise MatrixError(f"{deb}: no usr/src/{pkg}.tar.xz came out ({proc.stderr.strip()[-300:]})")
    os.rename(tmp, where)
    return version, tarball


def fragments(config):
    """The fragment files of a config name: base.config plus <name>.config from ci/kconfig."""
    files = [os.path.join(KCONFIG_DIR, "base.config"), os.path.join(KCONFIG_DIR, f"{config}.config")]
    for f in files:
        if not os.path.isfile(f):
            names = sorted(n[:-7] for n in os.listdir(KCONFIG_DIR) if n.endswith(".config") and n != "base.config")
            raise MatrixError(f"config '{config}': no {os.path.relpath(f, ROOT)} (configs: {', '.join(names)})")
    return files


def wanted_options(files):
    """{CONFIG_X: value} the fragments ask for ('n' for 'is not set'); later files win."""
    want = {}
    for path in files:
        with open(path) as f:
            for line in f:
                m = FRAGMENT_LINE.match(line.strip())
                if m:
                    want[m.group(1) or m.group(3)] = m.group(2) if m.group(1) else "n"
    return want


def missing_options(config_text, want):
    """The fragment options the final .config does not have: 'CONFIG_X=y (got n)'."""
    have = {}
    for line in config_text.splitlines():
        m = FRAGMENT_LINE.match(line.strip())
        if m:
            have[m.group(1) or m.group(3)] = m.group(2) if m.group(1) else "n"
    return [f"{k}={v} (got {have.get(k, 'n')})" for k, v in sorted(want.items()) if have.get(k, "n") != v]


def digest(parts):
    h = hashlib.sha256()
    for name, data in parts:
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def image_key(series, version, config_files, patches):
    """Which image a build gives: the source version, the fragments' and the patches' contents."""
    parts = [("series", series.encode()), ("source", version.encode())]
    parts += [("fragment", read_bytes(f)) for f in config_files]
    parts += [("patch", read_bytes(p)) for p in patches]
    return digest(parts)[:16]


def safe(text):
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


class TreeLock:
    def __init__(self, tree):
        self.path, self.fd = tree + ".lock", None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for {self.path} (another build uses this tree)")
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)


def run(cmd, cwd, log_file, timeout=3600):
    log_file.write(f"$ {' '.join(cmd)}\n")
    log_file.flush()
    proc = subprocess.run(cmd, cwd=cwd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                          timeout=timeout)
    return proc.returncode


def tail(path, n=15):
    with open(path, errors="replace") as f:
        return " | ".join(line.rstrip() for line in f.readlines()[-n:])


def unpack(tarball, tree):
    tmp = tree + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log(f"unpacking {tarball} into {tree} (once per source version and config)")
    proc = subprocess.run(["tar", "-xJf", tarball, "-C", tmp, "--strip-components=1"], capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise MatrixError(f"unpacking {tarball} failed: {proc.stderr.strip()[-300:]}")
    os.rename(tmp, tree)


def prune_old_trees(tree, series, config):
    """Removes the trees of older source versions of the same series and config (a tree is
    ~2 GB; built images stay, they are small and keyed by version)."""
    parent = os.path.dirname(tree)
    for name in os.listdir(parent):
        path = os.path.join(parent, name)
        if (path != tree and name.startswith(f"{safe(series)}_") and name.endswith(f"_{safe(config)}")
                and os.path.isdir(path)):
            with TreeLock(path):
                log(f"removing {path} (an older source version)")
                shutil.rmtree(path, ignore_errors=True)
            try:
                os.remove(path + ".lock")
            except OSError:
                pass


def patch(tree, patches, reverse, log_file):
    """Applies (or takes back, in reverse order) patches; raises naming the one that does not fit."""
    for p in (reversed(patches) if reverse else patches):
        cmd = ["patch", "-p1", "--batch", "--no-backup-if-mismatch", "-i", p] + (["-R"] if reverse else ["--forward"])
        if run(["patch", "-p1", "--batch", "--dry-run", "-i", p] + (["-R"] if reverse else ["--forward"]),
               tree, log_file) != 0:
            raise MatrixError(f"{p} does not {'come off' if reverse else 'apply to'} {tree} (see the build log)")
        if run(cmd, tree, log_file) != 0:
            raise MatrixError(f"patch {'-R ' if reverse else ''}{p} failed in {tree}")


def clean_tree(tree, log_file):
    """Takes back what a build that died left applied."""
    marker = os.path.join(tree, APPLIED)
    if os.path.exists(marker):
        with open(marker) as f:
            left = [line.strip() for line in f if line.strip()]
        log(f"{tree}: taking back {len(left)} patch(es) a previous build left applied")
        patch(tree, left, True, log_file)
        os.remove(marker)


def configure(tree, config_files, log_file):
    """tinyconfig + the fragments + olddefconfig, only when the fragments changed; checks that
    every option of the fragments made it (Kconfig drops what it cannot satisfy silently)."""
    stamp = digest([("fragment", read_bytes(f)) for f in config_files])
    marker = os.path.join(tree, CONFIGURED)
    config = os.path.join(tree, ".config")
    if os.path.exists(config) and os.path.exists(marker) and read_bytes(marker).decode().strip() == stamp:
        return
    log(f"{os.path.basename(tree)}: configuring (tinyconfig + {', '.join(os.path.basename(f) for f in config_files)})")
    for cmd in (["make", "tinyconfig"], ["scripts/kconfig/merge_config.sh", "-m", ".config"] + config_files,
                ["make", "olddefconfig"]):
        if run(cmd, tree, log_file) != 0:
            raise MatrixError(f"{' '.join(cmd[:2])} failed in {tree}")
    missing = missing_options(read_bytes(config).decode(), wanted_options(config_files))
    if missing:
        raise MatrixError(f"the config lacks what the fragments ask for: {'; '.join(missing)}")
    with open(marker, "w") as f:
        f.write(stamp + "\n")


def build(series, config, patches=(), cache=DEFAULT_CACHE, jobs=None, apt=None):
    """The bzImage of linux-source-<series> (the installed package, or with apt the one of its
    suites: fetched_source()) with config's fragments and patches (paths), built or taken from
    the cache. Returns meta.json's dict (key, config, fragments, patches,
    source_version, release, build_s, tree) plus vmlinuz, config_path (config-<release>, for
    the guest's /boot) and cached (bool)."""
    version, tarball = source_version(series, apt, cache)
    config_files = fragments(config)
    patches = [os.path.abspath(p) for p in patches]
    for p in patches:
        if not os.path.isfile(p):
            raise MatrixError(f"patch {p}: no such file")
    key = image_key(series, version, config_files, patches)
    image_dir = os.path.join(cache, "images", key)
    meta_path = os.path.join(image_dir, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        meta.update(cached=True, vmlinuz=os.path.join(image_dir, "bzImage"),
                    config_path=os.path.join(image_dir, f"config-{meta['release']}"))
        return meta
    tree = os.path.join(cache, "trees", f"{safe(series)}_{safe(version)}_{safe(config)}")
    os.makedirs(os.path.dirname(tree), exist_ok=True)
    os.makedirs(os.path.join(cache, "images"), exist_ok=True)
    tmp_dir = image_dir + ".tmp"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    os.makedirs(tmp_dir)
    log_path = os.path.join(tmp_dir, "build.log")
    start = time.monotonic()
    with TreeLock(tree), open(log_path, "w") as log_file:
        if not os.path.isdir(tree):
            unpack(tarball, tree)
            prune_old_trees(tree, series, config)
        clean_tree(tree, log_file)
        configure(tree, config_files, log_file)
        if patches:
            with open(os.path.join(tree, APPLIED), "w") as f:
                f.write("".join(p + "\n" for p in patches))
            patch(tree, patches, False, log_file)
        try:
            names = ", ".join(os.path.basename(p) for p in patches) or "unmodified"
            log(f"building {series} {config} ({names}) in {tree}, -j{jobs or os.cpu_count()}")
            status = run(["make", f"-j{jobs or os.cpu_count()}", "bzImage"], tree, log_file)
            if status != 0:
                raise MatrixError(f"make bzImage failed (exit {status}; log {log_path}): {tail(log_path, 8)}")
            release = subprocess.run(["make", "-s", "kernelrelease"], cwd=tree, capture_output=True,
                                     text=True).stdout.strip()
            shutil.copy(os.path.join(tree, "arch", "x86", "boot", "bzImage"), os.path.join(tmp_dir, "bzImage"))
            shutil.copy(os.path.join(tree, ".config"), os.path.join(tmp_dir, f"config-{release}"))
        finally:
            if patches:
                patch(tree, patches, True, log_file)
                os.remove(os.path.join(tree, APPLIED))
    meta = {"key": key, "series": series, "config": config, "source_package": source_package(series),
            "source_version": version, "fragments": [os.path.relpath(f, ROOT) for f in config_files],
            "patches": [os.path.relpath(p, ROOT) if p.startswith(ROOT + os.sep) else p for p in patches],
            "release": release, "build_s": round(time.monotonic() - start, 1), "tree": tree}
    with open(os.path.join(tmp_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    shutil.rmtree(image_dir, ignore_errors=True)
    os.rename(tmp_dir, image_dir)
    log(f"built {key} in {meta['build_s']} s")
    meta.update(cached=False, vmlinuz=os.path.join(image_dir, "bzImage"),
                config_path=os.path.join(image_dir, f"config-{release}"))
    return meta
