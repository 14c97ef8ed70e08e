#!/usr/bin/env bash
# mlbench dataload / checkpoint vs fio (ioengine=io_uring) on the same files.
#
# Data loading, per shape (small-files: JPEG-sized files, cosmoflow: 2.8 MB tfrecords): mlbench generates the
# dataset once (kept for the comparison, removed at the end), then PAIRS pairs alternate, the order flipping
# every pair: fio in its small-file form — opendir over the dataset, openfiles=1, file_service_type=random,
# rw=read with bs = the file size (one whole-file read per open → read → close), ioengine=io_uring, direct=1,
# numjobs = the files mlbench keeps in flight — against `mlbench dataload --step-time 0` (no compute: as fast
# as the storage feeds) with one accelerator whose --read-threads × --depth files are in flight. Sample sizes
# are the workloads' rounded up to 4 KiB (a --dlio file of that shape) so that fio's O_DIRECT block is the
# whole file. Figures: files/s (fio: reads/s, one read per file; mlbench: files_per_s) and CPU per file (fio:
# (usr + sys) % × runtime × numjobs / files; mlbench: cpu_per_file, the process's CPU in the window).
# Checkpoint: fio rw=write bs=4M numjobs=R end_fsync=1 (buffered, as mlbench's default) vs `mlbench checkpoint
# --no-read` with R ranks of the same shard; GB/s = bytes / the slowest job's runtime including the fsync.
# Prints per shape the median mlbench/fio ratios (≥ 1.00 files/s or GB/s, ≤ 1.00 CPU per file is mlbench
# ahead) and every pair.
#
# Usage: scripts/bench-dataload-vs-fio.sh [--dir DIR] [--mlbench PATH] [--pairs N] [--runtime S]
#                                         [--small-files N] [--cosmoflow-files N] [--threads T] [--depth D]
#                                         [--ranks R] [--shard SIZE]
set -euo pipefail

dir=/var/tmp
mlbench=${MLBENCH:-}
pairs=3
runtime=5
small_files=4000
cosmo_files=400
threads=2
depth=4
ranks=4
shard=256M
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --mlbench) mlbench=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --small-files) small_files=$2; shift 2 ;;
    --cosmoflow-files) cosmo_files=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --shard) shard=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "bench-dataload-vs-fio.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z "$mlbench" ]]; then
  for c in build/default/mlbench build/mlbench; do
    [[ -x "$c" ]] && mlbench=$c && break
  done
fi
[[ -x "$mlbench" ]] || { echo "bench-dataload-vs-fio.sh: no mlbench binary; build it or pass --mlbench" >&2; exit 2; }
command -v fio >/dev/null || { echo "bench-dataload-vs-fio.sh: fio is not installed" >&2; exit 2; }

work=$(mktemp -d "$dir/mlbench-dataload-vs-fio-XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=$((threads * depth))
results="$work/pairs.tsv"
: >"$results"

# shape name, files, sample bytes (rounded up to 4 KiB), batch
compare_shape() {
  local name=$1 files=$2 bytes=$3 batch=$4
  local data="$work/data-$name" yaml="$work/$name.yaml"
  mkdir -p "$data"
  cat >"$yaml" <<YAML
model: $name
dataset:
  num_files_train: $files
  num_samples_per_file: 1
  record_length: $bytes
reader:
  batch_size: $batch
  read_threads: $threads
train:
  computation_time: 0
YAML
  local common=(dataload --dlio "$yaml" --data-dir "$data" --accelerators 1 --read-threads "$threads"
                --depth "$depth" --step-time 0 --keep-data)
  "$mlbench" "${common[@]}" --generate --runtime 1 -o "$work/gen.json" >/dev/null
  local root="$data/mlbench-dataload-$name"
  for ((p = 0; p < pairs; p++)); do
    local order=(fio mlbench)
    ((p % 2 == 1)) && order=(mlbench fio)
    local fio_fps="" fio_cpu="" ml_fps="" ml_cpu=""
    for tool in "${order[@]}"; do
      if [[ $tool == fio ]]; then
        fio --name=dl --opendir="$root" --openfiles=1 --file_service_type=random --rw=read --bs="$bytes" \
            --ioengine=io_uring --direct=1 --iodepth=1 --numjobs="$jobs" --time_based --runtime="$runtime" \
            --group_reporting --output-format=json --output="$work/fio.json" >/dev/null
        read -r fio_fps fio_cpu < <(python3 - "$work/fio.json" "$runtime" "$jobs" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
rt = j["read"]["runtime"] / 1000 or float(sys.argv[2])
ios = j["read"]["total_ios"]
cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100 * rt * int(sys.argv[3])
print(ios / rt, cpu / max(ios, 1))
PY
)
      else
        "$mlbench" "${common[@]}" --runtime "$runtime" -o "$work/ml.json" >/dev/null
        read -r ml_fps ml_cpu < <(python3 - "$work/ml.json" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["params"].get("phase") == "train"][0]
m = {x["name"]: x["value"] for x in r["metrics"]}
print(m["files_per_s"], m["cpu_per_file"])
PY
)
      fi
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$ml_fps" "$fio_fps" "$ml_cpu" "$fio_cpu" >>"$results"
  done
  rm -rf "$root"
}

