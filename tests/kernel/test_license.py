# SPDX-License-Identifier: GPL-2.0-only
"""The licence: COPYING holds the GPL version 2, and every file git tracks that can hold a comment
(C and headers, Python, shell, Makefile, YAML, kernel config fragments, lists, the fuzzing
dictionary, the XSD, the man page, .gitignore, debian/ but its data files) names it with an SPDX
line in its first lines. JSON cannot hold a comment; Markdown, patches and images are not code."""
import os
import subprocess

import rtt

TAG = "SPDX-License-Identifier: GPL-2.0-only"
NOT_CODE = (".json", ".md", ".patch", ".png")
# debian/ files whose format has no comment, or where a line would be read as data.
DEBIAN_DATA = ("debian/changelog", "debian/source/format", "debian/compat")
LICENCE_TEXT = ("COPYING",)


def tracked():
    proc = subprocess.run(["git", "ls-files"], cwd=rtt.ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise rtt.Skip(f"not a git checkout: {proc.stderr.strip()}")
    return proc.stdout.split()


def test_copying_is_the_gpl_version_2():
    with open(os.path.join(rtt.ROOT, "COPYING")) as f:
        text = f.read()
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 2, June 1991" in text, text[:200]


def test_every_source_file_has_an_spdx_line():
    missing = []
    for name in tracked():
        # A fixture is a tool's output kept byte for byte (rtla's histogram, cyclictest's JSON).
        if name.endswith(NOT_CODE) or name in DEBIAN_DATA + LICENCE_TEXT or name.startswith(("debian/patches/", "tests/fixtures/")):
            continue
        with open(os.path.join(rtt.ROOT, name), errors="replace") as f:
            head = [f.readline() for _ in range(3)]
        if not any(TAG in line for line in head):
            missing.append(name)
    assert not missing, f"no '{TAG}' in the first 3 lines of: {missing}"
