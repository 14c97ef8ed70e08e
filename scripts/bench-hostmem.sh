#!/usr/bin/env bash
# Compares mlbench's host.membw with likwid-bench (Debian package `likwid`) on this machine, like for like:
#
#   - same threads and same per-array size: mlbench's plan (`mlbench hostmem --dry-run`) gives the thread
#     count and array bytes (by default at least 1 GiB per array, so that no cache holds them); likwid-bench's
#     -W size is the total over all streams of the kernel (copy: 2 streams, stream: 3), so it gets
#     streams x array bytes, split across the same number of pinned threads (domain N), each allocating
#     (first-touching) its own chunk, as mlbench's threads do;
#   - same byte counting: likwid-bench's "MByte/s" is its data volume (8 B per stream element loaded or stored,
#     no write-allocate traffic: copy 16 B, stream 24 B per element) over the run time, in 10^6 B/s: exactly
#     STREAM's counts that mlbench uses (copy 16, triad 24 B per element);
#   - same statistic: likwid-bench divides all iterations' bytes by their total time, so the ratio uses
#     mlbench's timed passes the same way (sum of bytes / sum of seconds); mlbench's headline (bytes / median
#     pass time) is printed next to it;
#   - likwid-bench's BEST variant: every double-precision kernel of the class that this CPU can run, copy
#     (copy, copy_sse, copy_avx, copy_avx512 and their _mem non-temporal forms) and STREAM's triad, which
#     likwid-bench calls `stream` (A = B*c + C, 3 streams; its `triad` kernel is a 4-stream A = B*C + D and
#     counts other bytes), with its _mem, _sse, _avx, _avx512 and _fma forms; each pair compares mlbench with
#     the fastest of them in that pair (a variant that crashes, as stream_mem does in likwid 5.2, is left out;
#     after the first pair only the 4 fastest variants of that pair run again);
#   - alternating runs: per pair and kernel, mlbench then likwid-bench's variants in odd pairs, the reverse in
#     even pairs, so that drift on a shared machine hits both.
#
# Prints per pair and kernel the rates and the ratio mlbench / best likwid-bench, then the median ratio over the
# pairs. Target: >= 0.95 on copy and triad. Every raw output is kept in OUT_DIR (mlbench JSON, likwid-bench text,
# pairs.tsv with one row per pair and kernel, summary.txt).
# Usage: scripts/bench-hostmem.sh MLBENCH_BINARY OUT_DIR [PAIRS (default 5)] [-- extra mlbench hostmem flags]
#   e.g. scripts/bench-hostmem.sh build/default/mlbench /tmp/membw 5 -- --size 6G
set -euo pipefail

