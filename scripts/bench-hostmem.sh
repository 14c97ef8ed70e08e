#!/usr/bin/env bash
# Compares mlbench's host.membw with likwid-bench (Debian package `likwid`) on this machine, like for like:
#
#   - same threads and same per-array size: mlbench's plan (`mlbench hostmem --dry-run`) gives the thread
#     count and array bytes; likwid-bench's -W size is the total over all streams of the kernel (copy: 2
#     streams, stream/triad: 3), so it gets streams x array bytes, split across the same number of pinned
#     threads (domain N), each allocating (first-touching) its own chunk (-W) as mlbench's threads do;
#   - same byte counting: likwid-bench's "MByte/s" is its data volume (8 B per stream element loaded or stored,
#     no write-allocate traffic: copy 16 B, stream 24 B per element) over the run time, in 10^6 B — exactly
#     STREAM's counts that mlbench uses (copy 16, triad 24 B per element), so both rates are compared in B/s;
#   - the best likwid-bench kernels of the same class: for copy copy_<isa> and copy_mem_<isa> (non-temporal
#     stores), for triad stream_<isa>[_fma] and stream_mem_<isa> (A = B*c + C, STREAM's triad), with <isa> the
#     widest this CPU has (avx512, else avx); each pair compares against the faster likwid variant;
#   - alternating runs (mlbench, likwid, mlbench, likwid, ...) so that drift on a shared machine hits both.
#
# Prints per kernel the median over pairs of mlbench / likwid-bench. Target: >= 0.95 on copy and triad.
# Usage: scripts/bench-hostmem.sh [MLBENCH_BINARY] [PAIRS] [-- extra mlbench hostmem flags, e.g. --size 3G]
set -euo pipefail

mlbench=${1:-build/default/mlbench}
pairs=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
[[ ${1:-} == "--" ]] && shift
extra=("$@")

command -v likwid-bench >/dev/null || { echo "likwid-bench not found: apt-get install likwid" >&2; exit 2; }
[[ -x $mlbench ]] || { echo "$mlbench is not an executable; build mlbench or pass its path" >&2; exit 2; }

plan=$("$mlbench" hostmem --dry-run "${extra[@]}")
read -r threads array_bytes < <(python3 -c 'import json,sys; c=json.load(sys.stdin)["cases"][0]["params"]; print(c["threads"], c["array_bytes"])' <<<"$plan")

if grep -qw avx512f /proc/cpuinfo; then isa=avx512; else isa=avx; fi
declare -A streams=([copy]=2 [triad]=3)
declare -A likwid_kernels=([copy]="copy_${isa} copy_mem_${isa}" [triad]="stream_${isa} stream_mem_${isa}")
if likwid-bench -a | grep -q "^stream_${isa}_fma "; then likwid_kernels[triad]+=" stream_${isa}_fma"; fi

echo "threads=$threads array_bytes=$array_bytes pairs=$pairs likwid kernels: ${likwid_kernels[copy]} | ${likwid_kernels[triad]}"

# likwid-bench prints "MByte/s:  53883.36" (10^6 B/s).
likwid_rate() {
  local kernel=$1 kb=$2
  likwid-bench -t "$kernel" -W "N:${kb}kB:${threads}" 2>/dev/null | awk '/^MByte\/s:/ {print $2 * 1e6}'
}

mlbench_rates() {
  "$mlbench" hostmem --kernels copy,triad --json "${extra[@]}" |
    python3 -c 'import json,sys
r = json.load(sys.stdin)["results"]
for x in r:
    assert x["status"] == "ok", x
    print(x["params"]["kernel"], x["metrics"][0]["value"])'
}

declare -A ratios=()
for ((p = 1; p <= pairs; p++)); do
  declare -A ml=()
  while read -r k v; do ml[$k]=$v; done < <(mlbench_rates)
  for k in copy triad; do
    kb=$(( (streams[$k] * array_bytes + 999) / 1000 ))
    best=0
    for lk in ${likwid_kernels[$k]}; do
      r=$(likwid_rate "$lk" "$kb")
      [[ -n $r ]] || { echo "likwid-bench -t $lk failed" >&2; exit 1; }
      best=$(python3 -c "print(max($best, $r))")
      printf '  pair %d %-5s likwid %-18s %8.2f GB/s\n' "$p" "$k" "$lk" "$(python3 -c "print($r / 1e9)")"
    done
    ratio=$(python3 -c "print(${ml[$k]} / $best)")
    printf '  pair %d %-5s mlbench %26.2f GB/s  ratio %.3f\n' "$p" "$k" "$(python3 -c "print(${ml[$k]} / 1e9)")" "$ratio"
    ratios[$k]+="$ratio "
  done
done

for k in copy triad; do
  python3 -c "import statistics,sys; r=[float(x) for x in sys.argv[2:]]; print(f'{sys.argv[1]}: median mlbench/likwid-bench = {statistics.median(r):.3f} over {len(r)} pairs ({\" \".join(f\"{x:.3f}\" for x in r)})')" "$k" ${ratios[$k]}
done
