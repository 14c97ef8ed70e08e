#!/usr/bin/env bash
# The tree's C++ habits as .ci/run checks them, with the clang 14 tools scripts/setup-debian-tests.sh installs:
#
#   scripts/lint.sh format            every tracked C++ file as clang-format-14 formats it (.clang-format);
#                                     exit 1 on any difference, naming the files (fix: clang-format-14 -i FILE)
#   scripts/lint.sh tidy BUILD [BASE] clang-tidy-14 (.clang-tidy's checks) on the C++ sources that changed since
#                                     BASE, with BUILD's compile_commands.json; exit 1 on any finding
#
# BASE defaults to the merge-base with origin/main where that branch exists and HEAD is not on it (a branch's
# whole change), else HEAD~1 (the last commit's change). Only sources the build compiles are checked (a CUDA-only file needs the CUDA build); a changed
# header is checked through every compiled source that changed with it (HeaderFilterRegex). A clone without
# the base commit (a shallow one) cannot say what changed: the script stops with exit 2 and says so rather
# than checking nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

cxx=('*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')

case "${1:-}" in
format)
  # One clang-format per core over every file; each difference is reported as "FILE:LINE:COL: error: ...".
  mapfile -t bad < <(git ls-files -z -- "${cxx[@]}" |
    { xargs -0 -n 50 -P "$(nproc)" clang-format-14 --dry-run --Werror 2>&1 || true; } |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
  if [[ ${#bad[@]} -gt 0 ]]; then
    printf 'lint: not as clang-format-14 formats it: %s\n' "${bad[@]}" >&2
    echo "lint: fix with: clang-format-14 -i ${bad[*]}" >&2
    exit 1
  fi
  echo "lint: $(git ls-files -- "${cxx[@]}" | wc -l) C++ files formatted as clang-format-14 does"
  ;;
tidy)
  build=${2:?"usage: scripts/lint.sh tidy BUILD [BASE]"}
  [[ -f "$build/compile_commands.json" ]] || {
    echo "lint: $build/compile_commands.json missing; configure that build first" >&2
    exit 2
  }
  base=${3:-}
  if [[ -z "$base" ]]; then
    base=HEAD~1
    # On a branch: everything it changed. On main itself the merge-base is HEAD: the last commit's change.
    if git rev-parse -q --verify origin/main >/dev/null; then
      mb=$(git merge-base HEAD origin/main)
      [[ "$mb" == "$(git rev-parse HEAD)" ]] || base=$mb
    fi
  fi
  git rev-parse -q --verify "$base^{commit}" >/dev/null || {
    echo "lint: no commit $base to compare with (a shallow clone?); fetch more history or pass BASE" >&2
    exit 2
  }
  # The changed sources the build compiles (its compile database names them by absolute path).
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- '*.cpp' |
    python3 -c 'import json, os, sys
db = {os.path.realpath(e["file"]) for e in json.load(open(sys.argv[1]))}
for f in sys.stdin.read().split():
    if os.path.realpath(f) in db: print(f)' "$build/compile_commands.json")
  if [[ ${#files[@]} -eq 0 ]]; then
    echo "lint: no compiled C++ source changed since $base"
    exit 0
  fi
  echo "lint: clang-tidy-14 on ${#files[@]} changed source(s) since $base"
  # -j: one clang-tidy per core, as the build does.
  printf '%s\0' "${files[@]}" | xargs -0 -n 4 -P "$(nproc)" clang-tidy-14 -p "$build" --quiet || {
    echo "lint: clang-tidy-14 found the above; fix them (or, for a false positive, NOLINT(check) with why)" >&2
    exit 1
  }
  ;;
*)
  echo "usage: scripts/lint.sh format | tidy BUILD [BASE]" >&2
  exit 2
  ;;
esac
