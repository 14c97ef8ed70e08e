#!/usr/bin/env bash
# Installs the Debian 12 packages mlbench builds and tests with. The CUDA toolkit (with cuBLASLt, cuDNN, NCCL) is
# not a Debian package here: when /usr/local/cuda exists it is used, otherwise the GPU probes are left out.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake ninja-build pkg-config ccache git patchelf
  libfmt-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  liburing-dev libxlsxwriter-dev libblkid-dev libnuma-dev libssl-dev
  libopenmpi-dev openmpi-bin
  python3 python3-jsonschema python3-yaml
  fio likwid util-linux e2fsprogs
  clang-14 libclang-rt-14-dev
  slurm-wlm munge  # the one-node Slurm cluster of tests/tools/slurm_test.sh
)
# Optional extras used by tests that otherwise skip: headless rendering of HTML reports, promtool.
extras=(chromium prometheus)
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}"
if [ "${MLBENCH_SETUP_EXTRAS:-1}" = 1 ]; then
  $SUDO apt-get install -y -qq --no-install-recommends "${extras[@]}" || echo "setup: optional ${extras[*]} not installed; their tests will skip"
fi
