# SPDX-License-Identifier: GPL-2.0-only
"""Readers and validators of the formats `rtthrottle export` writes, for the tests.

JUnit: xmllint against tests/fixtures/junit.xsd. KCIDB: python3-jsonschema against
tests/fixtures/kcidb-v5-tests.schema.json, plus what a schema cannot say (no null anywhere, unique
ids). rt-tests: a reader of the `cyclictest --json` layout as rt-tests' consumers read it
(num_threads, thread[N].{histogram, cycles, min, max, avg, cpu, node}, return_code).
"""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import rtt

FIXTURES = os.path.join(rtt.ROOT, "tests", "fixtures")
JUNIT_XSD = os.path.join(FIXTURES, "junit.xsd")
KCIDB_SCHEMA = os.path.join(FIXTURES, "kcidb-v5-tests.schema.json")
RTTESTS_TOP = ["file_version", "cmdline:", "rt_test_version:", "start_time", "end_time", "return_code",
               "sysinfo", "num_threads", "resolution_in_ns", "thread"]
RTTESTS_THREAD = ["histogram", "cycles", "min", "max", "avg", "cpu", "node"]


def junit(path):
    """Validates against the XSD; returns the parsed tree's root."""
    proc = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], capture_output=True, text=True)
    assert proc.returncode == 0, f"{path} does not validate:\n{proc.stderr[-3000:]}"
    return ET.parse(path).getroot()


def _no_null(value, where="$"):
    if value is None:
        raise AssertionError(f"KCIDB forbids null: {where}")
    if isinstance(value, dict):
        for k, v in value.items():
            _no_null(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _no_null(v, f"{where}[{i}]")


def kcidb(path):
    """Validates against the schema; returns the document."""
    import jsonschema
    with open(KCIDB_SCHEMA) as f:
        schema = json.load(f)
    doc = rtt.load(path)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"{path}: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    _no_null(doc)
    ids = [t["id"] for t in doc.get("tests", [])]
    assert len(ids) == len(set(ids)), "duplicate KCIDB test ids"
    return doc


def rttests(path):
    """Reads a cyclictest --json file: {thread id: {min, avg, max, cycles, histogram{us: count}, cpu, node}}."""
    doc = rtt.load(path)
    assert doc["file_version"] == 1 and isinstance(doc["return_code"], int), doc.get("file_version")
    assert isinstance(doc["num_threads"], int) and doc["num_threads"] == len(doc["thread"]), doc["num_threads"]
    assert sorted(doc["sysinfo"]) == sorted(["sysname", "nodename", "release", "version", "machine", "realtime"])
    threads = {}
    for tid, t in doc["thread"].items():
        assert tid.isdigit(), tid
        for key in ("cycles", "min", "max", "cpu", "node"):
            assert isinstance(t[key], int), (tid, key, t[key])
        assert isinstance(t["avg"], (int, float)), (tid, t["avg"])
        hist = {int(us): count for us, count in t["histogram"].items()}
        assert all(isinstance(c, int) and c > 0 for c in hist.values()), (tid, hist)
        assert sum(hist.values()) <= t["cycles"], (tid, sum(hist.values()), t["cycles"])
        assert not hist or (t["min"] <= min(hist) and max(hist) <= t["max"]), (tid, t["min"], t["max"])
        assert t["min"] <= t["avg"] <= t["max"] + 1, (tid, t["min"], t["avg"], t["max"])
        threads[int(tid)] = dict(t, histogram=hist)
    return doc, threads


def shape(doc):
    """Keys and value types of a cyclictest --json document, for comparing two of them."""
    top = {k: type(v).__name__ for k, v in doc.items() if k != "rtthrottle"}
    thread = {k: type(v).__name__ for t in doc["thread"].values() for k, v in t.items()}
    return top, {k: ("number" if v in ("int", "float") and k == "avg" else v) for k, v in thread.items()}
