# SPDX-License-Identifier: GPL-2.0-only
"""Malformed scenario files (tests/bad-input/scenarios): `run --scenario-file FILE` refuses each
before anything runs, with exit 2 and a message naming the file and the field, the knobs
unchanged and no results written. What each must say is the table in that folder's README.md.

Needs no root: the files fail validation first. As root the binary is run as user 65534 anyway,
so that a file the loader wrongly accepts cannot start a measuring run (it would skip, exit 4,
and write a results file: both make the test fail).
"""
import os
import shutil
import tempfile

import rtt

CORPUS = os.path.join(rtt.ROOT, "tests", "bad-input", "scenarios")
NOBODY = "65534"


def _table():
    """{file name: (field, message text)} from the README's table."""
    rows, header = {}, None
    with open(os.path.join(CORPUS, "README.md")) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
                continue
            if not "".join(cells).strip("-: "):
                continue  # the |---| line
            row = dict(zip(header, cells))
            name = row["file"].strip("`")
            assert name not in rows, f"README.md lists {name} twice"
            rows[name] = (row["field"].strip("`"), row["message says"].strip("`"))
    assert header and {"file", "field", "message says"} <= set(header), f"README.md table header: {header}"
    return rows


def _corpus_files():
    return sorted(f for f in os.listdir(CORPUS) if f.endswith(".json"))


def _run_as():
    """The user to run the binary as: ourselves, or nobody when we are root."""
    if os.geteuid() != 0:
        return None
    for path in (rtt.BINARY, CORPUS, os.path.join(rtt.ROOT, "workloads", "scenarios")):
        while path != "/":
            path = os.path.dirname(path)
            if not os.stat(path).st_mode & 0o001:
                raise rtt.Skip(f"{path} is not searchable by other users (needed to run as {NOBODY})")
    return NOBODY


def _refused(path, shown, field, says, user):
    """Problems with running the binary on one file (path as given on the command line)."""
    out_dir = tempfile.mkdtemp(prefix="rtt-bad-scenario-")
    try:
        os.chmod(out_dir, 0o777)  # writable by the user the binary runs as, so a wrong run shows
        output = os.path.join(out_dir, "r.json")
        before = rtt.read_knobs()
        proc = rtt.run(["run", "--scenario-file", path, "--output", output], timeout=30, user=user)
        after = rtt.read_knobs()
        problems = []
        if proc.returncode != 2:
            problems.append(f"exit {proc.returncode}, want 2")
        if f"rtthrottle: {shown}: " not in proc.stderr:
            problems.append(f"stderr does not name the file as 'rtthrottle: {shown}: '")
        if field not in proc.stderr:
            problems.append(f"stderr does not name the field {field}")
        if says not in proc.stderr:
            problems.append(f"stderr does not say '{says}'")
        if proc.stdout:
            problems.append(f"printed on stdout: {proc.stdout[:200]!r}")
        if after != before:
            problems.append(f"knobs changed: {before} -> {after}")
        if os.listdir(out_dir):
            problems.append(f"wrote {os.listdir(out_dir)}")
        if problems:
            problems.append(f"stderr: {proc.stderr.strip()[:400]!r}")
        return problems
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def test_every_corpus_file_has_a_row_and_every_row_a_file():
    files, rows = _corpus_files(), _table()
    assert files, f"no *.json in {CORPUS}"
    assert set(files) == set(rows), (
        f"files without a row: {sorted(set(files) - set(rows))}; rows without a file: {sorted(set(rows) - set(files))}")


def test_each_bad_scenario_exits_2_naming_file_and_field():
    user = _run_as()
    rows = _table()
    failures = []
    for name in _corpus_files():
        if name not in rows:
            failures.append(f"{name}: no row in README.md")
            continue
        field, says = rows[name]
        path = os.path.join(CORPUS, name)
        failures += [f"{name}: {p}" for p in _refused(path, path, field, says, user)]
    assert not failures, "\n".join(failures)


def test_relative_path_is_named_as_given():
    # rtt.run starts the binary in the repository root.
    user = _run_as()
    field, says = _table()["unknown-role.json"]
    relative = os.path.join("tests", "bad-input", "scenarios", "unknown-role.json")
    problems = _refused(relative, relative, field, says, user)
    assert not problems, "\n".join(problems)
