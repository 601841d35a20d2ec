# SPDX-License-Identifier: GPL-2.0-only
"""The matrix's kernels from Debian's sid and experimental, without a guest and without network:
the list's suite:NAME, the 7.x package names and split (the kernel in linux-binary-<abi>, its
config in linux-base-<abi>), the private apt configuration, and a kernel that cannot be fetched
skipped with why while the host's /etc/apt stays as it was."""
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import rtt

MATRIX_DIR = os.path.join(rtt.ROOT, "ci", "matrix")


def _modules():
    sys.path.insert(0, MATRIX_DIR)
    import archive
    import guest
    spec = importlib.util.spec_from_file_location("matrix_main", os.path.join(MATRIX_DIR, "matrix.py"))
    matrix = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix)
    return archive, guest, matrix


def _tree_digest(top):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(top)):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            h.update(path.encode() + b"\0")
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def test_list_names_suites_and_rejects_unknown_ones():
    _, _, matrix = _modules()
    kernels = {k["label"]: k for k in matrix.read_list(os.path.join(rtt.ROOT, "ci", "kernels.list"), None)}
    for label, series, flavour, suite in (("7.2", "7.2", "amd64", "sid"), ("7.2-rt", "7.2", "rt-amd64", "sid"),
                                          ("7.3-rc", "7.3", "amd64", "experimental")):
        k = kernels[label]
        assert (k["series"], k["flavour"], k.get("suite")) == (series, flavour, suite), k
    assert "suite" not in kernels["6.1"]
    assert matrix.parse_list_line(["x", "7.2", "amd64", "suite:trixie-backports"]) is None
    assert matrix.parse_list_line(["x", "7.2", "amd64", "suite:sid", "extra"]) is None
    assert matrix.parse_list_line(["x", "7.2", "amd64", "other"]) is None


