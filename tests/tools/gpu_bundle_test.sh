#!/usr/bin/env bash
# CI check of the prebuilt GPU bundle on a machine without a GPU (run as root by .ci/run after the default build;
# the bundle is made from that build, no second CUDA build).
#
# `run.sh --plan` must list the steps within the default budget (420 s) without running anything. Then run.sh
# runs as on a bare GPU host: `env -i` (PATH=/usr/bin:/bin and a fresh HOME), in a private mount namespace where
# every /usr/local/cuda* folder is an empty tmpfs, so neither the build tree's RUNPATH nor ld.so.cache can hand
# out a CUDA library. The CUDA libraries are offered only the way a host without a toolkit has them: in the
# Python wheels' layout under HOME's user site-packages (nvidia/cu13/lib, bind-mounted from the toolkit before
# it is hidden). run.sh must find them there, resolve every library of the bundle, find no GPU, say so and exit
# 0, leaving summary.txt, gpu-validate.tar.gz and the run/ folder in OUT; the binaries must not link cuDNN
# or NCCL (loaded at their probes' start), and a run offered only cudart and cuBLASLt must still get through
# its libraries and `mlbench list`; one with --budget 10 must skip its first step, say so and fail. A last
# run has a fake nvidia-smi on PATH that lists one H200: run.sh must fail loudly within a minute ("a GPU is
# present but mlbench sees none"), with summary.txt and the tarball in OUT.
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
mkdir -p "$site/nvidia/cu13/lib" "$tmp/out" "$tmp/out-fake" "$tmp/fakebin"

plan=$("$tmp/bundle/run.sh" --plan) || fail "run.sh --plan exited $?"
echo "$plan"
total=$(awk '$1 == "total" { print $2 }' <<<"$plan")
[[ -n $total ]] && ((total <= 420)) || fail "run.sh --plan: the steps take ${total:-?} s, more than the 420 s budget"
[[ -z $(ls -A "$tmp/out") ]] || fail "run.sh --plan wrote files"

# One H200 by nvidia-smi; no driver, so mlbench sees none.
cat >"$tmp/fakebin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$1" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)" ;;
  -q) echo "Attached GPUs : 1" ;;
  *) echo "0, NVIDIA H200, 570.00, 00000000:01:00.0, 5, 5, 16, 16" ;;
esac
SMI
chmod 755 "$tmp/fakebin/nvidia-smi"

