#!/bin/bash
# Times README command one ("Set up, build, measure this machine and size a cluster from it"), taken from the
# README of a fresh clone, as on a machine where only scripts/setup-debian.sh ran: GoogleTest and Google
# Benchmark are hidden in a private mount namespace (an empty folder bound over their headers and CMake files),
# so the build must not need them. Prints the wall and CPU times and the build's own wall time and step count.
#   cold: a new, empty ccache (a fresh machine: the set-up installs ccache, its cache is empty)
#   warm: the same clone path again, with the cache the cold run filled
# The clone, its log and the cache stay in /tmp (mlbench-fresh-clone*, mlbench-fresh-ccache) for a look.
#
# Usage: scripts/time-first-report.sh REPO cold|warm        (as root: unshare, mount)
set -euo pipefail
repo=$(realpath "${1:?usage: time-first-report.sh REPO cold|warm}")
mode=${2:?usage: time-first-report.sh REPO cold|warm}
dest=/tmp/mlbench-fresh-clone
export CCACHE_DIR=/tmp/mlbench-fresh-ccache
case $mode in
  cold) rm -rf "$CCACHE_DIR" ;;
  warm) ;;
  *) echo "time-first-report: cold or warm, not $mode" >&2 && exit 2 ;;
esac
rm -rf "$dest"
git clone -q "$repo" "$dest"
cmd=$(grep -m1 '^\./scripts/setup-debian\.sh && cmake --preset default && cmake --build' "$dest/README.md")
echo "command: $cmd"
empty=$(mktemp -d)
# shellcheck disable=SC2016 # expanded by the inner bash
unshare -m bash -c '
  for d in /usr/include/gtest /usr/include/gmock /usr/include/benchmark \
           /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/x86_64-linux-gnu/cmake/benchmark; do
    if [ -d "$d" ]; then mount --bind "$1" "$d"; fi
  done
  cd "$2"
  TIMEFORMAT="wall %0R s, CPU %0U s user + %0S s system"
  time { bash -c "$3" >"$2.log" 2>&1 || { echo "FAILED:"; tail -n 30 "$2.log"; exit 1; }; }
  grep -E "tests: " "$2.log"
' _ "$empty" "$dest" "$cmd"
rmdir "$empty"
# The build's own wall time and step count, from ninja's log (start and end milliseconds of each step).
awk 'NR > 1 { if (min == "" || $1 < min) min = $1; if ($2 > max) max = $2; n++ }
     END { printf "build: %d steps, %.0f s\n", n, (max - min) / 1000 }' "$dest/build/default/.ninja_log"
