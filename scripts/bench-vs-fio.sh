#!/usr/bin/env bash
# mlbench storage vs fio (ioengine=io_uring) on the same file with the same job parameters.
#
# For each of the profile suite's seven reference jobs, runs mlbench and fio alternately (the order flips every
# pair to cancel drift), PAIRS pairs per job, and prints per job the median ratios mlbench/fio of IOPS
# (higher is better), p99 latency and CPU per I/O (lower is better), the range of the per-pair IOPS ratios (a wide
# range means the device itself swung between runs), the median request size the block device saw for each tool
# (dev_kb_m/f, KiB), plus the medians over all jobs. CPU per I/O enters the verdict only for jobs whose device
# requests had the same size for both tools (a merged request costs the kernel one dispatch for several I/Os).
# Both tools get O_DIRECT, registered files and buffers, the same block size, queue depth, job count, runtime and
# ramp; fio runs with norandommap/randrepeat=0 (uniform random offsets, as mlbench draws them) and
# unified_rw_reporting=mixed with lat_percentiles=1 (submission→completion latency over reads and writes, as
# mlbench reports it). CPU per I/O: fio's (usr_cpu + sys_cpu) × numjobs / IOPS; mlbench's cpu_per_io.
# Both pin their job threads to the same CPUs: by default the ones mlbench's --cpus auto picks (the drive's
# interrupt CPUs first, then its NUMA node), or a LIST given here; fio gets the first numjobs of them with
# cpus_allowed_policy=split. --cpus none pins neither.
# I/O buffers: mlbench puts multi-page I/O buffers in transparent huge pages (one memory segment per I/O); fio
# has no such option and by default uses malloc (base pages: a 128 KiB I/O is 32 segments). --fio-hugepages
# gives fio huge pages too (iomem=mmaphuge), from the pool the administrator reserved (vm.nr_hugepages).
# --plain compares what a user gets who types only the job: both tools' defaults, no ramp, nothing pinned by
# this script. mlbench gets --rw --bs --iodepth --jobs --runtime (its own defaults do the rest: O_DIRECT,
# registered buffers, --cpus auto, --submission auto with its trial ramp); fio gets the same plus
# ioengine=io_uring, direct=1 and time_based (fio's default engine is psync, and without time_based it stops
# after one pass over the file), and nothing else: no registered files or buffers, no pinning, its default
# random map. Only reporting options are added (unified_rw_reporting=mixed, lat_percentiles=1).
#
# Usage: scripts/bench-vs-fio.sh [--dir DIR] [--mlbench PATH] [--pairs N] [--runtime S] [--ramp S] [--size SIZE]
#                               [--jobs-filter REGEX] [--cpus auto|LIST|none] [--fio-hugepages] [--plain]
set -euo pipefail

dir=/var/tmp
mlbench=${MLBENCH:-}
pairs=3
runtime=5
ramp=1
size=2G
filter=.
cpus=auto
fio_mem=malloc
plain=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --mlbench) mlbench=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --ramp) ramp=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --jobs-filter) filter=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --fio-hugepages) fio_mem=mmaphuge; shift ;;
    --plain) plain=1; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "bench-vs-fio.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z "$mlbench" ]]; then
  for c in build/default/mlbench build/storage/mlbench build/mlbench; do
    [[ -x "$c" ]] && mlbench=$c && break
  done
fi
[[ -x "$mlbench" ]] || { echo "bench-vs-fio.sh: mlbench binary not found; pass --mlbench PATH" >&2; exit 2; }
command -v fio >/dev/null || { echo "bench-vs-fio.sh: fio is not installed (apt-get install fio)" >&2; exit 2; }
# The largest job's buffers: 1M × QD8 = 8 MiB; 16 MiB leaves room for fio's rounding per job.
if [[ "$fio_mem" == mmaphuge ]] && (($(awk '/HugePages_Free/ {f=$2} /Hugepagesize/ {s=$2} END {print f*s}' \
  /proc/meminfo) < 16384)); then
  echo "bench-vs-fio.sh: --fio-hugepages needs 16 MiB of free reserved huge pages; reserve them with" \
    "'echo 8 > /proc/sys/vm/nr_hugepages' (as root) and set it back afterwards" >&2
  exit 2
fi

