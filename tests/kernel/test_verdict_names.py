# SPDX-License-Identifier: GPL-2.0-only
"""A verdict is named in one place: harness/common/verdict.c. Every other C file writes, compares
and prints verdicts through `enum verdict` and `verdict_name()`, so a verdict cannot be misspelt
in one export or compared against a word no verdict has. "error" is left out: it is also the
results' key for a run's error message and JUnit's element name. No root, nothing measured."""
import glob
import os
import re

import rtt

VERDICT_MODULE = os.path.join("harness", "common", "verdict.c")
NAMES = ("pass", "fail", "unjudged", "not-applicable", "not-measured", "skip")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def c_sources():
    for pattern in ("harness/*/*.[ch]", "harness/*.[ch]", "workloads/*.[ch]"):
        for path in glob.glob(os.path.join(rtt.ROOT, pattern)):
            rel = os.path.relpath(path, rtt.ROOT)
            if rel != VERDICT_MODULE:
                yield rel


def verdict_literals(text):
    """(line, literal) of each string literal outside comments that is exactly a verdict's name."""
    code = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for m in LITERAL.finditer(code):
        if m.group(1) in NAMES:
            yield code.count("\n", 0, m.start()) + 1, m.group(1)


def test_the_scan_finds_a_verdict_literal_and_ignores_comments():
    sample = 'x = strcmp(v, "pass"); /* "fail" */\n// "skip"\nputs("passed");\nf("unjudged");\n'
    assert list(verdict_literals(sample)) == [(1, "pass"), (4, "unjudged")]


def test_no_verdict_name_is_spelt_outside_the_verdict_module():
    sources = list(c_sources())
    assert len(sources) > 50, sources
    found = [f"{path}:{line}: \"{name}\"" for path in sources
             for line, name in verdict_literals(open(os.path.join(rtt.ROOT, path)).read())]
    assert not found, "verdict names spelt outside " + VERDICT_MODULE + " (use verdict_name()):\n" + "\n".join(found)
