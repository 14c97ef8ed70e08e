#!/usr/bin/env python3
"""Every citation of docs/METHODS.md names a section it has, and no file cites a tracker by number.

Usage: methods_citations_test.py SOURCE_DIR

Citations: the one form is `METHODS.md "Heading"`, naming a `##` heading of docs/METHODS.md exactly (in a C++
string literal the quotes are escaped, `METHODS.md \\"Heading\\"`); a Markdown link may name a heading's anchor
instead, `METHODS.md#anchor`; the path `docs/METHODS.md` names the whole document. Fails on: a quoted
heading or an anchor that docs/METHODS.md does not have, "METHODS.md" with neither a heading nor its path
("(METHODS.md)", which names no section), "METHODS" without ".md" (the old "METHODS default" form), a path to
it other than docs/METHODS.md (the old shared/METHODS.md), and, inside docs/METHODS.md, a cross-reference
("Heading") to a heading it does not have. Every text file of the repository is read (sources, configs, docs,
README.md, golden sheets, fuzz corpora), build trees and .git left out.

Tracker numbers: a comment or text that says "issue 19", "#19 tracker" or "at stop 20" points at a tracker that is not in the
repository; it must say the reason instead. References to other projects' trackers carry a '#' and their
project's name ("NCCL issue #864", "vLLM PR #10511") and are sources, not tracker numbers.
"""

import os
import re
import sys

METHODS = "docs/METHODS.md"
TEXT_SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".py", ".sh", ".yaml", ".yml", ".md", ".txt", ".cmake",
                 ".json", ".csv", ".sbatch", ".in")
SKIP_DIRS = {".git", "__pycache__"}
THIS = "tests/tools/methods_citations_test.py"
HEADING = re.compile(r"^##\s+(.+?)\s*$", re.M)
# METHODS.md "Heading", the quotes possibly escaped in a string literal, the heading possibly after a line
# break and a comment leader.
QUOTED = re.compile(r'METHODS\.md[ \t]*(?:\n[ \t]*(?://|#)?[ \t]*)?(\\?)"([^"\\\n]+)\\?"')
ANCHOR = re.compile(r"METHODS\.md#([A-Za-z0-9_-]+)")
NAME = re.compile(r"METHODS\.md")
WORD = re.compile(r"\bMETHODS\b(?!\.md)")
PATH = re.compile(r"([\w.-]*/)+METHODS\.md")
CROSS = re.compile(r'\("([^"\n]+)"\)')
TRACKER = re.compile(r"\b[Ii]ssues?\s+\d+|#\d+\s+tracker|\b(?:at|before|after|since) stop \d+|\(stop \d+\)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(text):
    return HEADING.findall(text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_citations(rel, text, known):
    """Problems of one file's citations, as 'file:line: ...' strings."""
    problems = []
    anchors = {slug(h) for h in known}
    for m in QUOTED.finditer(text):
        if m.group(2) not in known:
            problems.append(f'{rel}:{line_of(text, m.start())}: cites METHODS.md "{m.group(2)}", '
                            f"which is not a heading of {METHODS}")
    for m in ANCHOR.finditer(text):
        if m.group(1) not in anchors:
            problems.append(f"{rel}:{line_of(text, m.start())}: links METHODS.md#{m.group(1)}, "
                            f"which is not an anchor of {METHODS}")
    cited = {m.start() for m in QUOTED.finditer(text)} | {m.start() for m in ANCHOR.finditer(text)}
    for m in NAME.finditer(text):
        if m.start() not in cited and not text.startswith("docs/", max(0, m.start() - 5)):
            problems.append(f"{rel}:{line_of(text, m.start())}: cites METHODS.md without a section; the form is "
                            f'METHODS.md "Heading" (or the path {METHODS} for the whole document)')
    for m in WORD.finditer(text):
        problems.append(f"{rel}:{line_of(text, m.start())}: cites METHODS without .md; the form is "
                        f'METHODS.md "Heading"')
    for m in PATH.finditer(text):
        if m.group(0) != METHODS and not m.group(0).endswith("/" + METHODS):
            problems.append(f"{rel}:{line_of(text, m.start())}: names {m.group(0)}; the document is {METHODS}")
    return problems


def check_cross_references(text, known):
    return [f'{METHODS}:{line_of(text, m.start())}: refers to ("{m.group(1)}"), which is not a heading'
            for m in CROSS.finditer(text) if m.group(1) not in known]


def check_trackers(rel, text):
    return [f'{rel}:{line_of(text, m.start())}: "{m.group(0)}" cites a tracker that is not in the repository; '
            f"say the reason instead" for m in TRACKER.finditer(text)]


def self_test(known):
    """The checks catch what they are for; a check that cannot fail would pass any tree."""
    some = sorted(known)[0]
    bad = {
        'x METHODS.md "No such section" y': 1,
        'fmt::format("eta (METHODS.md \\"No such section\\")")': 1,
        "// (METHODS.md\n// \"No such section\")": 1,
        "see [m](docs/METHODS.md#no-such-section)": 1,
        "METHODS default: good kernels": 1,
        "the table in shared/METHODS.md": 2,
        "~7.9 GB/s (METHODS.md)": 1,
        "// (issue 19, point 5)": 0,
    }
    for text, citations in bad.items():
        assert len(check_citations("self", text, known)) == citations, text
    assert check_citations("self", f'METHODS.md "{some}" and docs/METHODS.md#{slug(some)}', known) == []
    assert check_citations("self", "read on in docs/METHODS.md.", known) == []
    assert check_citations("self", f'fmt::format("(METHODS.md \\"{some}\\")")', known) == []
    assert len(check_trackers("self", "// (issue 19, point 5) and Issue 16 and #12 tracker")) == 3
    assert len(check_trackers("self", "before (stop 20) | 66 min at stop 20")) == 2
    assert check_trackers("self", "NCCL issue #864; vLLM PR #10511; tissue 3") == []
    assert len(check_cross_references('("No such section")', known)) == 1


def text_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not (rel_dir == "." and
                                                                                d.startswith("build")))
        for name in sorted(filenames):
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if name.endswith(TEXT_SUFFIXES) or name == "CMakeLists.txt" or "golden" in rel or \
                    rel.startswith("fuzz/corpus/"):
                yield rel


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    with open(os.path.join(root, METHODS), encoding="utf-8") as f:
        methods_text = f.read()
    known = set(headings(methods_text))
    if not known:
        print(f"{METHODS} has no ## headings", file=sys.stderr)
        return 1
    self_test(known)
    problems = check_cross_references(methods_text, known)
    files = 0
    for rel in text_files(root):
        if rel == THIS:
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        files += 1
        if rel != METHODS:
            problems += check_citations(rel, text, known)
        problems += check_trackers(rel, text)
    for p in problems:
        print(p)
    print(f"{files} files, {len(known)} sections of {METHODS}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
