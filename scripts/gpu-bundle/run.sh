#!/usr/bin/env bash
# The GPU validation run of an mlbench bundle (scripts/gpu-bundle.sh), one command on a bare GPU host:
#   ./run.sh [--budget S] OUT      run it (S: the whole run's seconds, default 420)
#   ./run.sh [--budget S] --plan   print the steps, their limits and the total, run nothing
# Finds cudart and cuBLASLt (linked) and cuDNN and NCCL (loaded when gpu.conv and net.nccl start; without
# them those two are skipped) in CUDA toolkit folders, the Python wheels' site-packages/nvidia/*/lib or the
# system loader's own paths (MLBENCH_CUDA_LIBS=dir:dir searched first) and puts their folders on
# LD_LIBRARY_PATH; records the environment; counts the GPUs with `nvidia-smi -L`. Without a GPU it says so and
# exits 0 once every library resolved. With one it fails with one line when mlbench sees no GPU or a GPU probe is
# compiled out, else runs the steps of the plan below in the order of their value, each under its own timeout,
# and skips a step that no longer fits in what is left of the budget (saying so in the summary).
#
# Results reach OUT as they are made, so a call killed at any point returns what it measured: every step writes
# its report and log into OUT/run/ as it goes, and OUT/summary.txt (the run's log, then the table of cases) and
# OUT/gpu-validate.tar.gz (OUT/run/ packed) are rewritten after every step and on SIGTERM/SIGINT. Scratch files
# (the burn-in's test file) live in a folder under /tmp, removed at the end, so OUT stays a few MiB.
# Exit 0 when every step passed, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
budget=420
plan_only=0
out=""
while (($#)); do
  case $1 in
    --budget)
      [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "run.sh: error: --budget needs whole seconds, e.g. --budget 420" >&2; exit 2; }
      budget=$2
      shift 2
      ;;
    --plan) plan_only=1; shift ;;
    -*) echo "run.sh: error: unknown option $1 (use --budget S, --plan)" >&2; exit 2 ;;
    *) [[ -z $out ]] || { echo "run.sh: error: one OUT folder only" >&2; exit 2; }; out=$1; shift ;;
  esac
done

# The steps in the order of their value, each with its limit in seconds. The limits together stay within the
# default budget, and the whole call within the 10 minutes a first GPU host gives with room to start and to
# copy OUT back. The per-GPU probes run on GPU 0 (on an 8-GPU host the defaults would take 8 times as long);
# their H200 estimates (kernels/gpu/*_probe.cpp estimate_s) set the limits: the device tests run the quick
# profile of every probe (~70 s); gemm bf16 and fp8 at 8192^3 are the headline; every other precision at 1024^3
# and 8192^3 and bf16/fp8 at 1024^3 (launch-bound) next, the transformer shapes in bf16 and fp8 (~35 s); conv
# every ResNet-50 layer in bf16 at batch 128 (~50 s, with the images/s estimate); net.nccl over all local
# GPUs at 8 B and 1 MiB, blocking and non-blocking timing; then a 25 s burn-in (every phase, the GPU ones on
# every GPU at once) and its HTML page.
plan=(
  "setup 15 checks before the steps: ldd, nvidia-smi, python (not a step: their time comes off the budget)"
  "sysinfo 15 mlbench sysinfo: the GPUs mlbench sees"
  "list 10 mlbench list: every probe available"
  "sass 10 cuobjdump: SASS counts of the bundled kernels for sm_90"
  "gpu_device_tests 80 the GPU device tests"
  "gemm-headline 20 gemm bf16 and fp8 at 8192^3"
  "hbm 20 hbm (STREAM kernels)"
  "copy 30 copy (pinned host copies, peer copies)"
  "gemm-square 35 gemm fp32, tf32, fp16, int8 at 1024^3 and 8192^3"
  "gemm-small 12 gemm bf16 and fp8 at 1024^3"
  "gemm-transformer 40 gemm bf16 and fp8 on the transformer shapes"
  "conv 68 conv, every ResNet-50 layer in bf16, batch 128"
  "nccl-blocking 15 nccl all_reduce 8 B and 1 MiB, blocking timing"
  "nccl-nonblocking 15 nccl all_reduce 8 B and 1 MiB, non-blocking timing"
  "burnin 30 burnin --duration 25s"
  "burnin-html 5 export the burn-in as HTML"
)
limit_of() {
  local line
  for line in "${plan[@]}"; do
    read -r n l _ <<<"$line"
    [[ $n == "$1" ]] && { echo "$l"; return; }
  done
  echo "run.sh: no step $1 in the plan" >&2
  exit 3
}
if ((plan_only)); then
  total=0
  for line in "${plan[@]}"; do
    read -r n l d <<<"$line"
    printf '%-18s %4d s  %s\n' "$n" "$l" "$d"
    total=$((total + l))
  done
  echo "total $total s of a $budget s budget$( ((total > budget)) && echo ": OVER BUDGET, the last steps will be skipped")"
  exit 0