work=$(mktemp -d)
file=""
cleanup() { [[ -n "$file" ]] && rm -f "$file"; rm -rf "$work"; }
trap cleanup EXIT INT TERM

# One file for both tools, created and filled with random data by mlbench (--keep leaves it).
"$mlbench" storage --target "$dir" --size "$size" --runtime 1 --keep --json > "$work/create.json"
file=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["info"]["kept_files"][0])' \
  "$work/create.json")
if [[ "$cpus" == auto ]]; then
  cpus=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["results"][0]["info"]["cpus"]
print(c if c == "none" else ",".join(map(str, c)))' "$work/create.json")
fi
first_cpus() {  # LIST N: the first N CPUs of LIST ("1,0", "4-7,0"), for fio's cpus_allowed
  python3 -c 'import sys
cpus = []
for part in sys.argv[1].split(","):
    lo, _, hi = part.partition("-")
    cpus += range(int(lo), int(hi or lo) + 1)
print(",".join(map(str, cpus[:int(sys.argv[2])])))' "$1" "$2"
}

# The block device under the file, when there is one: its request counters show the request size the device really
# saw (the block layer merges adjacent requests when they wait in the scheduler; a wide iops_x_range on a
# sequential job usually comes with very different merge rates).
devstat=/sys/dev/block/$(stat -c '%Hd:%Ld' "$file")/stat
[[ -r "$devstat" ]] || devstat=""
dev_kb() {  # counters before, after: mean KiB per device request, or - without a device
  [[ -n "$devstat" ]] || { echo -; return; }
  local a=($1) b=($2)
  local ios=$((b[0] - a[0] + b[4] - a[4])) sectors=$((b[2] - a[2] + b[6] - a[6]))
  ((ios > 0)) && echo $((sectors / 2 / ios)) || echo -
}
measure() {  # tool-function args...: prints the tool's "iops p99 cpu" and the device's mean request KiB
  local before after out
  before=$([[ -z "$devstat" ]] || cat "$devstat")
  out=$("$@")
  after=$([[ -z "$devstat" ]] || cat "$devstat")
  echo "$out $(dev_kb "$before" "$after")"
}

# name rw bs iodepth jobs rwmix_read
jobs_table="4k-randread-qd1 randread 4k 1 1 -
4k-randread-qd32 randread 4k 32 1 -
4k-randread-qd128-2jobs randread 4k 128 2 -
128k-read-qd16 read 128k 16 1 -
1m-write-qd8 write 1M 8 1 -
4k-randwrite-qd32 randwrite 4k 32 1 -
4k-randrw70-qd32 randrw 4k 32 1 70"

run_mlbench() {  # rw bs qd jobs mix out
  local extra=()
  [[ "$5" != "-" ]] && extra+=(--rwmix-read "$5")
  [[ "$1" == *write* || "$1" == randrw ]] && extra+=(--allow-destructive)
  ((plain)) || extra+=(--ramp "$ramp" --cpus "$cpus")
  "$mlbench" storage --target "$file" --rw "$1" --bs "$2" --iodepth "$3" --jobs "$4" --runtime "$runtime" \
    "${extra[@]}" --json > "$6"
  python3 - "$6" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
m = {x["name"]: x["value"] for x in r["metrics"]}
print(m["iops"], m["lat_p99"], m["cpu_per_io"])
PY
}

run_fio() {  # rw bs qd jobs mix out
  local extra=()
  [[ "$5" != "-" ]] && extra+=(--rwmixread="$5")
  if ((plain)); then
    extra+=(--ioengine=io_uring --direct=1)
  else
    [[ "$cpus" != none ]] && extra+=(--cpus_allowed="$(first_cpus "$cpus" "$4")" --cpus_allowed_policy=split)
    extra+=(--ioengine=io_uring --direct=1 --fixedbufs=1 --registerfiles=1 --iomem="$fio_mem" --size="$size"
      --ramp_time="$ramp" --norandommap --randrepeat=0)
  fi
  fio --name=job --filename="$file" --rw="$1" --bs="$2" --iodepth="$3" --numjobs="$4" --runtime="$runtime" \
    --time_based --group_reporting --unified_rw_reporting=mixed --lat_percentiles=1 --percentile_list=99 \
    "${extra[@]}" --output-format=json > "$6"
  python3 - "$6" "$4" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
m = j["mixed"]
p99 = m["lat_ns"]["percentile"]["99.000000"] * 1e-9
iops = m["iops"]
cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * int(sys.argv[2]) / iops
print(iops, p99, cpu)
PY
}