def test_unknown_label_or_suite_is_bad_usage():
    """An unknown --kernels label or a list line naming a suite the private apt does not carry:
    exit 2 naming it, before anything is fetched or booted."""
    script = os.path.join(MATRIX_DIR, "matrix.py")
    proc = subprocess.run(["/usr/bin/python3", script, "--kernels", "7.2,7.9-nope", "--no-lock"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "7.9-nope" in proc.stderr and "7.2, 7.2-rt" in proc.stderr, \
        (proc.returncode, proc.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".list") as bad:
        bad.write("7.2 7.2 amd64 suite:trixie-backports\n")
        bad.flush()
        proc = subprocess.run(["/usr/bin/python3", script, "--list", bad.name, "--no-lock"],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "suite:NAME" in proc.stderr and "trixie-backports" in proc.stderr, \
        (proc.returncode, proc.stderr)


def test_image_names_of_7x_and_6x():
    _, guest, _ = _modules()
    cases = [("7.2", "amd64", "linux-image-7.2.13+deb14-amd64", True),
             ("7.2", "amd64", "linux-image-7.2.13+deb14-rt-amd64", False),
             ("7.2", "amd64", "linux-image-7.2.13+deb14-cloud-amd64", False),
             ("7.2", "rt-amd64", "linux-image-7.2.13+deb14-rt-amd64", True),
             ("7.3", "amd64", "linux-image-7.3-amd64", True),          # a release candidate: no patch level
             ("7.3", "rt-amd64", "linux-image-7.3-rt-amd64", True),
             ("7.3", "amd64", "linux-image-7.3-amd64-dbg", False),
             ("6.1", "amd64", "linux-image-6.1.0-57-amd64-unsigned", True),
             ("6.1", "amd64", "linux-image-6.12.118+deb12-amd64", False),
             ("6.12", "rt-amd64", "linux-image-6.12.118+deb12-rt-amd64", True)]
    for series, flavour, name, match in cases:
        assert bool(guest.image_pattern(series, flavour).match(name)) == match, (series, flavour, name)


def _deb(work, name, files):
    """A .deb named name holding files {path: bytes}."""
    root = os.path.join(work, name)
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: {name}\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@example.org>\n"
                "Description: test\n")
    for path, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "wb") as f:
            f.write(data)
    out = os.path.join(work, f"{name}_1_amd64.deb")
    subprocess.run(["dpkg-deb", "-Zgzip", "-b", root, out], check=True, capture_output=True)
    return out


def test_split_packages_extract_to_boot_names():
    """7.x: vmlinuz from linux-binary-<abi>, config from linux-base-<abi>, both under
    usr/lib/modules/<abi>/, come out as boot/vmlinuz-<abi> and boot/config-<abi> (the guest's
    /boot/config-<release>, where rtthrottle reads RT_GROUP_SCHED); before 7.x boot/ as it was."""
    if not shutil.which("dpkg-deb"):
        raise rtt.Skip("dpkg-deb not installed")
    _, guest, _ = _modules()
    work = tempfile.mkdtemp(prefix="rtt-archive-")
    try:
        abi = "7.2.13+deb14-amd64"
        binary = _deb(work, f"linux-binary-{abi}", {f"usr/lib/modules/{abi}/vmlinuz": b"kernel"})
        base = _deb(work, f"linux-base-{abi}", {f"usr/lib/modules/{abi}/config": b"# CONFIG_RT_GROUP_SCHED is not set\n",
                                                f"usr/lib/modules/{abi}/modules.order": b""})
        where = os.path.join(work, f"linux-image-{abi}")
        guest.extract([base, binary], where)
        assert sorted(os.listdir(os.path.join(where, "boot"))) == [f"config-{abi}", f"vmlinuz-{abi}"]
        assert not os.path.exists(os.path.join(where, "usr"))
        old = _deb(work, "linux-image-6.1.0-57-amd64", {"boot/vmlinuz-6.1.0-57-amd64": b"k",
                                                          "boot/config-6.1.0-57-amd64": b"c"})
        guest.extract([old], os.path.join(work, "old"))
        assert sorted(os.listdir(os.path.join(work, "old", "boot"))) == ["config-6.1.0-57-amd64", "vmlinuz-6.1.0-57-amd64"]
        empty = _deb(work, "linux-image-7.3-amd64", {"usr/share/doc/linux-image-7.3-amd64/README": b""})
        try:
            guest.extract([empty], os.path.join(work, "meta"))
            raise AssertionError("a meta package without a kernel extracted")
        except guest.MatrixError as exc:
            assert "no boot/vmlinuz-*" in str(exc), exc
        assert not os.path.exists(os.path.join(work, "meta"))
    finally:
        shutil.rmtree(work)


def test_private_apt_configuration_names_only_its_suites():
    archive, _, _ = _modules()
    root = tempfile.mkdtemp(prefix="rtt-apt-")
    try:
        apt = archive.PrivateApt(root)
        apt.write()
        with open(os.path.join(root, "sources.list")) as f:
            suites = [line.split()[3] for line in f if line.startswith("deb ")]
        assert suites == ["sid", "experimental"], suites
        with open(apt.conf) as f:
            conf = f.read()
        for want in (f'Dir::Etc::sourcelist "{root}/sources.list";', 'Dir::Etc::sourceparts "-";',
                     f'Dir::State::Lists "{root}/lists";'):
            assert want in conf, (want, conf)
        assert apt.env()["APT_CONFIG"] == apt.conf
    finally:
        shutil.rmtree(root)


def test_unreachable_archive_skips_the_kernel_with_why():
    """No network (a mirror nobody answers at) and no lists from before: the kernel is skipped
    with apt's reason, the matrix goes on, and /etc/apt is byte for byte what it was."""
    if os.geteuid() != 0:
        raise rtt.Skip("needs root (apt-get update as root, for its sandbox user)")
    if not shutil.which("apt-get"):
        raise rtt.Skip("apt-get not installed")
    archive, guest, matrix = _modules()
    before = _tree_digest("/etc/apt")
    root = tempfile.mkdtemp(prefix="rtt-apt-")
    run_dir = tempfile.mkdtemp(prefix="rtt-matrix-skip-")
    try:
        args = matrix.parse_args(["--no-lock", "--archive-dir", root])
        args.apt = archive.PrivateApt(root, mirror="http://127.0.0.1:9/debian")
        entry = matrix.run_kernel({"label": "7.2", "series": "7.2", "flavour": "amd64", "suite": "sid"},
                                  args, run_dir, None)
        assert entry["status"] == "skipped", entry
        assert "not fetched" in entry["reason"] and "apt-get update" in entry["reason"], entry
        # Once per run: the second kernel of the suite is skipped for the same reason, no second try.
        again = matrix.run_kernel({"label": "7.3-rc", "series": "7.3", "flavour": "amd64", "suite": "experimental"},
                                  args, run_dir, None)
        assert again["status"] == "skipped" and again["reason"] == entry["reason"], again
        table = matrix.summary.table([entry])
        assert "7.2: skipped: not fetched: apt-get update" in table, table
    finally:
        shutil.rmtree(root)
        shutil.rmtree(run_dir)
    assert _tree_digest("/etc/apt") == before, "/etc/apt changed"
