#!/usr/bin/env python3
"""Fails when an #include "..." crosses a floor the wrong way.

The floors and what each may include are in scripts/layers.txt (the one place the map is written). Every
tracked C++/CUDA source outside tests/ is read; a quoted include with a folder in it ("storage/job.hpp") is
checked against its file's floor. Prints one line per violation (file:line, the include, the two floors, the
fix) and exits 1 when there is any; exits 0 with a one-line count otherwise.

Usage: check-layers.py [--root DIR] [--map FILE]   (default: the repository this script is in)
"""
import argparse
import pathlib
import re
import subprocess
import sys

SOURCE = re.compile(r"\.(cpp|hpp|cu|cuh|h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+/[^"]+)"')


def read_map(path):
    floors = []  # (name, [prefixes], {allowed floors}, [allowed single files])
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([a-z_]+):\s*(.+?)\s*->\s*(.*)", line)
        if not match:
            sys.exit(f"{path}:{number}: not '<floor>: <prefixes> -> <floors>': {line}")
        name, prefixes, allowed = match.groups()
        words = allowed.split()
        floors.append((name, [p.strip() for p in prefixes.split(",")], {w for w in words if "/" not in w},
                       [w for w in words if "/" in w]))
    names = {f[0] for f in floors}
    for name, _, allowed, _ in floors:
        for other in allowed - names:
            sys.exit(f"{path}: floor {name} names an unknown floor {other}")
    return floors


def floor_of(path, floors):
    best, length = None, -1
    for name, prefixes, _, _ in floors:
        for prefix in prefixes:
            if path.startswith(prefix) and len(prefix) > length:
                best, length = name, len(prefix)
    return best


def main():
    here = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=pathlib.Path, default=here)
    parser.add_argument("--map", type=pathlib.Path, default=here / "scripts" / "layers.txt")
    args = parser.parse_args()
    floors = read_map(args.map)
    by_name = {f[0]: f for f in floors}
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=args.root,
                            capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else [
        str(p.relative_to(args.root)) for p in args.root.rglob("*") if p.is_file()]
    bad = checked = 0
    for rel in sorted(files):
        if not SOURCE.search(rel) or rel.startswith("tests/") or rel.startswith("build/"):
            continue
        source = floor_of(rel, floors)
        if source is None:
            print(f"{rel}: in no floor of {args.map.name}; add its folder there")
            bad += 1
            continue
        _, _, allowed, files_allowed = by_name[source]
        for number, line in enumerate((args.root / rel).read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            checked += 1
            include = match.group(1)
            target = floor_of(include, floors)
            if target is None or target == source or target in allowed or include in files_allowed:
                continue
            print(f"{rel}:{number}: includes {include}: floor {source} may not include floor {target} "
                  f"({args.map.name}); move the shared code down a floor or change the map")
            bad += 1
    if bad:
        print(f"check-layers: {bad} include(s) cross a floor the wrong way")
        return 1
    print(f"check-layers: {checked} includes checked, none crosses a floor the wrong way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
