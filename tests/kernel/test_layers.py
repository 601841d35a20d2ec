# SPDX-License-Identifier: GPL-2.0-only
"""The harness's layers (harness/README.md) hold in the code: the file-level call graph, read from
the built objects (`nm`: each undefined symbol of a file joined to the file that defines it), has
no cycle between files and no call from a lower layer to a higher one. Needs `make` first; writes
nothing. Run alone (`/usr/bin/python3 tests/kernel/test_layers.py`) it prints the graph's edges."""
import functools
import glob
import os
import subprocess
import sys

import rtt

# Top to bottom: a file may call its own layer (without cycles) and the layers below it.
LAYERS = ["harness/cli", "harness/compare", "harness/run", "harness/output", "harness/judge", "harness/measure",
          "workloads", "harness/common"]
BUILD = os.path.join(rtt.ROOT, "build")


def objects():
    """{source path relative to ROOT: object path} for every built object whose source exists."""
    found = {}
    for obj in glob.glob(os.path.join(BUILD, "harness", "*", "*.o")) + glob.glob(os.path.join(BUILD, "workloads", "*.o")):
        source = os.path.relpath(obj, BUILD)[:-2] + ".c"
        if os.path.exists(os.path.join(rtt.ROOT, source)):
            found[source] = obj
    return found


def symbols(obj):
    """(defined, undefined) global symbols of an object."""
    out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for fields in (line.split() for line in out.splitlines() if line.strip()):
        (undefined if fields[-2] == "U" else defined).add(fields[-1])
    return defined, undefined


@functools.lru_cache(maxsize=1)
def call_graph():
    """{(caller, callee): sorted symbols}, between distinct source files."""
    objs = objects()
    assert objs, f"no objects under {BUILD}/harness: run make first"
    table = {source: symbols(obj) for source, obj in objs.items()}
    defined_by = {}
    for source, (defined, _) in table.items():
        for sym in defined:
            defined_by.setdefault(sym, []).append(source)  # trace_none/trace_tracefs both define the recorder
    edges = {}
    for source, (_, undefined) in table.items():
        for sym in undefined:
            for callee in defined_by.get(sym, []):
                if callee != source:
                    edges.setdefault((source, callee), []).append(sym)
    return {edge: sorted(syms) for edge, syms in edges.items()}


def layer_of(source):
    folder = os.path.dirname(source)
    return LAYERS.index(folder) if folder in LAYERS else None


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan), each sorted."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return found


def describe(edges, pairs):
    return "\n".join(f"  {a} -> {b}: {' '.join(edges[(a, b)])}" for a, b in sorted(pairs))


def test_every_file_is_in_a_layer():
    unplaced = sorted(s for s in objects() if layer_of(s) is None)
    assert not unplaced, f"folders missing from LAYERS in {__file__}: {unplaced}"


def test_no_call_from_a_lower_layer_to_a_higher_one():
    edges = call_graph()
    up = [(a, b) for a, b in edges
          if layer_of(a) is not None and layer_of(b) is not None and layer_of(a) > layer_of(b)]
    assert not up, (f"{len(up)} calls from a lower layer to a higher one (order: {', '.join(LAYERS)}):\n"
                    + describe(edges, up))


def test_no_call_cycles_between_files():
    edges = call_graph()
    found = cycles(edges)
    assert not found, "call cycles between files:\n" + "\n".join(
        f" {' <-> '.join(c)}:\n" + describe(edges, [(a, b) for a, b in edges if a in c and b in c]) for c in found)


if __name__ == "__main__":
    graph = call_graph()
    print(describe(graph, graph))
    failed = 0
    for test in (test_every_file_is_in_a_layer, test_no_call_from_a_lower_layer_to_a_higher_one,
                 test_no_call_cycles_between_files):
        try:
            test()
        except AssertionError as e:
            failed += 1
            print(f"not ok {test.__name__}\n{e}", file=sys.stderr)
    sys.exit(1 if failed else 0)