fi
[[ -n $out ]] || { echo "run.sh: error: usage: run.sh [--budget S] OUT | run.sh [--budget S] --plan" >&2; exit 2; }
mkdir -p "$out/run" || exit 1
out=$(cd "$out" && pwd)
work=$out/run
scratch=$(mktemp -d /tmp/mlbench-gpu-scratch.XXXXXX) || exit 1
trap 'rm -rf "$scratch"' EXIT
: >"$work/run.log"
mlbench=$here/bin/mlbench
rc=0
measured=0
log() { echo "run.sh: $*" | tee -a "$work/run.log"; }

# Rewrites OUT/summary.txt (the log, then the table of cases) and OUT/gpu-validate.tar.gz from OUT/run, each
# through a temporary file renamed into place, so a kill leaves the previous complete copy.
publish() {
  if ((measured)); then
    timeout -k 2 20 python3 "$here/summary.py" "$work" >"$scratch/table.txt" 2>>"$work/run.log" ||
      echo "run.sh: summary.py failed (run.log)" >"$scratch/table.txt"
  fi
  cat "$work/run.log" >"$out/.summary.txt"
  if [[ -f $scratch/table.txt ]]; then cat "$scratch/table.txt" >>"$out/.summary.txt"; fi
  mv -f "$out/.summary.txt" "$out/summary.txt"
  timeout -k 2 30 tar -C "$out" -czf "$out/.gpu-validate.tar.gz" run &&
    mv -f "$out/.gpu-validate.tar.gz" "$out/gpu-validate.tar.gz"
}
finish() {
  log "done after $SECONDS s (exit $1)"
  publish
  echo "run.sh: wrote $out/gpu-validate.tar.gz and $out/summary.txt (exit $1)"
  exit "$1"
}
fail() {
  log "FAIL: $*"
  finish 1
}
# A signal ends the step in flight (steps run in the background, so `wait` returns at once) and publishes.
child=""
on_signal() {
  [[ -n $child ]] && kill -TERM "$child" 2>/dev/null
  log "killed by a signal after $SECONDS s: what ran so far is in OUT"
  finish 1
}
trap on_signal TERM INT HUP

