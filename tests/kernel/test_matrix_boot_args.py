# SPDX-License-Identifier: GPL-2.0-only
"""A kernel list line's boot:PARAM and suite:NAME for kernels built from source, without a guest,
without root and without network: the parsing and its bad input (exit 2 naming the word), the
parameters on QEMU's -append and on a lab job's command line, the two 7.2 RT-group entries
sharing one build, and linux-source-<series> fetched from a suite through the private apt and
unpacked with dpkg-deb -x into the kernel cache, never installed."""
import os
import shutil
import subprocess
import sys
import tempfile
import types

import rtt
import test_matrix_archive as archive_tests

MATRIX_DIR = os.path.join(rtt.ROOT, "ci", "matrix")
SOURCE_LIST = os.path.join(rtt.ROOT, "ci", "kernels-source.list")


def _modules():
    """guest, kbuild and matrix.py as a module (test_matrix_archive's loader, plus kbuild)."""
    _, guest, matrix = archive_tests._modules()
    import kbuild
    return guest, kbuild, matrix


def _matrix_cli(list_text):
    with tempfile.NamedTemporaryFile("w", suffix=".list") as f:
        f.write(list_text)
        f.flush()
        return subprocess.run(["/usr/bin/python3", os.path.join(MATRIX_DIR, "matrix.py"), "--list", f.name,
                               "--no-lock"], capture_output=True, text=True, timeout=60)


def test_list_line_takes_boot_params_and_a_suite_for_source():
    _, _, matrix = _modules()
    k = matrix.parse_list_line(["x", "7.2", "source:rt-group", "suite:sid", "boot:rt_group_sched=0",
                                "boot:nohz=off", "ci/kernel-patches/p.patch"])
    assert k["suite"] == "sid" and k["boot_args"] == ["rt_group_sched=0", "nohz=off"], k
    assert k["config"] == "rt-group" and k["patches"] == [os.path.join(rtt.ROOT, "ci/kernel-patches/p.patch")], k
    k = matrix.parse_list_line(["x", "7.2", "amd64", "boot:rt_group_sched=1", "suite:sid"])
    assert k == {"label": "x", "series": "7.2", "flavour": "amd64", "suite": "sid",
                 "boot_args": ["rt_group_sched=1"]}, k
    # No boot:PARAM, no boot_args: the entries of older lists stay as they were.
    assert "boot_args" not in matrix.parse_list_line(["6.1", "6.1", "amd64"])
    for words, named in ((["x", "7.2", "source:rt-group", "boot:"], "boot:"),
                         (["x", "7.2", "source:rt-group", "boot:a;reboot"], "boot:a;reboot"),
                         (["x", "7.2", "source:rt-group", "boot:a=$(id)"], "boot:a=$(id)"),
                         (["x", "7.2", "source:rt-group", "boot:'x=1'"], "boot:'x=1'"),
                         (["x", "7.2", "source:rt-group", "boot:console=tty0"], "console is the guest's own"),
                         (["x", "7.2", "source:rt-group", "boot:init=/bin/sh"], "init is the guest's own"),
                         (["x", "7.2", "source:rt-group", "suite:sid", "suite:experimental"], "suite:experimental"),
                         (["x", "7.2", "amd64", "boot:x=1", "extra"], "extra")):
        k, why = matrix.list_line(words)
        assert k is None and named in why, (words, why)


def test_bad_boot_param_is_bad_usage_naming_it():
    """A bad boot:PARAM stops the matrix before anything is fetched, built or booted: exit 2
    naming the word and the line."""
    proc = _matrix_cli("ok 7.2 source:rt-group suite:sid boot:rt_group_sched=1\n"
                       "bad 7.2 source:rt-group suite:sid boot:rt_group_sched=0;halt\n")
    assert proc.returncode == 2 and ".list:2" in proc.stderr and "boot:rt_group_sched=0;halt" in proc.stderr \
        and "boot:PARAM" in proc.stderr, (proc.returncode, proc.stderr)
    proc = _matrix_cli("bad 7.2 source:rt-group boot:rdinit=/bin/sh\n")
    assert proc.returncode == 2 and "rdinit is the guest's own" in proc.stderr, (proc.returncode, proc.stderr)


