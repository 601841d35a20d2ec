# SPDX-License-Identifier: GPL-2.0-only
"""The README and the guides in doc/ hold together: every relative link (and anchor) resolves,
every `rtthrottle COMMAND` the README names is one `rtthrottle --help` lists, the README stays
short and gives the test command .ci/run runs, and every guide opens with what it is for.
No root, nothing measured."""
import glob
import os
import re

import rtt

README = os.path.join(rtt.ROOT, "README.md")
GUIDES = sorted(glob.glob(os.path.join(rtt.ROOT, "doc", "*.md")))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _read(path):
    with open(path) as f:
        return f.read()


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"[`*_]{1,2}(?=\S)|(?<=\S)[`*_]{1,2}", "", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    for line in FENCE.sub("", _read(path)).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path):
    """(target, anchor) of each relative link outside code blocks."""
    for target in LINK.findall(FENCE.sub("", _read(path))):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        yield file_part, anchor


def test_every_relative_link_in_readme_and_guides_resolves():
    assert GUIDES, "no doc/*.md"
    broken = []
    for path in [README] + GUIDES:
        for file_part, anchor in links(path):
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{os.path.relpath(path, rtt.ROOT)}: ({file_part}{'#' + anchor if anchor else ''})"
            if not os.path.exists(dest):
                broken.append(f"{where}: no such file")
            elif anchor and (not dest.endswith(".md") or anchor not in anchors(dest)):
                broken.append(f"{where}: no heading with that anchor")
    assert not broken, "\n".join(broken)


def test_the_link_check_finds_a_broken_link_and_anchor():
    assert slug("What a run changes, and how it puts it back") == "what-a-run-changes-and-how-it-puts-it-back"
    assert slug("Bisecting a kernel (`git bisect run`)") == "bisecting-a-kernel-git-bisect-run"
    assert slug("The machine's stalls, measured") == "the-machines-stalls-measured"
    assert "no-such-heading" not in anchors(README) and "commands" in anchors(README)


def help_commands():
    if not os.access(rtt.BINARY, os.X_OK):
        raise AssertionError(f"{rtt.BINARY}: not built (make)")
    out = rtt.run(["--help"]).stdout
    block = out.split("Commands:", 1)[1].split("\n\n", 1)[0]
    return {line.split()[0] for line in block.splitlines() if line.startswith("  ") and line.split()}


def readme_commands():
    """Each word after `rtthrottle ` where it starts a code span or a line of a code block."""
    text = _read(README)
    code = [m.group(0) for m in FENCE.finditer(text)] + re.findall(r"`([^`\n]+)`", FENCE.sub("", text))
    names = set()
    for snippet in code:
        for line in snippet.splitlines():
            for m in re.finditer(r"(?:^|[\s$(])rtthrottle ([a-z][a-z-]*)", line.strip()):
                names.add(m.group(1))
    return names


def test_every_command_the_readme_names_exists_in_rtthrottle_help():
    listed = help_commands()
    assert {"run", "plan", "compare", "soak"} <= listed, listed
    named = readme_commands()
    assert {"run", "plan", "export", "compare"} <= named, named
    assert named <= listed, f"the README names commands rtthrottle --help does not list: {sorted(named - listed)}"
    # And the README's command table lists every command there is.
    assert listed <= named, f"rtthrottle --help lists commands the README does not name: {sorted(listed - named)}"


def test_readme_is_short_and_gives_the_test_command_ci_runs():
    text = _read(README)
    assert len(text.splitlines()) <= 300, f"README.md has {len(text.splitlines())} lines; the guides in doc/ take the rest"
    first_block = FENCE.search(text.split("## Two commands", 1)[1]).group(0)
    assert re.search(r"^make run\b", first_block, re.M) and re.search(r"^make test\b", first_block, re.M), first_block
    ci = _read(os.path.join(rtt.ROOT, ".ci", "run"))
    assert re.search(r"^make test$", ci, re.M), ".ci/run no longer runs the README's test command"


def test_every_guide_opens_with_what_it_is_for():
    for path in GUIDES:
        lines = _read(path).splitlines()
        assert lines and lines[0].startswith("# "), f"{path}: no title"
        body = [line for line in lines[1:] if line.strip()]
        assert body and not body[0].startswith(("#", "|", "-", "```", "!")), \
            f"{path}: the title is not followed by a paragraph saying what the guide is for"
