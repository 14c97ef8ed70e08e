#!/usr/bin/env bash
# Validates mlbench on a GPU host that has the CUDA toolkit, CMake and a C++ compiler but no package access.
# Builds this tree (small dependencies from the .deb files in $MLBENCH_DEBS, unpacked with dpkg -x into a
# private prefix; cuBLAS/cuDNN/NCCL from the toolkit or Python wheel folders nvidia/*/), runs `ctest -L gpu`,
# `mlbench run --profile quick` and the default gpu.gemm and gpu.hbm suites, writes reports and logs into
# OUTDIR and prints a table of headline figures last. Without a GPU it builds, says so and exits 0.
# Usage: [MLBENCH_DEBS=DIR] [MLBENCH_WHEELS=site-packages] [MLBENCH_BUILD=build-dir] scripts/gpu-validate.sh OUTDIR
set -uo pipefail
out=${1:?usage: scripts/gpu-validate.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${MLBENCH_BUILD:-$out/build}
log() { echo "gpu-validate: $*" | tee -a "$out/validate.log"; }

prefixes=()
if [[ -n "${MLBENCH_DEBS:-}" ]]; then
  prefix=$out/prefix
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
gpus=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("gpus",[])))' "$out/sysinfo.json" 2>/dev/null || echo 0)
if [[ "$gpus" == 0 ]]; then
  log "no GPU present: $(python3 -c 'import json,sys; print("; ".join(n for n in json.load(open(sys.argv[1])).get("notes",[]) if n.startswith("gpus:")))' "$out/sysinfo.json" 2>/dev/null)"
  log "build OK; nothing to measure without a GPU"
  exit 0
fi
log "$gpus GPU(s) found"

# SASS of the HBM kernels: 16-byte loads/stores, when cuobjdump is present.
if command -v cuobjdump >/dev/null; then
  obj=$(find "$build" -name 'gpu_kernels.cu.o' | head -1)
  cuobjdump --dump-sass "$obj" >"$out/hbm.sass" 2>&1
  log "SASS: $(grep -c 'LDG.E.128' "$out/hbm.sass") LDG.E.128, $(grep -c 'STG.E.128' "$out/hbm.sass") STG.E.128, $(grep -c 'STL' "$out/hbm.sass") STL"
fi

rc=0
step() { log "$1 done after ${SECONDS}s"; }
step build
(cd "$build" && timeout 180 ctest -L gpu --output-on-failure) >"$out/ctest-gpu.log" 2>&1 || { rc=1; log "ctest -L gpu failed, see $out/ctest-gpu.log"; }
step "ctest -L gpu"
timeout 150 "$mlbench" run --profile quick -o "$out/quick.json" >"$out/quick.log" 2>&1 || { rc=1; log "quick profile: exit $?"; }
step "quick profile"
timeout 240 "$mlbench" gemm --devices 0 -o "$out/gemm.json" >"$out/gemm.log" 2>&1 || { rc=1; log "gemm: exit $?"; }
step "gemm suite"
timeout 90 "$mlbench" hbm --devices 0 -o "$out/hbm.json" >"$out/hbm.log" 2>&1 || { rc=1; log "hbm: exit $?"; }
step "hbm suite"

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print(f"{'probe':10} {'case':42} {'status':10} {'headline':>22} {'% peak':>7}")
for name in ("quick.json", "gemm.json", "hbm.json"):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        continue
    for r in json.load(open(path))["results"]:
        if not r["probe"].startswith("gpu."):
            continue
        p = r["params"]
        case = " ".join(str(p[k]) for k in ("precision", "shape", "m", "kernel", "direction", "memory", "path", "layer") if k in p)
        m = (r.get("metrics") or [{}])[0]
        pct = next((x["value"] for x in r.get("metrics", []) if x["name"] == "pct_of_peak"), None)
        head = f"{m.get('value', 0):.4g} {m.get('unit', '')}" if m else r.get("reason", "")[:22]
        print(f"{r['probe']:10} {case[:42]:42} {r['status']:10} {head:>22} {'' if pct is None else f'{pct:.1f}':>7}")
PY
exit $rc
