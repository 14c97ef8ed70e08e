#!/bin/bash
# Compares mlbench's net.nccl with NVIDIA's nccl-tests on one multi-GPU host: the same collectives
# (all_reduce, all_gather, reduce_scatter), sizes, iterations and GPU count, out-of-place, and prints the busbw
# ratio mlbench / nccl-tests per size. Target: within ±3 % at sizes >= 1 GiB.
#
# Status: written against nccl-tests' documented output; NOT YET MEASURED — it needs a host with >= 2 GPUs.
#
# Usage: NCCL_TESTS_DIR=/path/to/nccl-tests/build scripts/bench-vs-nccl-tests.sh [GPUS] [MIN] [MAX]
#   GPUS  GPUs to use (default: all visible), MIN/MAX sizes (default 1M / 8G), factor 2, 20 iters, 5 warm-up.
#   MLBENCH=path/to/mlbench (default: mlbench on PATH). Output files go to OUT (default ./nccl-compare).
set -euo pipefail

MLBENCH=${MLBENCH:-mlbench}
NCCL_TESTS_DIR=${NCCL_TESTS_DIR:?set NCCL_TESTS_DIR to the folder holding all_reduce_perf, all_gather_perf, reduce_scatter_perf}
GPUS=${1:-$(nvidia-smi -L | wc -l)}
MIN=${2:-1M}
MAX=${3:-8G}
ITERS=20
WARMUP=5
OUT=${OUT:-nccl-compare}
mkdir -p "$OUT"

if [ "$GPUS" -lt 2 ]; then
  echo "need at least 2 GPUs (found $GPUS): busbw of one rank is 0 for these collectives" >&2
  exit 2
fi

for op in all_reduce all_gather reduce_scatter; do
  # -c 1 checks results like mlbench does; -z 0 blocking launches; -g GPUs in one process (mlbench's
  # single-process mode drives every local GPU from one process as well).
  "$NCCL_TESTS_DIR/${op}_perf" -b "$MIN" -e "$MAX" -f 2 -g "$GPUS" -n "$ITERS" -w "$WARMUP" -c 1 -d float \
    > "$OUT/nccl-tests-$op.txt"
done

"$MLBENCH" nccl --ops all_reduce,all_gather,reduce_scatter --dtype float --placement out \
  --min-bytes "$MIN" --max-bytes "$MAX" --factor 2 --iters "$ITERS" --warmup "$WARMUP" --gpus "$GPUS" \
  -o "$OUT/mlbench-nccl.json" > "$OUT/mlbench-nccl.txt"

python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
# nccl-tests rows: size count type redop root | out-of-place: time algbw busbw #wrong | in-place: ...
ref = {}
for op in ("all_reduce", "all_gather", "reduce_scatter"):
    for line in open(f"{out}/nccl-tests-{op}.txt"):
        f = line.split()
        if len(f) >= 9 and f[0].isdigit():
            ref[(op, int(f[0]))] = float(f[7]) * 1e9  # GB/s -> B/s
report = json.load(open(f"{out}/mlbench-nccl.json"))
print(f"{'collective':<16}{'bytes':>14}{'nccl-tests GB/s':>17}{'mlbench GB/s':>14}{'ratio':>8}")
worst = 0.0
for r in report["results"]:
    p = r["params"]
    if r["status"] != "ok" or "bytes" not in p:
        continue
    key = (p["collective"], int(p["bytes"]))
    if key not in ref or ref[key] <= 0:
        continue
    mine = next(m["value"] for m in r["metrics"] if m["name"] == "busbw")
    ratio = mine / ref[key]
    flag = ""
    if key[1] >= 1 << 30:
        worst = max(worst, abs(ratio - 1))
        flag = "  <-- outside ±3 %" if abs(ratio - 1) > 0.03 else ""
    print(f"{key[0]:<16}{key[1]:>14}{ref[key] / 1e9:>17.2f}{mine / 1e9:>14.2f}{ratio:>8.3f}{flag}")
print(f"largest deviation at >= 1 GiB: {worst * 100:.1f} % (target 3 %)")
sys.exit(1 if worst > 0.03 else 0)
PY