usage="usage: $0 MLBENCH_BINARY OUT_DIR [PAIRS] [-- extra mlbench hostmem flags]"
[[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
mlbench=$1
out=$2
shift 2
pairs=5
if [[ $# -gt 0 && $1 != "--" ]]; then pairs=$1; shift; fi
[[ ${1:-} == "--" ]] && shift
extra=("$@")
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "PAIRS must be a positive integer, not '$pairs'; $usage" >&2; exit 2; }

command -v likwid-bench >/dev/null || { echo "likwid-bench not found: apt-get install likwid" >&2; exit 2; }
[[ -x $mlbench ]] || { echo "$mlbench is not an executable; build mlbench or pass its path" >&2; exit 2; }
mkdir -p "$out"
exec > >(tee "$out/summary.txt")

plan=$("$mlbench" hostmem --dry-run --kernels copy,triad "${extra[@]}")
read -r threads array_bytes < <(python3 -c 'import json,sys
c = json.load(sys.stdin)["cases"][0]["params"]
print(c["threads"], c["array_bytes"])' <<<"$plan")

# likwid-bench's double-precision copy and stream (STREAM triad) kernels whose instruction sets this CPU has.
cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { [[ $cpu_flags == *" $1 "* ]]; }
runnable() {
  local name=$1 part
  for part in ${name//_/ }; do
    case $part in
      sse) has sse2 || return 1 ;;
      avx) has avx || return 1 ;;
      avx512) has avx512f || return 1 ;;
      fma) has fma || return 1 ;;
    esac
  done
}
declare -A streams=([copy]=2 [triad]=3) likwid_kernels=()
while read -r name _; do
  if [[ $name =~ ^copy(_mem)?(_sse|_avx|_avx512)?$ ]]; then class=copy
  elif [[ $name =~ ^stream(_mem)?(_sse|_avx|_avx512)?(_fma)?$ ]]; then class=triad
  else continue
  fi
  runnable "$name" && likwid_kernels[$class]+="$name "
done < <(likwid-bench -a)
for k in copy triad; do
  [[ -n ${likwid_kernels[$k]:-} ]] || { echo "likwid-bench lists no $k kernel this CPU runs" >&2; exit 1; }
done

echo "threads=$threads array_bytes=$array_bytes pairs=$pairs extra=[${extra[*]}] out=$out"
echo "likwid-bench copy: ${likwid_kernels[copy]}"
echo "likwid-bench triad (stream): ${likwid_kernels[triad]}"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# likwid-bench prints "MByte/s:  53883.36" (10^6 B/s).
likwid_rate() {
  local kernel=$1 kb=$2 file=$3
  likwid-bench -t "$kernel" -W "N:${kb}kB:${threads}" >"$file" 2>&1 || return 1
  awk '/^MByte\/s:/ {print $2 * 1e6}' "$file"
}

# "pass_rate headline_rate" of one kernel: pass_rate = sum of bytes / sum of seconds over the timed passes.
mlbench_rate() {
  "$mlbench" hostmem --kernels "$1" --json "${extra[@]}" 2>/dev/null | tee "$2" |
    python3 -c 'import json,sys
x = json.load(sys.stdin)["results"][0]
assert x["status"] == "ok", x
t = x["samples"]
print(x["work"]["bytes"] * len(t) / sum(t), x["metrics"][0]["value"])'
}

# Sets best and best_name to likwid-bench's fastest variant of kernel $1 in pair $2; after the first pair only
# its 4 fastest variants run again (the slower ones are not the best on this machine).
likwid_best() {
  local k=$1 p=$2 kb lk r rates=()
  kb=$(((streams[$k] * array_bytes + 999) / 1000))  # likwid-bench's kB is 1000 B
  best=0 best_name=''
  for lk in ${likwid_kernels[$k]}; do
    r=$(likwid_rate "$lk" "$kb" "$out/pair$p-likwid-$lk.txt") || r=
    if [[ -z $r ]]; then
      echo "  pair $p $k likwid-bench $lk failed (see $out/pair$p-likwid-$lk.txt): left out"
      continue
    fi
    rates+=("$lk=$r")
    if python3 -c "import sys; sys.exit(0 if $r > $best else 1)"; then best=$r best_name=$lk; fi
    printf '  pair %d %-5s likwid-bench %-18s %7.2f GB/s\n' "$p" "$k" "$lk" "$(python3 -c "print($r / 1e9)")"
  done
  [[ -n $best_name ]] || { echo "every likwid-bench $k kernel failed" >&2; exit 1; }
  if ((p == 1)); then
    likwid_kernels[$k]=$(python3 -c 'import sys
r = sorted((float(v), n) for n, v in (a.split("=") for a in sys.argv[1:]))
print(" ".join(n for _, n in r[-4:]))' "${rates[@]}")
  fi
}

# Per pair and kernel, mlbench and likwid-bench's variants run back to back, mlbench first in odd pairs and
# last in even ones, so that drift during a pair favours neither.
printf 'pair\tkernel\tmlbench_Bps\tmlbench_headline_Bps\tlikwid_best_Bps\tlikwid_best\tratio\n' >"$out/pairs.tsv"
for ((p = 1; p <= pairs; p++)); do
  for k in copy triad; do
    if ((p % 2 == 0)); then likwid_best "$k" "$p"; fi
    ml='' head=''
    read -r ml head < <(mlbench_rate "$k" "$out/pair$p-mlbench-$k.json") || true
    [[ -n $ml ]] || { echo "mlbench hostmem --kernels $k failed: see $out/pair$p-mlbench-$k.json" >&2; exit 1; }
    if ((p % 2 == 1)); then likwid_best "$k" "$p"; fi
    ratio=$(python3 -c "print($ml / $best)")
    printf '  pair %d %-5s mlbench %7.2f GB/s (headline %.2f)  best likwid-bench %s %.2f GB/s  ratio %.3f\n' \
      "$p" "$k" "$(python3 -c "print($ml / 1e9)")" "$(python3 -c "print($head / 1e9)")" \
      "$best_name" "$(python3 -c "print($best / 1e9)")" "$ratio"
    printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$k" "$ml" "$head" "$best" "$best_name" "$ratio" >>"$out/pairs.tsv"
  done
done

python3 - "$out/pairs.tsv" <<'EOF'
import collections, csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for k in ("copy", "triad"):
    r = [x for x in rows if x["kernel"] == k]
    ratios = [float(x["ratio"]) for x in r]
    med = lambda key: statistics.median(float(x[key]) for x in r) / 1e9
    wins = collections.Counter(x["likwid_best"] for x in r).most_common()
    verdict = "meets" if statistics.median(ratios) >= 0.95 else "BELOW"
    print(f"{k}: median mlbench/likwid-bench = {statistics.median(ratios):.3f} over {len(r)} pairs "
          f"({' '.join(f'{x:.3f}' for x in ratios)}); {verdict} the 0.95 target; medians mlbench "
          f"{med('mlbench_Bps'):.2f} GB/s (headline {med('mlbench_headline_Bps'):.2f}), best likwid-bench "
          f"{med('likwid_best_Bps'):.2f} GB/s; fastest variant {', '.join(f'{n} x{c}' for n, c in wins)}")
EOF
