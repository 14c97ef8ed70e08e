#!/usr/bin/env bash
# Soak test of `mlbench monitor`: its memory must stay flat over time (no per-sample or per-scrape growth).
#
# Starts the exporter on a free 127.0.0.1 port sampling every second, puts it under scrape load (SCRAPERS curl
# loops, each scraping /metrics back to back) for MINUTES, and prints the exporter's RSS (VmRSS, /proc) and
# the scrapes served each minute; then stops it with SIGTERM and checks it exited 0. Flat means the last
# minute's RSS is within 1 MiB of the first minute's.
#
# BASELINE (optional): a report passed as --baseline, so that the ratios and bottleneck series are computed
# and served on every sample too.
#
# Usage: scripts/monitor-soak.sh [MINUTES (10)] [MLBENCH_BINARY (build/default/mlbench)] [SCRAPERS (4)] [BASELINE]
set -euo pipefail
minutes=${1:-10}
mlbench=${2:-build/default/mlbench}
scrapers=${3:-4}
baseline=()
[ -n "${4:-}" ] && baseline=(--baseline "$4")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp)
count=$(mktemp)
"$mlbench" monitor --interval 1s --listen "127.0.0.1:$port" ${baseline[@]+"${baseline[@]}"} 2> "$log" &
exporter=$!
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  kill "$exporter" 2> /dev/null || true
  rm -f "$log" "$count"
}
trap cleanup EXIT
sleep 1
for _ in $(seq "$scrapers"); do
  (while true; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && echo >> "$count"; done) &
  pids+=($!)
done
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$exporter/status"; }
first=""
echo "minute rss_kib scrapes_total"
for m in $(seq "$minutes"); do
  sleep 60
  rss=$(rss_kib)
  first=${first:-$rss}
  echo "$m $rss $(wc -l < "$count")"
done
for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
pids=()
kill -TERM "$exporter"
rc=0
wait "$exporter" || rc=$?
echo "exporter exit status after SIGTERM: $rc"
growth=$((rss - first))
echo "RSS growth from minute 1 to minute $minutes: $growth KiB"
[ "$rc" -eq 0 ] && [ "$growth" -le 1024 ]
