#!/usr/bin/env bash
# Gathers the Debian packages of mlbench's small build dependencies into DIR (apt-get download: no install,
# no root needed), for scripts/gpu-validate.sh on a GPU host without package access.
# Usage: scripts/fetch-debs.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/fetch-debs.sh DIR}
mkdir -p "$dir"
cd "$dir"
pkgs=(libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libyaml-cpp0.7 libgtest-dev libgmock-dev
      googletest libbenchmark-dev libbenchmark1debian liburing-dev liburing2 libssl-dev libssl3)
for p in "${pkgs[@]}"; do
  apt-get download "$p" || echo "fetch-debs: could not download $p (not in this release?)" >&2
done
ls -1 ./*.deb
