#!/bin/bash
# The main job's build needs none of the test tools: configured as on a machine where only scripts/setup-debian.sh
# ran (GoogleTest and Google Benchmark not found: CMAKE_DISABLE_FIND_PACKAGE_*), the project configures, the
# summary says the tests are left out and how to get them, `mlbench` is still a target, no test executable is,
# and ctest's only test fails naming scripts/setup-debian-tests.sh, so that a test run cannot pass with the tests
# left out. Configure only (no compiler run beyond CMake's checks): a few seconds.
#
# Usage: tests/tools/build_without_tests_test.sh SOURCE_DIR     (CTest: tools.build_without_tests)
set -uo pipefail
src=$(realpath "${1:?usage: build_without_tests_test.sh SOURCE_DIR}")
fail() {
  echo "build_without_tests_test: FAIL: $*" >&2
  exit 1
}
tmp=$(mktemp -d /tmp/mlbench-notests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cmake -S "$src" -B "$tmp" -G Ninja -DMLBENCH_ENABLE_CUDA=OFF -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >"$tmp/configure.log" 2>&1 ||
  fail "configure without GoogleTest and Google Benchmark failed: $(tail -n 20 "$tmp/configure.log")"
grep -q "tests: no (.*scripts/setup-debian-tests.sh)" "$tmp/configure.log" ||
  fail "the configure summary does not say the tests are left out: $(tail -n 15 "$tmp/configure.log")"
targets=$(ninja -C "$tmp" -t targets all 2>&1) || fail "ninja -t targets: $targets"
grep -q '^mlbench: ' <<<"$targets" || fail "no mlbench target"
built_tests=$(grep -oE '^tests/[^:]+: CXX_EXECUTABLE_LINKER' <<<"$targets")
[ -z "$built_tests" ] || fail "test executables in a build without GoogleTest: $built_tests"
listed=$(cd "$tmp" && ctest -N)
[ "$(grep -c 'Test *#' <<<"$listed")" -eq 1 ] || fail "ctest lists more than the one failing test: $listed"
out=$(cd "$tmp" && ctest --output-on-failure 2>&1) && fail "ctest passed with the tests left out: $out"
grep -q "the tests are not built: .*scripts/setup-debian-tests.sh" <<<"$out" ||
  fail "the failing test does not name scripts/setup-debian-tests.sh: $out"
echo "build_without_tests_test: ok: mlbench configures without the test tools; ctest fails naming the set-up"