def test_the_7_2_rt_group_entries_share_one_build_and_differ_in_boot():
    _, kbuild, matrix = _modules()
    kernels = {k["label"]: k for k in matrix.read_list(SOURCE_LIST, None)}
    on, off = kernels["7.2-src-rtgroup-on"], kernels["7.2-src-rtgroup-off"]
    assert on["boot_args"] == ["rt_group_sched=1"] and off["boot_args"] == ["rt_group_sched=0"], (on, off)
    # The image key is the series, the source version, the fragments and the patches: equal for both.
    for field in ("series", "config", "patches", "suite"):
        assert on[field] == off[field], field
    assert on["suite"] == "sid" and on["config"] == "rt-group"
    files = kbuild.fragments(on["config"])
    assert kbuild.image_key("7.2", "7.2.13-1", files, on["patches"]) == \
        kbuild.image_key("7.2", "7.2.13-1", files, off["patches"])
    assert "CONFIG_RT_GROUP_SCHED" in kbuild.wanted_options(files)
    # The header documents the fields.
    with open(SOURCE_LIST) as f:
        header = f.read().split("\n7.2-src", 1)[0]
    assert "boot:PARAM" in header and "suite:NAME" in header and "exit 2" in header, header


def test_boot_params_go_on_qemu_append_after_the_guest_s_own():
    guest, _, _ = _modules()
    cmd = guest.qemu_command("/k", "/i", "tcg", ["rt_group_sched=0"])
    append = cmd[cmd.index("-append") + 1]
    assert append == guest.APPEND + " rt_group_sched=0", append
    cmd = guest.qemu_command("/k", "/i", "tcg")
    assert cmd[cmd.index("-append") + 1] == guest.APPEND


def test_a_kernel_s_boot_params_reach_its_boot_and_matrix_json():
    """fetch_kernel records boot_args in the entry, boot_kernel hands them to guest.boot (both
    with the build and the boot replaced: no kernel, no QEMU)."""
    guest, kbuild, matrix = _modules()
    k = matrix.parse_list_line(["7.2-off", "7.2", "source:rt-group", "boot:rt_group_sched=0"])
    seen = {}
    real_build, real_boot = kbuild.build, guest.boot

    def fake_build(series, config, patches, cache, jobs, apt):
        seen["build"] = (series, config, list(patches), apt)
        return {"key": "k", "config": config, "fragments": [], "patches": [], "release": "7.2.13", "cached": True,
                "build_s": 0, "source_package": "linux-source-7.2", "source_version": "7.2.13-1",
                "vmlinuz": "/nonexistent/bzImage", "config_path": "/nonexistent/config-7.2.13"}

    def fake_boot(label, vmlinuz, initrd, accel, timeout, boot_timeout, log_path, lock=True, boot_args=()):
        seen["boot"] = (label, list(boot_args), lock)
        return guest.Console(open(os.devnull, "w"), label, lambda line: False), "boot-failure", "fake", 0.0

    args = types.SimpleNamespace(accel="tcg", kernel_cache="/nonexistent", boot_retries=0, timeout=1,
                                 boot_timeout=1, no_lock=True)
    tmp = tempfile.mkdtemp(prefix="rtt-bootargs-")
    try:
        kbuild.build, guest.boot = fake_build, fake_boot
        entry, vmlinuz, _ = matrix.fetch_kernel(k, args)
        assert entry["boot_args"] == ["rt_group_sched=0"] and vmlinuz == "/nonexistent/bzImage", entry
        assert seen["build"] == ("7.2", "rt-group", [], None), seen
        matrix.boot_kernel(k["label"], vmlinuz, "/nonexistent/initrd", args, tmp, entry)
        assert seen["boot"] == ("7.2-off", ["rt_group_sched=0"], False), seen
    finally:
        kbuild.build, guest.boot = real_build, real_boot
        shutil.rmtree(tmp)


