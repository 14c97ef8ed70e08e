#!/usr/bin/env python3
"""Every `mlbench ...` command the documentation shows runs with this build.

Usage: readme_commands_test.py REPO_ROOT PATH/TO/mlbench     (CTest: tools.readme_commands)

The commands are taken from README.md, docs/**/*.md and configs/**/*.md: every line of a fenced code block and
every inline code span, split at `&&`, `||`, `;` and a bare `|`; a part is a command when its first word
(after `sudo` and VAR=value assignments) is `mlbench` or a path ending in /mlbench. Each command is checked
against the binary itself, so a renamed subcommand, flag or file fails here:
  1. the subcommand is one `mlbench --help` lists (`gemm|hbm` names several: each must be);
  2. every flag (-o, --format, --flag=value, [--flag ...] in a synopsis) is an option `mlbench SUB --help`
     lists;
  3. every path into this repository (a relative path whose first part is a top-level folder of the repo,
     e.g. configs/workloads/x.yaml) exists;
  4. a code-block command (a line to type; an inline span is often a fragment, `mlbench dataload --step-time
     0`) whose subcommand has --dry-run, written out in full (no synopsis brackets or `...`), runs with
     --dry-run appended in an empty temporary folder and exits 0. Its repository paths are made absolute; an
     absolute path that does not exist here (/mnt/nvme0, the docs' example of the reader's own drive) is given
     as a temporary stand-in: a folder, or a new file's path when its name has a suffix. It may instead exit 2
     naming one of the command's own relative names that does not exist (my_workload.yaml: the reader's
     file), naming a stand-in as having too little free space (the reader's drive is larger than this
     machine's /tmp), or because this build has no CUDA or this machine no GPU (a GPU command naming --devices
     0); anything else fails.
Inline spans and commands without --dry-run (compare, check, size, export, ...) get checks 1-3.
And the README's test command (its code-block line that runs ctest) is a line of .ci/run as printed: CI runs
what the README tells a reader to run.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

root = Path(sys.argv[1]).resolve()
exe = str(Path(sys.argv[2]).resolve())

docs = [root / "README.md"] + sorted((root / "docs").rglob("*.md")) + sorted((root / "configs").rglob("*.md"))
top_level = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}


def code_texts(path):
    """(line number, text, whether it is a code-block line) of every code-block line and inline code span."""
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield number, line, True
        else:
            for m in re.finditer(r"(`+)(.+?)\1", line):
                yield number, m.group(2), False


def commands(text):
    """The mlbench commands in one line of shell: each as its argument words (after `mlbench`)."""
    try:
        words = shlex.split(text, comments=True)
    except ValueError:  # unbalanced quotes: prose, not a command
        return
    part, depth = [], 0
    for w in words + [";"]:
        depth += w.count("[") - w.count("]")
        if w in ("&&", "||", ";") or (w == "|" and depth <= 0) or w.startswith(">") or w.startswith("2>"):
            while part and (part[0] == "sudo" or re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", part[0])):
                part.pop(0)
            if part and (part[0] == "mlbench" or part[0].endswith("/mlbench")) and len(part) > 1:
                yield part[1:]
            part, depth = [], 0
        else:
            part.append(w)


def run(args, cwd=None):
    return subprocess.run([exe] + args, cwd=cwd, capture_output=True, text=True, timeout=60)


def listed_options(help_text):
    """The option names of a CLI11 help text: the first field of each option line, split at commas."""
    names = set()
    for line in help_text.splitlines():
        m = re.match(r"  (-\S+)", line)
        if m:
            names.update(m.group(1).split(","))
    return names


main_help = run(["--help"]).stdout
subcommands = set(re.findall(r"^  ([a-z][a-z0-9-]*)  ", main_help.split("Subcommands:", 1)[-1], re.M))
if not subcommands:
    sys.exit(f"readme_commands_test: no subcommands in `mlbench --help`:\n{main_help}")
options = {}


def options_of(sub):
    if sub not in options:
        options[sub] = listed_options(run([sub, "--help"]).stdout)
    return options[sub]


def repo_path(word):
    """The repository file a word names, or None: a relative path whose first part is a top-level folder."""
    word = word.strip("[]").rstrip(".,")
    if "/" not in word or word.startswith(("/", "~", "$", "@")) or "=" in word:
        return None
    return word if word.split("/", 1)[0] in top_level else None


def dry_run(args):
    """Check 4 for one command: None when it passes, else why not."""
    tmp = Path(tempfile.mkdtemp(prefix="mlbench-doc-", dir=os.environ.get("TMPDIR", "/tmp")))
    try:
        given = []
        for i, w in enumerate(args):
            if repo_path(w):
                given.append(str(root / w))
            elif w.startswith("/") and not os.path.lexists(w):
                stand_in = tmp / "stand-in" / f"{i}-{Path(w).name}"
                stand_in.parent.mkdir(parents=True, exist_ok=True)
                if not Path(w).suffix:
                    stand_in.mkdir()
                given.append(str(stand_in))
            else:
                given.append(w)
        work = tmp / "cwd"
        work.mkdir()
        r = run(given + ["--dry-run"], cwd=work)
        if r.returncode == 0:
            return None
        err = r.stderr.strip()
        own_names = [w for w in args if not w.startswith(("-", "/")) and "/" not in w and re.search(r"\.\w+$", w)]
        stand_in_too_small = str(tmp / "stand-in") in err and re.search(r"needs .* only .* is free", err)
        if r.returncode == 2 and (
            "built without CUDA" in err
            or "this machine has no CUDA GPU" in err
            or stand_in_too_small
            or any(n in err and not (work / n).exists() for n in own_names)
        ):
            return None
        return f"--dry-run exited {r.returncode}: {err or r.stdout.strip()[-300:]}"
    finally:
        subprocess.run(["rm", "-rf", "--", str(tmp)], check=False)


failures = []
checked = dry_runs = 0
for doc in docs:
    rel = doc.relative_to(root)
    for number, text, block in code_texts(doc):
        for args in commands(text):
            where = f"{rel}:{number}: mlbench {' '.join(args)}"
            checked += 1
            names = args[0].split("|")
            unknown = [n for n in names if n not in subcommands]
            if unknown:
                failures.append(f"{where}\n    unknown subcommand {', '.join(unknown)} (mlbench --help lists: "
                                f"{', '.join(sorted(subcommands))})")
                continue
            for sub in names:
                for w in args[1:]:
                    flag = re.match(r"\[?(--?[A-Za-z][\w-]*)", w)
                    if flag and flag.group(1) not in options_of(sub):
                        failures.append(f"{where}\n    mlbench {sub} has no option {flag.group(1)}")
            for w in args[1:]:
                p = repo_path(w)
                if p and not (root / p).exists():
                    failures.append(f"{where}\n    {p}: no such file in the repository")
            synopsis = any("[" in w or w.endswith("...") for w in args) or len(names) > 1
            if block and not synopsis and "--dry-run" in options_of(names[0]) and not any(f.startswith(where) for f in failures):
                dry_runs += 1
                why = dry_run(args if "--dry-run" not in args else [w for w in args if w != "--dry-run"])
                if why:
                    failures.append(f"{where}\n    {why}")

ci_lines = {line.strip() for line in (root / ".ci/run").read_text().splitlines()}
readme_test_commands = [t.strip() for _, t, block in code_texts(root / "README.md") if block and "ctest " in t]
if not readme_test_commands:
    failures.append("README.md: no test command (a code-block line running ctest)")
for command in readme_test_commands:
    if command not in ci_lines:
        failures.append(f"README.md: the test command is not a line of .ci/run: {command}")

if checked == 0:
    sys.exit("readme_commands_test: found no mlbench command in the documentation")
for f in failures:
    print(f"readme_commands_test: FAIL: {f}")
print(f"readme_commands_test: {checked} commands in {len(docs)} files, {dry_runs} run with --dry-run, "
      f"{len(failures)} failed")
sys.exit(1 if failures else 0)