# --- the CUDA libraries -----------------------------------------------------------------------------------
# The CUDA libraries the binaries link (ldd names them whether found or not; readelf may be missing here).
needed=$(for b in "$here"/bin/*; do timeout 10 ldd "$b" 2>/dev/null; done | awk '{ print $1 }' |
  grep -E '^lib(cudart|cublas|cublasLt|cudnn|nccl)\.so' | sort -u)
[[ -n $needed ]] || fail "ldd names no CUDA library for $here/bin/* (not a bundle?)"
# cuDNN and NCCL are loaded when a probe first needs them (BUNDLE.txt names them): looked for the same way,
# and where absent, gpu.conv and net.nccl are skipped saying so while the rest runs.
needed="$needed $(sed -n 's/^loaded at run time: //p' "$here/BUNDLE.txt")"
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
  done < <(timeout 10 "$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null)
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
  elif cached=$(timeout 10 /sbin/ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l { print $NF; exit }') && [[ -e $cached ]]; then
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
# The C++ runtime of the bundle (lib/compat) goes first only when the host's copy is missing or older: its
# newest symbol version (GLIBCXX_*, GCC_*) below the bundled one's. A newer host copy serves every symbol the
# bundled one has, and host libraries loaded later (the CUDA ones) may need what only it has.
newest_version() { grep -ao "$2[0-9.]*[0-9]" "$1" 2>/dev/null | sort -uV | tail -1; }
compat=0
for lib in "$here"/lib/compat/*; do
  [[ -f $lib ]] || continue
  name=$(basename "$lib")
  tag=GLIBCXX_
  [[ $name == libgcc_s* ]] && tag=GCC_
  host=$(timeout 10 /sbin/ldconfig -p 2>/dev/null | awk -v l="$name" '$1 == l && /x86-64/ { print $NF; exit }')
  ours=$(newest_version "$lib" "$tag")
  theirs=$([[ -n $host ]] && newest_version "$host" "$tag")
  if [[ -z $theirs || $(printf '%s\n%s\n' "$theirs" "$ours" | sort -V | head -1) != "$ours" ]]; then
    compat=1
    echo "$name  the bundle's ($ours; the host's: ${host:-none} ${theirs:-})" >>"$work/libraries.txt"
  else
    echo "$name  the host's $host ($theirs, not older than the bundle's $ours)" >>"$work/libraries.txt"
  fi
done
((compat)) && add_dir "$here/lib/compat"
LD_LIBRARY_PATH=$(IFS=:; echo "${libpath[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
log "CUDA libraries:"
sed 's/^/  /' "$work/libraries.txt" | tee -a "$work/run.log"
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# --- the environment --------------------------------------------------------------------------------------
# nvidia-smi can hang on a wedged GPU: every call has a timeout.
smi=$(command -v nvidia-smi || true)
run_smi() { timeout -k 2 15 "$smi" "$@"; }
{
  echo "## date"; date -u +%Y-%m-%dT%H:%M:%SZ
  echo "## bundle"; cat "$here/BUNDLE.txt"
  echo "## uname"; uname -a
  echo "## os-release"; cat /etc/os-release
  echo "## nvidia-smi -L"; [[ -n $smi ]] && run_smi -L 2>&1 || echo "nvidia-smi not found"
  echo "## driver, PCIe link (nvidia-smi)"
  [[ -n $smi ]] && run_smi --format=csv --query-gpu=index,name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max 2>&1
  echo "## PCIe link (sysfs, NVIDIA devices)"
  for d in /sys/bus/pci/devices/*; do
    [[ $(cat "$d/vendor" 2>/dev/null) == 0x10de && $(cat "$d/class" 2>/dev/null) == 0x03* ]] || continue
    echo "$(basename "$d"): current $(cat "$d/current_link_speed") x$(cat "$d/current_link_width"), max $(cat "$d/max_link_speed") x$(cat "$d/max_link_width")"
  done
  echo "## libraries found"; cat "$work/libraries.txt"
  echo "## LD_LIBRARY_PATH"; echo "$LD_LIBRARY_PATH"
  echo "## NCCL_*, CUDA_* and NVIDIA_* variables"; env | grep -E '^(NCCL|CUDA|NVIDIA)_' | sort
  echo "## ldd"; for b in "$here"/bin/*; do echo "# $b"; timeout 10 ldd "$b" 2>&1; done
} >"$work/environment.txt" 2>&1
[[ -n $smi ]] && run_smi -q >"$work/nvidia-smi-q.txt" 2>&1
unresolved=$(for b in "$here"/bin/*; do timeout 10 ldd "$b" 2>&1 | awk -v b="$(basename "$b")" '/not found/ { print b ": " $1 }'; done | sort -u)
[[ -z $unresolved ]] || fail "unresolved libraries: $(paste -sd" " <<<"$unresolved") (libraries.txt says where each was looked for)"
log "every library of bin/* resolves (ldd in environment.txt)"
publish

# --- the steps ----------------------------------------------------------------------------------------------
# Runs step $1 (its limit from the plan) as "$@", its output in OUT/run/$1.log, unless what is left of the budget
# is less than its limit; then publishes. Sets $code (0, the command's exit status, or "skipped").
step() {
  local name=$1 limit start left
  shift
  limit=$(limit_of "$name")
  left=$((budget - SECONDS))
  if ((limit > left)); then
    code=skipped
    rc=1
    log "$name: SKIPPED: its limit is $limit s and $left s of the $budget s budget are left"
    publish
    return
  fi
  start=$SECONDS
  timeout -k 2 "$limit" "$@" >"$work/$name.log" 2>&1 </dev/null &
  child=$!
  wait "$child"
  code=$?
  child=""
  if ((code == 0)); then
    log "$name: ok after $((SECONDS - start)) s"
  elif ((code == 124 || code == 137)); then
    log "$name: TIMED OUT after $((SECONDS - start)) s (limit $limit s)"
  else
    log "$name: exit $code after $((SECONDS - start)) s: $(tail -1 "$work/$name.log")"
  fi
  publish
}
# A measuring step: its failure fails the run.
measure() {
  measured=1
  step "$@"
  [[ $code == 0 ]] || rc=1
}

# --- GPUs: nvidia-smi's count against mlbench's ---------------------------------------------------------------
# sysinfo and list write their JSON to stdout: to a file of its own, the log keeps stderr.
step sysinfo sh -c 'exec "$0" sysinfo --json >"$1"' "$mlbench" "$work/sysinfo.json"
[[ $code == skipped ]] && fail "the budget leaves no time for mlbench sysinfo"
[[ $code == 0 ]] || fail "mlbench sysinfo failed: $(tail -1 "$work/sysinfo.log")"
step list sh -c 'exec "$0" list --json >"$1"' "$mlbench" "$work/list.json"
[[ $code == skipped ]] && fail "the budget leaves no time for mlbench list"
[[ $code == 0 ]] || fail "mlbench list failed: $(tail -1 "$work/list.log")"
gpus=0
[[ -n $smi ]] && gpus=$(run_smi -L 2>/dev/null | grep -c '^GPU ')
seen=$(timeout 20 python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1])).get("gpus", [])))' "$work/sysinfo.json")
[[ $seen =~ ^[0-9]+$ ]] || fail "cannot read the GPU count from mlbench sysinfo's JSON (python3 missing or sysinfo.json unreadable)"
if ((gpus == 0)); then
  log "no GPU here (${smi:-nvidia-smi not found}${smi:+ -L lists none}); mlbench sees $seen; nothing to measure"
  finish 0
fi
log "$gpus GPU(s) by nvidia-smi -L, $seen seen by mlbench"
if ((seen == 0)); then
  fail "a GPU is present but mlbench sees none: nvidia-smi lists $gpus GPU(s), mlbench sysinfo none: $(timeout 20 python3 -c 'import json, sys; print("; ".join(n for n in json.load(open(sys.argv[1])).get("notes", []) if n.startswith("gpus:")) or "no note")' "$work/sysinfo.json")"
fi
probes="gpu.gemm gpu.hbm gpu.copy gpu.conv net.nccl"
missing=$(timeout 20 python3 - "$work/list.json" $probes <<'PY'
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
[[ -z $missing ]] || log "unavailable here (their steps will fail or be left out): $(echo "$missing" | paste -sd';' -)"

# --- SASS of the bundled kernels for sm_90 --------------------------------------------------------------------
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
if [[ -n $cuobjdump ]]; then
  # The listing is many MiB: it stays in scratch, OUT keeps it compressed.
  sass=$scratch/sass-sm_90.txt
  step sass sh -c 'exec "$0" -arch sm_90 -sass "$1" >"$2"' "$cuobjdump" "$mlbench" "$sass"
  if [[ $code == 0 ]]; then
    timeout 30 gzip -c "$sass" >"$work/sass-sm_90.txt.gz"
    log "SASS sm_90 ($cuobjdump): $(grep -c 'Function :' "$sass") kernels, $(grep -c 'LDG.E.128' "$sass") LDG.E.128, $(grep -c 'STG.E.128' "$sass") STG.E.128, $(grep -cE '\bSTL\b' "$sass") STL (spills), $(grep -cE '\bLDL\b' "$sass") LDL"
  fi
else
  log "cuobjdump not found: no SASS counts"
fi

# --- the measurements ---------------------------------------------------------------------------------------
gemm=("$mlbench" gemm --devices 0 --require gpu.gemm)
measure gpu_device_tests "$here/bin/gpu_device_tests" --gtest_output="xml:$work/gpu_device_tests.xml"
measure gemm-headline "${gemm[@]}" --shapes square --sizes 8192 --precisions bf16,fp8 -o "$work/gemm-headline.json"
measure hbm "$mlbench" hbm --devices 0 --require gpu.hbm -o "$work/hbm.json"
measure copy "$mlbench" copy --devices 0 --require gpu.copy -o "$work/copy.json"
measure gemm-square "${gemm[@]}" --shapes square --sizes 1024,8192 --precisions fp32,tf32,fp16,int8 -o "$work/gemm-square.json"
measure gemm-small "${gemm[@]}" --shapes square --sizes 1024 --precisions bf16,fp8 -o "$work/gemm-small.json"
measure gemm-transformer "${gemm[@]}" --shapes transformer --precisions bf16,fp8 -o "$work/gemm-transformer.json"
# gpu.conv needs cuDNN, which the CUDA toolkit does not ship: without it the step is left out, saying why.
if grep -q '^gpu.conv: ' <<<"$missing"; then
  log "conv: left out: $(grep '^gpu.conv: ' <<<"$missing" | head -1)"
else
  measure conv "$mlbench" conv --devices 0 --precisions bf16 --batch 128 --require gpu.conv -o "$work/conv.json"
fi
# net.nccl needs two ranks (a one-rank collective is a local copy): on one GPU its steps are left out.
nccl=("$mlbench" nccl --ops all_reduce --min-bytes 8 --max-bytes 1M --factor 131072 --require net.nccl)
if ((seen >= 2)); then
  measure nccl-blocking "${nccl[@]}" --timing blocking -o "$work/nccl-blocking.json"
  measure nccl-nonblocking "${nccl[@]}" --timing nonblocking -o "$work/nccl-nonblocking.json"
else
  log "nccl-blocking, nccl-nonblocking: left out: net.nccl needs 2 GPUs and mlbench sees $seen"
fi
# The burn-in: GEMM (output hashes compared across GPUs), HBM pattern test, copies, NCCL, host memory and
# storage (its scratch file under /tmp, not in OUT), then all at once; its verdict is the exit status, and the
# page draws the timelines. Cooldowns of at most 1 s, or the six between the phases would take the time, and a
# host memory share and scratch file small enough that one verified pass of each phase fits (else the
# burn-in refuses the duration).
measure burnin "$mlbench" burnin --duration 25s --cooldown 1s --host-memory-share 0.02 --storage-size 256M \
  --scratch-dir "$scratch" -o "$work/burnin.json"
if [[ -f $work/burnin.json ]]; then
  measure burnin-html "$mlbench" export --format html "$work/burnin.json" -o "$work/burnin.html"
fi
finish "$rc"