# run.sh as on a bare host, in the namespace that hides the toolkit; $1 PATH, $2 OUT, $3 its output, $4 the
# folder offered as the wheels' nvidia/cu13/lib (default: the toolkit's libraries).
bare_run() {
  unshare -m bash -euc '
    mount --bind "$1" "$2/nvidia/cu13/lib"
    for d in /usr/local/cuda*; do [[ -L $d ]] || mount -t tmpfs none "$d"; done
    [[ ! -e /usr/local/cuda/lib64/libcudart.so.13 ]] || { echo "the toolkit is still visible" >&2; exit 3; }
    env -i PATH=/usr/bin:/bin ldd "$4"/bin/* | awk "/not found/ { print \$1 }" | sort -u >"$6"
    exec env -i PATH="$7" HOME="$3" "$4/run.sh" "$5"
   ' hide "${4:-$toolkit_lib}" "$site" "$home" "$tmp/bundle" "$2" "$tmp/unresolved" "$1" 2>&1 | tee "$3"
  return "${PIPESTATUS[0]}"
}

set +e
bare_run /usr/bin:/bin "$tmp/out" "$tmp/run.out"
code=$?
set -e
((code == 0)) || fail "run.sh exited $code"
# Without LD_LIBRARY_PATH and with the toolkit hidden, only the CUDA libraries may be missing.
echo "gpu_bundle_test: unresolved by ldd without run.sh: $(paste -sd' ' "$tmp/unresolved")"
others=$(grep -Ev '^lib(cuda|cudart|cublas|cublasLt|cudnn|nccl)\.so' "$tmp/unresolved" || true)
[[ -z $others ]] || fail "the bundle misses non-CUDA libraries: $(paste -sd' ' <<<"$others")"
grep -q '^libcudart' "$tmp/unresolved" || fail "ldd found cudart with the toolkit hidden: the check would prove nothing"
# cuDNN and NCCL are loaded when gpu.conv and net.nccl start, not linked: mlbench starts without them.
! grep -Eq '^lib(cudnn|nccl)' "$tmp/unresolved" || fail "the binaries link cuDNN or NCCL: $(paste -sd' ' "$tmp/unresolved")"
grep -Eq "^  libcudnn.so.[0-9]+  $site/nvidia/cu13/lib" "$tmp/run.out" || fail "run.sh did not find cuDNN in the wheel folder"
grep -Eq "^  libnccl.so.[0-9]+  $site/nvidia/cu13/lib" "$tmp/run.out" || fail "run.sh did not find NCCL in the wheel folder"
grep -q '^run.sh: no GPU here' "$tmp/run.out" || fail "run.sh did not say that there is no GPU"
grep -q "libcudart.so.[0-9]*  $site/nvidia/cu13/lib" "$tmp/run.out" || fail "run.sh did not find cudart in the wheel folder"
grep -q '^run.sh: every library of bin/\* resolves' "$tmp/run.out" || fail "run.sh did not check the libraries"
# This machine's C++ runtime is the one the bundle was built with: run.sh keeps the host's, not lib/compat.
for lib in libstdc++.so.6 libgcc_s.so.1; do
  [[ -f $tmp/bundle/lib/compat/$lib && ! -e $tmp/bundle/lib/$lib ]] || fail "the bundle has no $lib in lib/compat only"
  grep -q "^  $lib  the host's " "$tmp/run.out" || fail "run.sh did not keep the host's $lib"
done
grep -q "lib/compat" <<<"$(grep '^run.sh: LD_LIBRARY_PATH=' "$tmp/run.out")" && fail "run.sh put lib/compat on LD_LIBRARY_PATH"
[[ $(ls "$tmp/out") == $'gpu-validate.tar.gz\nrun\nsummary.txt' ]] || fail "OUT holds $(ls "$tmp/out" | paste -sd' ')"
for f in environment.txt libraries.txt run.log sysinfo.json list.json; do
  tar -tzf "$tmp/out/gpu-validate.tar.gz" "run/$f" >/dev/null || fail "gpu-validate.tar.gz lacks $f"
  [[ -s $tmp/out/run/$f ]] || fail "OUT/run lacks $f"
done
[[ $(du -sm "$tmp/out" | cut -f1) -le 8 ]] || fail "OUT holds $(du -sh "$tmp/out" | cut -f1): more than a few MiB"

# A host with only cudart and cuBLASLt (the CUDA toolkit ships neither cuDNN nor NCCL): every library the
# binaries link resolves and mlbench runs; run.sh says cuDNN and NCCL are not found and goes on.
mkdir -p "$tmp/toolkit-only" "$tmp/out-toolkit"
for lib in "$toolkit_lib"/libcudart.so* "$toolkit_lib"/libcublas.so* "$toolkit_lib"/libcublasLt.so*; do
  cp -a "$lib" "$tmp/toolkit-only/"
done
set +e
bare_run /usr/bin:/bin "$tmp/out-toolkit" "$tmp/run-toolkit.out" "$tmp/toolkit-only"
code=$?
set -e
((code == 0)) || fail "with only cudart and cuBLASLt run.sh exited $code"
grep -Eq '^  libcudnn.so.[0-9]+  NOT FOUND' "$tmp/run-toolkit.out" || fail "run.sh did not say that cuDNN is missing"
grep -q '^run.sh: every library of bin/\* resolves' "$tmp/run-toolkit.out" || fail "without cuDNN and NCCL a library did not resolve"
grep -q '^run.sh: list: ok' "$tmp/run-toolkit.out" || fail "without cuDNN and NCCL mlbench list did not run"

# A budget too small for the first step: run.sh skips it, says so in the summary, and fails.
set +e
env -i PATH=/usr/bin:/bin HOME="$home" "$tmp/bundle/run.sh" --budget 10 "$tmp/out-budget" >"$tmp/run-budget.out" 2>&1
code=$?
set -e
((code == 1)) || fail "with --budget 10 run.sh exited $code, not 1"
grep -q '^run.sh: sysinfo: SKIPPED: its limit is 15 s and [0-9]* s of the 10 s budget are left' \
  "$tmp/out-budget/summary.txt" || fail "the summary does not say that sysinfo was skipped for the budget"

set +e
start=$SECONDS
bare_run "$tmp/fakebin:/usr/bin:/bin" "$tmp/out-fake" "$tmp/run-fake.out"
code=$?
took=$((SECONDS - start))
set -e
((code == 1)) || fail "with a fake H200 run.sh exited $code, not 1"
((took <= 60)) || fail "with a fake H200 run.sh took $took s to fail"
grep -q '^run.sh: FAIL: a GPU is present but mlbench sees none' "$tmp/run-fake.out" ||
  fail "run.sh did not say that mlbench sees none of the GPUs nvidia-smi lists"
grep -q 'a GPU is present but mlbench sees none' "$tmp/out-fake/summary.txt" || fail "summary.txt lacks the failure"
tar -tzf "$tmp/out-fake/gpu-validate.tar.gz" run/sysinfo.json run/run.log >/dev/null ||
  fail "the fake-H200 run's tarball lacks sysinfo.json or run.log"
echo "gpu_bundle_test: ok ($(du -sh "$tmp/bundle" | cut -f1) bundle; run.sh --plan $total s; no GPU: exit 0 with the toolkit hidden; a fake H200: exit 1 after $took s)"
