#!/usr/bin/env bash
# CI check of the prebuilt GPU bundle on a machine without a GPU (run as root by .ci/run after the default build;
# the bundle is made from that build, no second CUDA build).
#
# run.sh runs as on a bare GPU host: `env -i` (PATH=/usr/bin:/bin and a fresh HOME), in a private mount
# namespace where every /usr/local/cuda* folder is an empty tmpfs, so neither the build tree's RUNPATH nor
# ld.so.cache can hand out a CUDA library. The CUDA libraries are offered only the way a host without a toolkit
# has them: in the Python wheels' layout under HOME's user site-packages (nvidia/cu13/lib, bind-mounted from the
# toolkit before it is hidden). run.sh must find them there, resolve every library of the bundle, find no GPU,
# say so and exit 0, leaving exactly gpu-validate.tar.gz and summary.txt in OUT.
# Usage: tests/tools/gpu_bundle_test.sh   (MLBENCH_BUILD as for scripts/gpu-bundle.sh)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${MLBENCH_BUILD:-$src/build/default}
fail() {
  echo "gpu_bundle_test: FAIL: $*" >&2
  exit 1
}
if ! grep -Eq '^#define MLBENCH_HAS_CUDA 1' "$build/generated/mlbench_config.hpp"; then
  echo "gpu_bundle_test: skipped: the build in $build has no CUDA"
  exit 0
fi
[[ $(id -u) == 0 ]] || fail "needs root (unshare -m, mount)"
toolkit_lib=$(readlink -f /usr/local/cuda/lib64)
compgen -G "$toolkit_lib/libcudart.so.*" >/dev/null || fail "no CUDA toolkit libraries in /usr/local/cuda/lib64"

tmp=$(mktemp -d /tmp/mlbench-bundle-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$src/scripts/gpu-bundle.sh" "$tmp/bundle"
home=$tmp/home
site=$home/.local/lib/python$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')/site-packages
mkdir -p "$site/nvidia/cu13/lib" "$tmp/out"
set +e
unshare -m bash -euc '
  mount --bind "$1" "$2/nvidia/cu13/lib"
  for d in /usr/local/cuda*; do [[ -L $d ]] || mount -t tmpfs none "$d"; done
  [[ ! -e /usr/local/cuda/lib64/libcudart.so.13 ]] || { echo "the toolkit is still visible" >&2; exit 3; }
  env -i PATH=/usr/bin:/bin ldd "$4"/bin/* | awk "/not found/ { print \$1 }" | sort -u >"$6"
  exec env -i PATH=/usr/bin:/bin HOME="$3" "$4/run.sh" "$5"
 ' hide "$toolkit_lib" "$site" "$home" "$tmp/bundle" "$tmp/out" "$tmp/unresolved" 2>&1 | tee "$tmp/run.out"
code=${PIPESTATUS[0]}
set -e
((code == 0)) || fail "run.sh exited $code"
# Without LD_LIBRARY_PATH and with the toolkit hidden, only the CUDA libraries may be missing.
echo "gpu_bundle_test: unresolved by ldd without run.sh: $(paste -sd' ' "$tmp/unresolved")"
others=$(grep -Ev '^lib(cuda|cudart|cublas|cublasLt|cudnn|nccl)\.so' "$tmp/unresolved" || true)
[[ -z $others ]] || fail "the bundle misses non-CUDA libraries: $(paste -sd' ' <<<"$others")"
grep -q '^libcudart' "$tmp/unresolved" || fail "ldd found cudart with the toolkit hidden: the check would prove nothing"
grep -q '^run.sh: no GPU here' "$tmp/run.out" || fail "run.sh did not say that there is no GPU"
grep -q "libcudart.so.[0-9]*  $site/nvidia/cu13/lib" "$tmp/run.out" || fail "run.sh did not find cudart in the wheel folder"
grep -q '^run.sh: every library of bin/\* resolves' "$tmp/run.out" || fail "run.sh did not check the libraries"
[[ $(ls "$tmp/out") == $'gpu-validate.tar.gz\nsummary.txt' ]] || fail "OUT holds $(ls "$tmp/out" | paste -sd' ')"
for f in environment.txt libraries.txt run.log sysinfo.json list.json; do
  tar -tzf "$tmp/out/gpu-validate.tar.gz" "./$f" >/dev/null || fail "gpu-validate.tar.gz lacks $f"
done
echo "gpu_bundle_test: ok ($(du -sh "$tmp/bundle" | cut -f1) bundle; run.sh found no GPU and exited 0 with the toolkit hidden)"
