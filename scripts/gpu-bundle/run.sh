#!/usr/bin/env bash
# The GPU validation run of an mlbench bundle (scripts/gpu-bundle.sh), one command on a bare GPU host:
#   ./run.sh OUT
# Finds cudart, cuBLASLt, cuDNN and NCCL (CUDA toolkit folders, the Python wheels' site-packages/nvidia/*/lib,
# or the system loader's own paths; MLBENCH_CUDA_LIBS=dir:dir searched first) and puts their folders on
# LD_LIBRARY_PATH; records the environment; counts the GPUs with `nvidia-smi -L`. Without a GPU it says so and
# exits 0 once every library resolved. With one it fails with one line when mlbench sees no GPU or a GPU probe is
# compiled out, else runs the GPU device tests, gpu.gemm, gpu.hbm, gpu.copy, gpu.conv (on GPU 0), net.nccl
# (every local GPU, blocking and non-blocking timing, 8 B and 1 MiB) and a 60 s burn-in (every phase, the GPU ones
# on every GPU at once) with its HTML page, each under its own timeout (570 s together, the whole run under 10
# minutes). Everything goes into OUT/gpu-validate.tar.gz, the headline figures also into OUT/summary.txt;
# the working files live under /tmp. Exit 0 when every step passed, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/mlbench-gpu-validate.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
mlbench=$here/bin/mlbench
rc=0
measured=0
log() { echo "run.sh: $*" | tee -a "$work/run.log"; }

# Writes OUT/summary.txt (the log, then the table of cases) and OUT/gpu-validate.tar.gz, and exits with $1.
finish() {
  if ((measured)); then
    python3 "$here/summary.py" "$work" >"$work/summary.txt" 2>>"$work/run.log" || log "summary.py failed"
  fi
  cp "$work/run.log" "$out/summary.txt"
  [[ -f $work/summary.txt ]] && cat "$work/summary.txt" >>"$out/summary.txt"
  tar -C "$work" -czf "$out/gpu-validate.tar.gz" . || log "could not write $out/gpu-validate.tar.gz"
  echo "run.sh: wrote $out/gpu-validate.tar.gz and $out/summary.txt (exit $1)"
  exit "$1"
}
fail() {
  log "FAIL: $*"
  finish 1
}