def test_lab_jobs_carry_the_boot_params():
    try:
        import yaml  # noqa: F401
        import jinja2  # noqa: F401
    except ImportError:
        raise rtt.Skip("no python3-yaml or python3-jinja2")
    _modules()
    sys.path.insert(0, os.path.join(rtt.ROOT, "ci", "lava"))
    import lab_job
    fields = {"label": "x", "kernel_name": "k", "run_args": "--suite quick", "job_name": "j", "job_minutes": 3,
              "test_minutes": 1, "kernel_url": "http://lab/k", "ramdisk_url": "http://lab/r",
              "rootfs_url": "http://lab/t"}
    qemu = lab_job.render("qemu", dict(fields, boot_args="rt_group_sched=0"))
    assert 'noirqdebug rt_group_sched=0"' in qemu, qemu
    assert 'noirqdebug"' in lab_job.render("qemu", fields)
    x86 = lab_job.render("x86", dict(fields, boot_args="rt_group_sched=0"))
    assert "extra_kernel_args: init=/init rt_group_sched=0" in x86, x86


class FakeApt:
    """archive.PrivateApt's run() for apt-cache policy and apt-get download, offline: the
    'download' copies a .deb built here."""

    def __init__(self, packages, deb, version):
        self.packages, self.deb, self.version, self.suites, self.calls = packages, deb, version, ("sid",), []

    def run(self, args, cwd=None, timeout=600):
        self.calls.append(args)
        if args[:2] == ["apt-cache", "policy"]:
            out = f"{args[2]}:\n  Installed: (none)\n  Candidate: {self.version}\n"
            return subprocess.CompletedProcess(args, 0, out, "")
        assert "download" in args and cwd == self.packages, (args, cwd)
        shutil.copy(self.deb, os.path.join(cwd, f"linux-source-7.2_{self.version}_all.deb"))
        return subprocess.CompletedProcess(args, 0, "", "")


def test_linux_source_from_a_suite_is_unpacked_not_installed():
    _, kbuild, _ = _modules()
    tmp = tempfile.mkdtemp(prefix="rtt-src-")
    try:
        stage = os.path.join(tmp, "stage")
        os.makedirs(os.path.join(stage, "DEBIAN"))
        os.makedirs(os.path.join(stage, "usr", "src"))
        with open(os.path.join(stage, "usr", "src", "linux-source-7.2.tar.xz"), "wb") as f:
            f.write(b"not really a tarball")
        with open(os.path.join(stage, "DEBIAN", "control"), "w") as f:
            f.write("Package: linux-source-7.2\nVersion: 7.2.13-1\nArchitecture: all\n"
                    "Maintainer: nobody <nobody@example.org>\nDescription: test\n")
        deb = os.path.join(tmp, "built.deb")
        subprocess.run(["dpkg-deb", "--root-owner-group", "-b", stage, deb], check=True, capture_output=True)
        apt = FakeApt(os.path.join(tmp, "archive", "packages"), deb, "7.2.13-1")
        cache = os.path.join(tmp, "kernels")
        before = subprocess.run(["dpkg-query", "-W", "linux-source-7.2"], capture_output=True, text=True)
        version, tarball = kbuild.source_version("7.2", apt, cache)
        assert version == "7.2.13-1" and tarball == os.path.join(
            cache, "sources", "linux-source-7.2_7.2.13-1", "usr", "src", "linux-source-7.2.tar.xz"), tarball
        with open(tarball, "rb") as f:
            assert f.read() == b"not really a tarball"
        assert any("download" in c for c in apt.calls), apt.calls
        # Once fetched, a second build asks apt for the version only.
        apt.calls.clear()
        assert kbuild.source_version("7.2", apt, cache) == (version, tarball)
        assert not any("download" in c for c in apt.calls), apt.calls
        after = subprocess.run(["dpkg-query", "-W", "linux-source-7.2"], capture_output=True, text=True)
        assert (before.returncode, before.stdout) == (after.returncode, after.stdout), (before, after)
        # A suite without the package: the kernel's build fails naming it.
        apt.version = "(none)"
        try:
            kbuild.source_version("7.3", apt, cache)
            raise AssertionError("a missing linux-source-7.3 was not reported")
        except kbuild.MatrixError as exc:
            assert "linux-source-7.3" in str(exc) and "sid" in str(exc), exc
    finally:
        shutil.rmtree(tmp)
