#!/usr/bin/env bash
# Measures how much back-to-back runs of this machine differ, and what `mlbench compare` makes of it.
#
#   1. RUNS x `mlbench run --profile quick` back to back (their storage test files in OUT_DIR), OUT_DIR/rK.json;
#   2. the between-run spread: per result and metric the sample SD of ln(value) across the runs, and per
#      probe and class of metric (the classes of reports/stated_spread.hpp, as compare's JSON names them) the
#      largest of those, with the result that sets it — printed as the rows of kStatedSpreads, ready to paste;
#   3. every pair of runs compared one run each (`mlbench compare rI rJ`, no --base-runs, as a user first
#      does): exit code, regressions, improvements, noise, not judged, and each regression's metric, change
#      and band. Target on an unchanged machine: 0 regressions in every pair (5 runs: 10 pairs).
#
# Usage: scripts/bench-compare-noise.sh MLBENCH_BINARY RUNS OUT_DIR [-- extra `mlbench run` flags]
#   MLBENCH_REUSE=1: analyse the rK.json already in OUT_DIR instead of running (K = 1..RUNS).
# Needs python3. Each quick run takes ~25 s; its storage test file goes in OUT_DIR (removed after the run).
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 MLBENCH_BINARY RUNS OUT_DIR [-- extra mlbench run flags]" >&2
  exit 2
fi
mlbench=$1
runs=$2
out=$3
shift 3
[[ ${1:-} == "--" ]] && shift
extra=("$@")

[[ -x $mlbench ]] || { echo "$mlbench is not an executable; build mlbench or pass its path" >&2; exit 2; }
[[ $runs =~ ^[0-9]+$ && $runs -ge 3 ]] || { echo "RUNS must be a number >= 3 (got '$runs')" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
mkdir -p "$out"

if [[ ${MLBENCH_REUSE:-0} != 1 ]]; then
  for ((k = 1; k <= runs; k++)); do
    start=$(date +%s)
    "$mlbench" run --profile quick --storage-dir "$out" -o "$out/r$k.json" "${extra[@]}" >"$out/r$k.log" 2>&1 || {
      echo "run $k failed (exit $?): see $out/r$k.log" >&2
      exit 1
    }
    echo "run $k/$runs: $(($(date +%s) - start)) s"
  done
fi

# Every pair, one run each: the JSON of each compare, and its exit code.
for ((i = 1; i <= runs; i++)); do
  for ((j = i + 1; j <= runs; j++)); do
    rc=0
    "$mlbench" compare --format json "$out/r$i.json" "$out/r$j.json" >"$out/c$i-$j.json" 2>/dev/null || rc=$?
    echo "$rc" >"$out/c$i-$j.rc"
  done
done

python3 - "$out" "$runs" <<'EOF'
import glob, json, math, os, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])
reports = [json.load(open(os.path.join(out, f"r{k}.json"))) for k in range(1, runs + 1)]
host = reports[0].get("host", {})
cpu = host.get("cpu", {})
print(f"\nhost {host.get('hostname', '?')}: {cpu.get('model', '?')}, {cpu.get('threads', '?')} threads; "
      f"mlbench {reports[0].get('tool', {}).get('version', '?')}; {runs} runs of --profile quick")

def ident(res):
    p = res.get("params", {})
    return p.get("job") or p.get("kernel") or json.dumps(p, sort_keys=True)

# The class compare gives each metric (between_class of a stated spread), from the first pair's JSON.
first = json.load(open(os.path.join(out, "c1-2.json")))["comparisons"][0]
klass = {}
for c in first["changes"]:
    k = (c["probe"], json.dumps(c["params"], sort_keys=True), c["metric"])
    klass[k] = c.get("between_class") or "(none stated)"

values = {}
for r in reports:
    for res in r["results"]:
        if res["status"] != "ok":
            continue
        for m in res["metrics"]:
            if isinstance(m.get("value"), (int, float)) and m["value"] > 0:
                values.setdefault((res["probe"], json.dumps(res["params"], sort_keys=True), m["name"]),
                                  []).append(m["value"])

worst = {}
for k, v in values.items():
    if len(v) < runs:
        continue
    sd = statistics.stdev(math.log(x) for x in v)
    cls = (k[0], klass.get(k, "(none stated)"))
    if sd > worst.get(cls, (-1,))[0]:
        worst[cls] = (sd, json.loads(k[1]), k[2])

print("\nBetween-run spread: the largest SD of ln(value) across the runs, per probe and class")
print("| probe | class | SD of ln(value) | set by |")
print("|---|---|---|---|")
for (probe, cls), (sd, params, metric) in sorted(worst.items()):
    who = params.get("job") or params.get("kernel") or json.dumps(params)
    print(f"| {probe} | {cls} | {sd:.3f} | {who} {metric} |")
print(f"\nFor kStatedSpreads (reports/stated_spread.hpp): each row's sd and runs ({runs})")
for (probe, cls), (sd, _, _) in sorted(worst.items()):
    if cls != "(none stated)":
        print(f'    {{"{probe}", "{cls}", ..., {sd:.3f}, {runs}}},')

print("\nEvery pair compared one run each (mlbench compare rI rJ, no --base-runs)")
print("| pair | exit | regressions | improvements | noise | not judged |")
print("|---|---|---|---|---|---|")
failing = 0
details = []
for i in range(1, runs + 1):
    for j in range(i + 1, runs + 1):
        rc = int(open(os.path.join(out, f"c{i}-{j}.rc")).read())
        c = json.load(open(os.path.join(out, f"c{i}-{j}.json")))["comparisons"][0]
        s = c["summary"]
        failing += rc != 0
        print(f"| r{i}-r{j} | {rc} | {s['regressions']} | {s['improvements']} | {s['noise']} | "
              f"{s.get('not_judged', 0)} |")
        for ch in c["changes"]:
            if ch["verdict"] in ("regression", "improvement"):
                details.append(f"r{i}-r{j} {ch['verdict']}: {ch['probe']} {ch['params'].get('job') or ch['params'].get('kernel') or ''} "
                               f"{ch['metric']} {100 * ch['gain']:+.1f} % (band ±{100 * ch['noise_band']:.1f} %)")
pairs = runs * (runs - 1) // 2
print(f"\n{pairs - failing} of {pairs} pairs exit 0")
for d in details:
    print("  " + d)
EOF