compare_checkpoint() {
  local bytes
  bytes=$(python3 -c "import sys; s=sys.argv[1]; u={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*u[s[-1].upper()] if s[-1].upper() in u else int(s))" "$shard")
  for ((p = 0; p < pairs; p++)); do
    local order=(fio mlbench) fio_bw="" ml_bw=""
    ((p % 2 == 1)) && order=(mlbench fio)
    for tool in "${order[@]}"; do
      mkdir -p "$work/ckpt"
      if [[ $tool == fio ]]; then
        fio --name=ckpt --directory="$work/ckpt" --rw=write --bs=4M --size="$bytes" --numjobs="$ranks" \
            --ioengine=io_uring --iodepth=4 --end_fsync=1 --output-format=json --output="$work/fio.json" >/dev/null
        fio_bw=$(python3 - "$work/fio.json" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
print(sum(j["write"]["io_bytes"] for j in jobs) / max(j["job_runtime"] for j in jobs) * 1000)
PY
)
      else
        "$mlbench" checkpoint --dir "$work/ckpt" --size $((bytes * ranks)) --ranks "$ranks" --bs 4M --depth 4 \
          --no-read -o "$work/ml.json" >/dev/null
        ml_bw=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print([m['value'] for m in r['metrics'] if m['name']=='write_bandwidth'][0])" "$work/ml.json")
      fi
      rm -rf "$work/ckpt"
    done
    printf 'checkpoint\t%s\t%s\t\t\n' "$ml_bw" "$fio_bw" >>"$results"
  done
}

compare_shape small-files "$small_files" 323584 24
compare_shape cosmoflow "$cosmo_files" 2830336 1
compare_checkpoint

python3 - "$results" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print(f"{'shape':<12} {'pair':>4} {'mlbench':>14} {'fio':>14} {'ratio':>6} {'cpu/file ml':>12} {'cpu/file fio':>12} {'ratio':>6}")
by = {}
for i, (shape, ml, fio, mc, fc) in enumerate(rows):
    r = float(ml) / float(fio)
    cr = float(mc) / float(fc) if mc and fc else None
    by.setdefault(shape, []).append((r, cr))
    unit = "B/s" if shape == "checkpoint" else "files/s"
    print(f"{shape:<12} {len(by[shape]):>4} {float(ml):>14.4g} {float(fio):>14.4g} {r:>6.2f}"
          + (f" {float(mc)*1e6:>10.1f}us {float(fc)*1e6:>10.1f}us {cr:>6.2f}" if cr else f"  ({unit})"))
print()
for shape, rs in by.items():
    med = statistics.median(r for r, _ in rs)
    cpu = [c for _, c in rs if c is not None]
    print(f"{shape:<12} median ratio {med:.2f}" + (f", CPU per file ratio {statistics.median(cpu):.2f}" if cpu else ""))
PY
