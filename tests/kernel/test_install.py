# SPDX-License-Identifier: GPL-2.0-only
"""`make install DESTDIR=... PREFIX=/usr` and `make uninstall`: the files land where the binary
looks for them, the installed binary finds its scenarios and plot script from anywhere, and the
man page lints clean and names every subcommand and option. No root, nothing on the system."""
import os
import re
import shutil
import subprocess
import tempfile

import rtt

MAN = os.path.join(rtt.ROOT, "doc", "rtthrottle.1")


def make(*args):
    proc = subprocess.run(["make", "-s", "--no-print-directory", *args], cwd=rtt.ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, (args, proc.stdout[-2000:], proc.stderr[-2000:])


def installed(dest, *args, **kw):
    return subprocess.run([os.path.join(dest, "usr", "bin", "rtthrottle"), *args], capture_output=True, text=True,
                          cwd="/", timeout=120, **kw)


def test_install_and_uninstall_with_destdir():
    dest = tempfile.mkdtemp(prefix="rtt-install-")
    make("install", f"DESTDIR={dest}", "PREFIX=/usr")
    usr = os.path.join(dest, "usr")
    scenarios = sorted(f for f in os.listdir(os.path.join(rtt.ROOT, "workloads", "scenarios")) if f.endswith(".json"))
    expected = {"bin/rtthrottle": 0o755, "share/rtthrottle/rtthrottle_plot.py": 0o755,
                "share/man/man1/rtthrottle.1": 0o644, "share/doc/rtthrottle/README.md": 0o644,
                "share/doc/rtthrottle/results.md": 0o644, "share/rtthrottle/scenarios/README.md": 0o644}
    expected.update({f"share/rtthrottle/scenarios/{s}": 0o644 for s in scenarios})
    found = {os.path.relpath(os.path.join(d, f), usr): os.stat(os.path.join(d, f)).st_mode & 0o777
             for d, _, files in os.walk(usr) for f in files}
    assert found == expected, (sorted(set(found) ^ set(expected)), found)

    # From /, where no workloads/ folder is: the catalogue comes from PREFIX/share/rtthrottle.
    env = {k: v for k, v in os.environ.items() if not k.startswith("RTTHROTTLE_")}
    proc = installed(dest, "list", "scenarios", env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"from {os.path.realpath(usr)}/share/rtthrottle/scenarios" in proc.stdout, proc.stdout[:300]
    listed = re.findall(r"^  (\S+) ", proc.stdout, re.M)
    assert sorted(listed) == sorted(s[:-5] for s in scenarios), listed
    assert installed(dest, "--version", env=env).stdout.strip() == rtt.run(["--version"]).stdout.strip()

    # plot and report find the installed script (when matplotlib is there to draw).
    if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode == 0:
        out = os.path.join(dest, "plots")
        proc = installed(dest, "plot", "--out", out, os.path.join(rtt.ROOT, "tests", "fixtures", "base-1rep.json"),
                         env=env)
        assert proc.returncode == 0 and os.path.exists(os.path.join(out, "shares.png")), proc.stderr

    lint = subprocess.run(["mandoc", "-Tlint", os.path.join(usr, "share/man/man1/rtthrottle.1")], capture_output=True,
                          text=True)
    assert lint.returncode == 0 and not lint.stdout and not lint.stderr, lint.stdout + lint.stderr

    make("uninstall", f"DESTDIR={dest}", "PREFIX=/usr")
    left = [os.path.join(d, f) for d, _, files in os.walk(usr) for f in files]
    assert left == [], left
    assert not os.path.exists(os.path.join(usr, "share", "rtthrottle"))
    shutil.rmtree(dest)


def rendered_man():
    if not shutil.which("man"):
        raise rtt.Skip("no man (apt-get install man-db)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAN")}
    proc = subprocess.run(["man", "-l", MAN], capture_output=True, text=True, env=dict(env, MANWIDTH="100"))
    assert proc.returncode == 0 and "NAME" in proc.stdout, proc.stderr
    return proc.stdout.replace("\u2010", "-").replace("\u2011", "-")


def test_man_page_covers_every_subcommand_and_option():
    if not shutil.which("mandoc"):
        raise rtt.Skip("no mandoc (apt-get install mandoc)")
    lint = subprocess.run(["mandoc", "-Tlint", MAN], capture_output=True, text=True)
    assert lint.returncode == 0 and not lint.stdout, lint.stdout
    page = re.sub(r"-\s*\n\s*", "-", rendered_man())
    version = rtt.run(["--version"]).stdout.split()[-1]
    with open(MAN) as f:
        th = next(line for line in f if line.startswith(".TH "))
    assert f'"rtthrottle {version}"' in th, "the .TH line names another version"
    # The Debian package carries the same version.
    with open(os.path.join(rtt.ROOT, "debian", "changelog")) as f:
        assert f.readline().startswith(f"rtthrottle ({version})"), "debian/changelog names another version"
    commands = re.findall(r"^  (\w+) ", rtt.run(["--help"]).stdout, re.M)
    assert len(commands) >= 8, commands
    missing = []
    for cmd in commands:
        if not re.search(rf"^   {cmd}$", page, re.M):
            missing.append(cmd)
        for opt in set(re.findall(r"(--[a-z][a-z0-9-]+)", rtt.run([cmd, "--help"]).stdout)):
            if opt not in page:
                missing.append(f"{cmd} {opt}")
    assert not missing, f"not in doc/rtthrottle.1: {missing}"
