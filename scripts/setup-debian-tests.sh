#!/usr/bin/env bash
# Adds to scripts/setup-debian.sh the Debian 12 packages mlbench's tests and CI use: GoogleTest and Google
# Benchmark, Python with jsonschema and YAML, clang 14 with its sanitizer and libFuzzer runtimes (the asan
# preset), clang-format and clang-tidy 14 (scripts/lint.sh), patchelf (the GPU bundle), losetup and mkfs (the
# storage safety tests), fio and likwid (the comparison scripts), and the one-node Slurm cluster's slurm-wlm and
# munge (tests/tools/slurm_test.sh). No service is started or enabled (scripts/apt-install-no-services.sh):
# each test that needs a daemon starts its own in a temporary folder and stops it.
set -euo pipefail
packages=(
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-jsonschema python3-yaml
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14 patchelf
  util-linux e2fsprogs fio likwid
  slurm-wlm munge
)
# Optional: headless rendering of HTML reports (chromium); promtool and a real Prometheus server scraping the
# exporter (prometheus, curl). Their tests skip without them.
extras=(chromium prometheus curl)
install="$(dirname "$0")/apt-install-no-services.sh"
"$install" "${packages[@]}"
if [ "${MLBENCH_SETUP_EXTRAS:-1}" = 1 ]; then
  "$install" "${extras[@]}" || echo "setup: optional ${extras[*]} not installed; their tests will skip"
fi
