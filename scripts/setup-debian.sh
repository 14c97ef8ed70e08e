#!/usr/bin/env bash
# Installs the Debian 12 packages mlbench builds and runs with, and nothing else: no test tool, and no service
# started or enabled (scripts/apt-install-no-services.sh). scripts/setup-debian-tests.sh adds what the tests
# need. The CUDA toolkit (with cuBLASLt, cuDNN, NCCL) is not a Debian package here: when /usr/local/cuda exists
# it is used, otherwise the GPU probes are left out. Packages already installed are left as they are; when all
# are, nothing is done (no apt-get update).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libfmt-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  liburing-dev libxlsxwriter-dev libblkid-dev libnuma-dev libssl-dev
  libopenmpi-dev openmpi-bin
)
"$(dirname "$0")/apt-install-no-services.sh" "${packages[@]}"