if ((plain)); then
  echo "file $file, plain: both tools' defaults, no ramp, no pinning by this script ($runtime s a run)"
else
  echo "file $file, job threads pinned to CPUs: $cpus; fio buffers: iomem=$fio_mem"
fi
printf '%-26s %12s %12s %10s %10s %10s %6s %12s %10s\n' job mlbench_iops fio_iops iops_x p99_x cpu_x pairs iops_x_range dev_kb_m/f
summary="$work/summary"
: > "$summary"
while read -r name rw bs qd nj mix; do
  [[ "$name" =~ $filter ]] || continue
  ratios="$work/$name.ratios"
  : > "$ratios"
  for ((p = 0; p < pairs; p++)); do
    if ((p % 2 == 0)); then
      m=$(measure run_mlbench "$rw" "$bs" "$qd" "$nj" "$mix" "$work/m.json")
      f=$(measure run_fio "$rw" "$bs" "$qd" "$nj" "$mix" "$work/f.json")
    else
      f=$(measure run_fio "$rw" "$bs" "$qd" "$nj" "$mix" "$work/f.json")
      m=$(measure run_mlbench "$rw" "$bs" "$qd" "$nj" "$mix" "$work/m.json")
    fi
    echo "$m $f" >> "$ratios"
  done
  python3 - "$ratios" "$name" "$pairs" >> "$summary" <<'PY'
import statistics, sys
# per pair: mlbench iops p99 cpu dev_kb, fio iops p99 cpu dev_kb
rows = [[float(x) if x != "-" else None for x in l.split()] for l in open(sys.argv[1]) if l.strip()]
med = lambda xs: statistics.median(xs)
mi = med([r[0] for r in rows]); fi = med([r[4] for r in rows])
iops_x = med([r[0] / r[4] for r in rows]); p99_x = med([r[1] / r[5] for r in rows]); cpu_x = med([r[2] / r[6] for r in rows])
lo = min(r[0] / r[4] for r in rows); hi = max(r[0] / r[4] for r in rows)
kb = lambda i: f"{med([r[i] for r in rows]):.0f}" if all(r[i] is not None for r in rows) else "-"
print(f"{sys.argv[2]} {mi:.0f} {fi:.0f} {iops_x:.3f} {p99_x:.3f} {cpu_x:.3f} {sys.argv[3]} {lo:.2f}-{hi:.2f} "
      f"{kb(3)}/{kb(7)}")
PY
  tail -1 "$summary" | awk '{printf "%-26s %12s %12s %10s %10s %10s %6s %12s %10s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
done <<< "$jobs_table"

python3 - "$summary" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
if rows:
    iops = [float(r[3]) for r in rows]; p99 = [float(r[4]) for r in rows]; cpu = [float(r[5]) for r in rows]
    print(f"{'median over jobs':<26} {'':>12} {'':>12} {statistics.median(iops):>10.3f} {statistics.median(p99):>10.3f} "
          f"{statistics.median(cpu):>10.3f}")
    print(f"{'worst job':<26} {'':>12} {'':>12} {min(iops):>10.3f} {max(p99):>10.3f} {max(cpu):>10.3f}")
    # CPU per I/O compares the tools only where the kernel did the same work per I/O: when one tool's requests
    # reached the device merged (mean request size more than 10 % apart), its kernel issued fewer requests,
    # interrupts and notifications per I/O, and the ratio measures the merging, not the tool.
    def same_requests(r):
        m, _, f = r[8].partition("/")
        return m == "-" or f == "-" or max(float(m), float(f)) <= 1.1 * min(float(m), float(f))
    apart = [r for r in rows if not same_requests(r)]
    cpu_ok = all(float(r[5]) <= 1.0 for r in rows if same_requests(r))
    ok = statistics.median(iops) >= 1.0 and min(iops) >= 0.97 and cpu_ok
    print("target (IOPS median >= 1.00, every job >= 0.97, CPU/IO <= fio):", "met" if ok else "NOT met")
    for r in apart:
        print(f"  CPU/IO of {r[0]} ({float(r[5]):.3f}) not compared: device requests of {r[8].replace('/', ' vs ')} KiB")
PY
