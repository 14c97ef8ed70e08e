#!/usr/bin/env python3
"""Every row of docs/RELIABILITY.md's proof tables names a test, and every test it names exists.

A row's "Proven by" cell names tests as `tests/<file>::Suite.Test` (a parameterised one as
`Prefix/Suite.Test` or `Prefix/Suite.Test/param`) or names a test script by its path. The check: the file
exists, and a gtest row's file defines that suite and test (TEST, TEST_F or TEST_P). A row naming a test that
was renamed or removed fails here instead of promising a proof that is gone.
"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
doc = (root / "docs/RELIABILITY.md").read_text()

# Anything in backticks that starts with tests/ and is a file, optionally followed by ::Suite.Test.
refs = re.findall(r"`(tests/[^`\s]+?)(?:::([^`\s]+))?`", doc)
missing = []
names = 0
for path, test in refs:
    if "<" in path:  # a pattern such as tests/data/fuzz/<target>/, not a test
        continue
    f = root / path
    if not f.is_file():
        missing.append(f"{path}: no such file")
        continue
    if not test:
        continue
    # Suite.Test, Prefix/Suite.Test or Prefix/Suite.Test/param; "…" abbreviates a fuzz target's prefix.
    parts = test.split("/")
    core = next((p for p in parts if "." in p), None)
    if core is None:
        missing.append(f"{path}::{test}: not a Suite.Test name")
        continue
    suite, name = core.split(".", 1)
    pattern = re.compile(r"TEST(?:_F|_P)?\(\s*" + re.escape(suite) + r"\s*,\s*" + re.escape(name) + r"\s*\)")
    names += 1
    if not pattern.search(f.read_text()):
        missing.append(f"{path}::{test}: {suite}.{name} is not defined there")

# A table whose last column is headed exactly "Proven by" is a proof table: each of its rows names a test.
unproven = []
in_proof_table = False
for number, line in enumerate(doc.splitlines(), 1):
    if not line.startswith("|"):
        in_proof_table = False
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if cells[-1] == "Proven by":
        in_proof_table = True
        continue
    if in_proof_table and not set(cells[0]) <= set("-: ") and "`tests/" not in cells[-1]:
        unproven.append(f"line {number}: {cells[0][:80]}")
for u in unproven:
    missing.append(f"a row that names no test: {u}")

if missing:
    print("docs/RELIABILITY.md names tests that do not exist, or has rows that name none:")
    for m in missing:
        print("  " + m)
    sys.exit(1)
print(f"docs/RELIABILITY.md: {len(refs)} references, {names} gtest names, all exist")