# --- the CUDA libraries -----------------------------------------------------------------------------------
# The CUDA libraries the binaries link (ldd names them whether found or not; readelf may be missing here).
needed=$(for b in "$here"/bin/*; do ldd "$b" 2>/dev/null; done | awk '{ print $1 }' |
  grep -E '^lib(cudart|cublas|cublasLt|cudnn|nccl)\.so' | sort -u)
[[ -n $needed ]] || fail "ldd names no CUDA library for $here/bin/* (not a bundle?)"
candidates=()
IFS=: read -ra extra <<<"${MLBENCH_CUDA_LIBS:-}"
candidates+=("${extra[@]}")
# Toolkits: $CUDA_HOME/$CUDA_PATH, the one nvcc on PATH belongs to, /usr/local/cuda, then /usr/local/cuda-* newest
# first; then the Python wheels of every site folder python3 knows (user site and virtual environments included).
toolkits=("${CUDA_HOME:-}" "${CUDA_PATH:-}")
command -v nvcc >/dev/null && toolkits+=("$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")")
toolkits+=(/usr/local/cuda)
mapfile -t -O "${#toolkits[@]}" toolkits < <(ls -d /usr/local/cuda-* 2>/dev/null | sort -rV)
for t in "${toolkits[@]}"; do
  [[ -n $t ]] && candidates+=("$t/lib64" "$t/targets/x86_64-linux/lib")
done
for py in python3 /usr/bin/python3; do
  command -v "$py" >/dev/null || continue
  while read -r site; do
    for d in "$site"/nvidia/*/lib; do [[ -d $d ]] && candidates+=("$d"); done
  done < <("$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null)
done
libpath=()
add_dir() {
  local d
  for d in "${libpath[@]}"; do [[ $d == "$1" ]] && return; done
  libpath+=("$1")
}
: >"$work/libraries.txt"
for lib in $needed; do
  where=""
  for d in "${candidates[@]}"; do
    if [[ -e $d/$lib ]]; then
      where=$(cd "$d" && pwd -P)
      break
    fi
  done
  if [[ -n $where ]]; then
    add_dir "$where"
    echo "$lib  $where" >>"$work/libraries.txt"
  elif cached=$(/sbin/ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l { print $NF; exit }') && [[ -e $cached ]]; then
    echo "$lib  (the system loader's cache: $cached)" >>"$work/libraries.txt"
  else
    echo "$lib  NOT FOUND" >>"$work/libraries.txt"
  fi
done
# cuDNN 9 loads its sub-libraries from the shim's folder at run time (gpu.conv checks them itself).
cudnn=$(awk '$1 ~ /^libcudnn\.so/ && $2 ~ /^\// { print $2 "/" $1 }' "$work/libraries.txt")
if [[ -n $cudnn ]]; then
  echo "cuDNN sub-libraries beside $cudnn: $(cd "$(dirname "$cudnn")" && ls libcudnn_*.so."${cudnn##*.so.}" 2>/dev/null | paste -sd' ')" >>"$work/libraries.txt"
fi
LD_LIBRARY_PATH=$(IFS=:; echo "${libpath[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
log "CUDA libraries:"
sed 's/^/  /' "$work/libraries.txt" | tee -a "$work/run.log"
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# --- the environment --------------------------------------------------------------------------------------
smi=$(command -v nvidia-smi || true)
{
  echo "## date"; date -u +%Y-%m-%dT%H:%M:%SZ
  echo "## bundle"; cat "$here/BUNDLE.txt"
  echo "## uname"; uname -a
  echo "## os-release"; cat /etc/os-release
  echo "## nvidia-smi -L"; [[ -n $smi ]] && "$smi" -L 2>&1 || echo "nvidia-smi not found"
  echo "## driver, PCIe link (nvidia-smi)"
  [[ -n $smi ]] && "$smi" --format=csv --query-gpu=index,name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max 2>&1
  echo "## PCIe link (sysfs, NVIDIA devices)"
  for d in /sys/bus/pci/devices/*; do
    [[ $(cat "$d/vendor" 2>/dev/null) == 0x10de && $(cat "$d/class" 2>/dev/null) == 0x03* ]] || continue
    echo "$(basename "$d"): current $(cat "$d/current_link_speed") x$(cat "$d/current_link_width"), max $(cat "$d/max_link_speed") x$(cat "$d/max_link_width")"
  done
  echo "## libraries found"; cat "$work/libraries.txt"
  echo "## LD_LIBRARY_PATH"; echo "$LD_LIBRARY_PATH"
  echo "## NCCL_*, CUDA_* and NVIDIA_* variables"; env | grep -E '^(NCCL|CUDA|NVIDIA)_' | sort
  echo "## ldd"; for b in "$here"/bin/*; do echo "# $b"; ldd "$b" 2>&1; done
} >"$work/environment.txt" 2>&1
[[ -n $smi ]] && "$smi" -q >"$work/nvidia-smi-q.txt" 2>&1
unresolved=$(for b in "$here"/bin/*; do ldd "$b" 2>&1 | awk -v b="$(basename "$b")" '/not found/ { print b ": " $1 }'; done | sort -u)
[[ -z $unresolved ]] || fail "unresolved libraries: $(paste -sd" " <<<"$unresolved") (libraries.txt says where each was looked for)"
log "every library of bin/* resolves (ldd in environment.txt)"

# --- GPUs: nvidia-smi's count against mlbench's ---------------------------------------------------------------
"$mlbench" sysinfo --json >"$work/sysinfo.json" 2>"$work/sysinfo.err" || fail "mlbench sysinfo failed: $(tail -1 "$work/sysinfo.err")"
"$mlbench" list --json >"$work/list.json" 2>"$work/list.err" || fail "mlbench list failed: $(tail -1 "$work/list.err")"
gpus=0
[[ -n $smi ]] && gpus=$("$smi" -L 2>/dev/null | grep -c '^GPU ')
seen=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1])).get("gpus", [])))' "$work/sysinfo.json")
if ((gpus == 0)); then
  log "no GPU here (${smi:-nvidia-smi not found}${smi:+ -L lists none}); mlbench sees $seen; nothing to measure"
  finish 0
fi
log "$gpus GPU(s) by nvidia-smi -L, $seen seen by mlbench"
if ((seen == 0)); then
  fail "nvidia-smi lists $gpus GPU(s) but mlbench sees none: $(python3 -c 'import json, sys; print("; ".join(n for n in json.load(open(sys.argv[1])).get("notes", []) if n.startswith("gpus:")) or "no note")' "$work/sysinfo.json")"
fi
probes="gpu.gemm gpu.hbm gpu.copy gpu.conv net.nccl"
missing=$(python3 - "$work/list.json" $probes <<'PY'
import json, sys
listed = {p["id"]: p for p in json.load(open(sys.argv[1]))}
for probe in sys.argv[2:]:
    p = listed.get(probe)
    if p is None:
        print(f"{probe} is not in mlbench list")
    elif not p["available"]:
        print(f"{probe}: {p['reason']}")
PY
)
if grep -q 'built without\|not in mlbench list' <<<"$missing"; then
  fail "a GPU probe is compiled out: $(grep 'built without\|not in mlbench list' <<<"$missing" | head -1)"
fi
[[ -z $missing ]] || log "unavailable here (their steps will fail): $(echo "$missing" | paste -sd';' -)"

# --- SASS of the bundled kernels for sm_90 --------------------------------------------------------------------
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
if [[ -n $cuobjdump ]]; then
  "$cuobjdump" -arch sm_90 -sass "$mlbench" >"$work/sass-sm_90.txt" 2>&1
  log "SASS sm_90 ($cuobjdump): $(grep -c 'Function :' "$work/sass-sm_90.txt") kernels, $(grep -c 'LDG.E.128' "$work/sass-sm_90.txt") LDG.E.128, $(grep -c 'STG.E.128' "$work/sass-sm_90.txt") STG.E.128, $(grep -cE '\bSTL\b' "$work/sass-sm_90.txt") STL (spills), $(grep -cE '\bLDL\b' "$work/sass-sm_90.txt") LDL"
else
  log "cuobjdump not found: no SASS counts"
fi

# --- the measurements: each step under its own timeout (seconds; 570 together) -----------------------------
# The per-GPU probes run on GPU 0 (on an 8-GPU host the defaults would take 8 times as long), net.nccl on every
# local GPU. The probes' own estimates on an H200 (kernels/gpu/*_probe.cpp estimate_s) set the limits: the
# default gpu.gemm plan (6 precisions x 5 square sizes + 8 transformer shapes) is ~256 s and gpu.conv's (2
# precisions x 24 layers) ~190 s, together more than the whole budget, so gemm runs every precision at 1024^3
# and 8192^3 (launch-bound and headline) and the transformer shapes in bf16 and fp8 (~35 s + ~46 s), and conv
# every ResNet-50 layer in bf16 (~96 s, with the images/s estimate). The device tests run the quick profile of
# every probe (~70 s).
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS code
  measured=1
  timeout -k 2 "$limit" "$@" >"$work/$name.log" 2>&1
  code=$?
  if ((code == 0)); then
    log "$name: ok after $((SECONDS - start)) s"
  else
    rc=1
    if ((code == 124 || code == 137)); then
      log "$name: TIMED OUT after $((SECONDS - start)) s (limit $limit s)"
    else
      log "$name: exit $code after $((SECONDS - start)) s: $(tail -1 "$work/$name.log")"
    fi
  fi
}
nccl=(nccl --ops all_reduce --min-bytes 8 --max-bytes 1M --factor 131072 --require net.nccl)
step gpu_device_tests 80 "$here/bin/gpu_device_tests" --gtest_output="xml:$work/gpu_device_tests.xml"
step gemm-square 50 "$mlbench" gemm --devices 0 --shapes square --sizes 1024,8192 --require gpu.gemm -o "$work/gemm-square.json"
step gemm-transformer 60 "$mlbench" gemm --devices 0 --shapes transformer --precisions bf16,fp8 --require gpu.gemm -o "$work/gemm-transformer.json"
step hbm 25 "$mlbench" hbm --devices 0 --require gpu.hbm -o "$work/hbm.json"
step copy 45 "$mlbench" copy --devices 0 --require gpu.copy -o "$work/copy.json"
step conv 110 "$mlbench" conv --devices 0 --precisions bf16 --require gpu.conv -o "$work/conv.json"
step nccl-blocking 25 "$mlbench" "${nccl[@]}" --timing blocking -o "$work/nccl-blocking.json"
step nccl-nonblocking 25 "$mlbench" "${nccl[@]}" --timing nonblocking -o "$work/nccl-nonblocking.json"
# The burn-in: 60 s of GEMM (output hashes compared across GPUs), HBM pattern test, copies, NCCL, host memory and
# storage (scratch file under the work folder), then all at once; its verdict is the exit status, and the page
# draws the timelines. Cooldowns of at most 5 s, or the six between the phases could take the whole minute.
# 90 s over the 60: inventory, planning, the report.
step burnin 150 "$mlbench" burnin --duration 60s --cooldown 5s --scratch-dir "$work" -o "$work/burnin.json"
step burnin-html 30 "$mlbench" export --format html "$work/burnin.json" -o "$work/burnin.html"
log "done after $SECONDS s"
finish "$rc"
