#!/usr/bin/env bash
# Validates mlbench on a GPU host that has the CUDA toolkit, CMake and a C++ compiler but no package access, and
# must build from source (a host that can take a prebuilt bundle uses scripts/gpu-bundle.sh and its run.sh).
# Builds this tree (small dependencies from the .deb files in $MLBENCH_DEBS, unpacked with dpkg -x into a
# private prefix; cuBLAS/cuDNN/NCCL from the toolkit or Python wheel folders nvidia/*/), runs `ctest -L gpu`,
# `mlbench run --profile quick` and the default gpu.gemm and gpu.hbm suites, writes reports and logs into
# OUTDIR and prints a table of headline figures last. The build and the private prefix live under /tmp. Without a
# GPU (`nvidia-smi -L` lists none) it builds, says so and exits 0.
# Usage: [MLBENCH_DEBS=DIR] [MLBENCH_WHEELS=site-packages] [MLBENCH_BUILD=build-dir] scripts/gpu-validate.sh OUTDIR
set -uo pipefail
out=${1:?usage: scripts/gpu-validate.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${MLBENCH_BUILD:-/tmp/mlbench-gpu-validate-build}
log() { echo "gpu-validate: $*" | tee -a "$out/validate.log"; }

prefixes=()
if [[ -n "${MLBENCH_DEBS:-}" ]]; then
  prefix=/tmp/mlbench-gpu-validate-prefix
  mkdir -p "$prefix"
  for deb in "$MLBENCH_DEBS"/*.deb; do dpkg -x "$deb" "$prefix"; done
  # pkg-config files name /usr paths; point them at the private prefix (liburing is found through them).
  find "$prefix" -name '*.pc' -exec sed -i -E "s#(^|[=[:space:]])/usr(/|\$)#\1$prefix/usr\2#g" {} +
  prefixes+=("$prefix/usr")
  log "unpacked $(ls "$MLBENCH_DEBS"/*.deb | wc -l) .deb files into $prefix"
fi
# cuBLAS/cuDNN/NCCL from pip wheels (site-packages/nvidia/*/include, lib) when the toolkit lacks them.
wheels=${MLBENCH_WHEELS:-$(python3 -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))' 2>/dev/null)}
for site in $wheels; do prefixes+=("$site"); done
extra=$(IFS=';'; echo "${prefixes[*]:-}")
if [[ -n "${prefix:-}" ]]; then
  export PKG_CONFIG_PATH="$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig:${PKG_CONFIG_PATH:-}"
fi

log "configuring (extra prefixes: ${extra:-none})"
# A reused build folder (MLBENCH_BUILD) keeps its build type; a fresh one is a Release build.
build_type=()
[[ -f "$build/CMakeCache.txt" ]] || build_type=(-DCMAKE_BUILD_TYPE=Release)
cmake -S "$src" -B "$build" "${build_type[@]}" -DMLBENCH_EXTRA_PREFIXES="$extra" \
  >"$out/configure.log" 2>&1 || { log "configure failed, see $out/configure.log"; tail -20 "$out/configure.log"; exit 1; }
grep -E "^--   (CUDA|CUDNN|NCCL|URING):" "$out/configure.log" | tee -a "$out/validate.log"
log "building"
cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 || { log "build failed, see $out/build.log"; tail -30 "$out/build.log"; exit 1; }
mlbench=$build/mlbench
if [[ -n "${prefix:-}" ]]; then export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"; fi

"$mlbench" sysinfo --json >"$out/sysinfo.json" 2>"$out/sysinfo.err"
# nvidia-smi counts the GPUs the driver has; mlbench's own count is what is being validated.
gpus=0
command -v nvidia-smi >/dev/null && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [[ "$gpus" == 0 ]]; then
  log "no GPU present ($(command -v nvidia-smi >/dev/null && echo 'nvidia-smi -L lists none' || echo 'nvidia-smi not found'))"
  log "build OK; nothing to measure without a GPU"
  exit 0
fi
seen=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("gpus",[])))' "$out/sysinfo.json" 2>/dev/null || echo 0)
if [[ "$seen" == 0 ]]; then
  log "FAIL: nvidia-smi lists $gpus GPU(s) but mlbench sees none: $(python3 -c 'import json,sys; print("; ".join(n for n in json.load(open(sys.argv[1])).get("notes",[]) if n.startswith("gpus:")))' "$out/sysinfo.json" 2>/dev/null)"
  exit 1
fi
log "$gpus GPU(s) by nvidia-smi -L, $seen seen by mlbench"

# SASS of the HBM kernels: 16-byte loads/stores, when cuobjdump is present.
if command -v cuobjdump >/dev/null; then
  obj=$(find "$build" -name 'gpu_kernels.cu.o' | head -1)
  cuobjdump --dump-sass "$obj" >"$out/hbm.sass" 2>&1
  log "SASS: $(grep -c 'LDG.E.128' "$out/hbm.sass") LDG.E.128, $(grep -c 'STG.E.128' "$out/hbm.sass") STG.E.128, $(grep -c 'STL' "$out/hbm.sass") STL"
fi

rc=0
# Runs one step under its timeout; its own exit status is logged (not that of a command run after it).
step() {
  local name=$1 limit=$2 code
  shift 2
  timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
  code=$?
  if ((code != 0)); then
    rc=1
    log "$name: exit $code$( ((code == 124 || code == 137)) && echo " (timed out after $limit s)"), see $out/$name.log"
  fi
  log "$name done after ${SECONDS}s"
}
log "build done after ${SECONDS}s"
step ctest-gpu 180 ctest --test-dir "$build" -L gpu --output-on-failure
step quick 150 "$mlbench" run --profile quick -o "$out/quick.json"
step gemm 240 "$mlbench" gemm --devices 0 -o "$out/gemm.json"
step hbm 90 "$mlbench" hbm --devices 0 -o "$out/hbm.json"

python3 "$src/scripts/gpu-bundle/summary.py" "$out"
exit $rc
