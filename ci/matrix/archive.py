# SPDX-License-Identifier: GPL-2.0-only
"""Debian suites the host does not carry (sid, experimental), through a private apt configuration.

The host's apt stays as it is: apt-get and apt-cache run with APT_CONFIG pointing at
<root>/apt.conf, which names its own sources list (<root>/sources.list, the suites only),
no sources.list.d, its own lists, package cache and an empty dpkg status. Downloads land in
<root>/packages. Everything lives under the root (default /var/cache/rtthrottle-kernels/archive).
Stdlib only.
"""
import os
import subprocess

from guest import MatrixError, log

DEFAULT_ROOT = "/var/cache/rtthrottle-kernels/archive"
MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
# The suites a kernel list may name (suite:NAME); each one line of the private sources list.
SUITES = ("sid", "experimental")


class PrivateApt:
    """apt-get/apt-cache on a private configuration naming SUITES; update() once per run."""

    def __init__(self, root=DEFAULT_ROOT, mirror=MIRROR, suites=SUITES):
        self.root, self.mirror, self.suites = root, mirror, tuple(suites)
        self.conf = os.path.join(root, "apt.conf")
        self.packages = os.path.join(root, "packages")
        self.updated = None      # None: not tried; "" updated; else why not

    def write(self):
        """The configuration files and folders (rewritten every time: they are ours alone)."""
        for d in ("lists/partial", "cache/archives/partial", "packages", "preferences.d"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        sources = os.path.join(self.root, "sources.list")
        with open(sources + ".tmp", "w") as f:
            for suite in self.suites:
                f.write(f"deb [signed-by={KEYRING}] {self.mirror} {suite} main\n")
        os.replace(sources + ".tmp", sources)
        settings = {
            "Dir::Etc::sourcelist": sources,
            "Dir::Etc::sourceparts": "-",
            # Empty preference folders of our own: the host's pinning is for the host's suites.
            "Dir::Etc::preferences": os.path.join(self.root, "preferences"),
            "Dir::Etc::preferencesparts": os.path.join(self.root, "preferences.d"),
            "Dir::State::Lists": os.path.join(self.root, "lists"),
            "Dir::Cache": os.path.join(self.root, "cache"),
            "Dir::State::status": "/dev/null",
            # Root cannot hand the folders to apt's sandbox user; the downloads are ordinary apt fetches.
            "APT::Sandbox::User": "root",
        }
        with open(self.conf + ".tmp", "w") as f:
            f.write("".join(f'{key} "{value}";\n' for key, value in settings.items()))
        os.replace(self.conf + ".tmp", self.conf)

    def env(self):
        return dict(os.environ, APT_CONFIG=self.conf)

    def run(self, args, cwd=None, timeout=600):
        return subprocess.run(args, cwd=cwd, env=self.env(), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def has_lists(self):
        lists = os.path.join(self.root, "lists")
        return os.path.isdir(lists) and any(n.endswith("_Packages") for n in os.listdir(lists))

    def update(self):
        """apt-get update once; "" when the lists are usable (fresh, or old ones when the update
        failed: said on stderr), else why not."""
        if self.updated is not None:
            return self.updated
        try:
            self.write()
            log(f"apt-get update of {', '.join(self.suites)} (private configuration {self.conf})")
            proc = self.run(["apt-get", "-q", "update"], timeout=600)
            failed = proc.returncode != 0 or "\nE: " in "\n" + proc.stderr or "\nW: Failed" in "\n" + proc.stderr
            why = " | ".join(line for line in proc.stderr.splitlines() if line.startswith(("E:", "W:")))[-400:]
        except (OSError, subprocess.SubprocessError) as exc:
            failed, why = True, str(exc)
        if not failed:
            self.updated = ""
        elif self.has_lists():
            log(f"apt-get update failed ({why or 'no reason given'}); using the lists of an earlier update")
            self.updated = ""
        else:
            self.updated = f"apt-get update of {', '.join(self.suites)} failed: {why or 'no reason given'}"
        return self.updated


def for_suite(apt, suite):
    """The private apt for a kernel of suite; raises MatrixError (the kernel is skipped) when it
    cannot serve it."""
    if suite not in apt.suites:
        raise MatrixError(f"suite {suite} is not one of the private configuration's ({', '.join(apt.suites)})")
    why = apt.update()
    if why:
        raise MatrixError(why)
    return apt
