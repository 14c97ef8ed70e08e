#!/usr/bin/env bash
# Builds the libFuzzer targets (in the `asan` preset: clang 14, ASan + UBSan, the build that also runs the suite
# under the sanitizers) and runs each for FUZZ_SECONDS.
#
#   scripts/fuzz.sh [TARGET...]        default: every target of fuzz/CMakeLists.txt
#   FUZZ_SECONDS=600   seconds per target (default 60)
#   FUZZ_PARALLEL=2    targets run at the same time (default 1)
#   FUZZ_NO_BUILD=1    run the fuzzers already in build/asan (built by an earlier call or another job)
#   FUZZ_SEED=1        libFuzzer's random seed (default: a new one each run); CI fixes it so that its short runs
#                      are repeatable
#   FUZZ_TIMEOUT=10    seconds (wall clock) after which one input counts as a hang (default 10); raise it only
#                      on a machine so loaded that a niced fuzzer stalls for that long between inputs
#
# Seeds: fuzz/corpus/<target>/, saved findings tests/data/fuzz/<target>/ and the files fuzz/seeds.txt names,
# copied to build/asan/fuzz-runs/seeds/<target>/. What a run discovers is kept in
# build/asan/fuzz-runs/corpus/<target>/ for the next run. A crash, sanitizer report, leak, out-of-memory or hang
# leaves its input in build/asan/fuzz-runs/artifacts/<target>/ and makes the script exit 1, naming target and
# input; turn each one into a regression test by fixing the parser and adding the input under
# tests/data/fuzz/<target>/. Per target, build/asan/fuzz-runs/logs/<target>.log holds libFuzzer's output and
# build/asan/fuzz-runs/summary.txt the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-10}
parallel=${FUZZ_PARALLEL:-1}
# Every target fuzz/CMakeLists.txt builds (its mlbench_fuzz_names list is the one list of them).
read -r -a all <<<"$(sed -n '/^set(mlbench_fuzz_names/,/)/p' fuzz/CMakeLists.txt | tr '()\n' '   ' | sed 's/^set *mlbench_fuzz_names//')"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (known: ${all[*]})" >&2; exit 2; }
done

if [[ -z ${FUZZ_NO_BUILD:-} ]]; then
  command -v clang++-14 >/dev/null || { echo "fuzz.sh: clang++-14 not found: apt-get install clang-14 libclang-rt-14-dev" >&2; exit 2; }
  cmake --preset asan >/dev/null
  cmake --build --preset asan --target "${targets[@]/%/_fuzz}"
fi

bin=build/asan/fuzz
out=build/asan/fuzz-runs
# The targets' scratch trees (a copy of a /sys fixture, catalog files) go here, not to the shared /tmp.
export TMPDIR=$PWD/$out/tmp/$$
mkdir -p "$out/logs" "$TMPDIR"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

seed() {  # seed TARGET: fresh seed folder, one file per seed, named after its source path
  local t=$1 dir=$out/seeds/$1 src f
  rm -rf "$dir" && mkdir -p "$dir"
  local sources=("fuzz/corpus/$t" "tests/data/fuzz/$t")
  while read -r name path; do
    [[ $name == "$t" ]] && sources+=("$path")
  done < <(grep -v '^#' fuzz/seeds.txt)
  for src in "${sources[@]}"; do
    [[ -e $src ]] || continue
    find "$src" -maxdepth 1 -type f -print0 | while IFS= read -r -d '' f; do cp "$f" "$dir/${f//\//_}"; done
  done
}

run_one() {  # run_one TARGET: 0 when libFuzzer found nothing
  local t=$1
  seed "$t"
  mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
  touch "$out/artifacts/$t.started"
  nice -n 10 "$bin/${t}_fuzz" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
    ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" "$out/seeds/$t" \
    >"$out/logs/$t.log" 2>&1
}

new_artifacts() {  # new_artifacts TARGET: inputs saved by this run (older ones are kept, not counted)
  find "$out/artifacts/$1" -type f -newer "$out/artifacts/$1.started"
}

summary() {  # summary TARGET RC: one line of figures from the log
  local t=$1 rc=$2 log=$out/logs/$1.log
  local execs cov ft corpus artifacts
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$out/corpus/$t" -type f | wc -l)
  artifacts=$(new_artifacts "$t" | wc -l)
  printf '%s %-12s %6ss execs=%-10s cov=%-6s ft=%-7s corpus=%-6s rc=%s findings=%s\n' "$(date -u +%FT%TZ)" "$t" "$seconds" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$rc" "$artifacts"
}

failed=0
pending=("${targets[@]}")
while [[ ${#pending[@]} -gt 0 ]]; do
  batch=("${pending[@]:0:$parallel}")
  pending=("${pending[@]:$parallel}")
  pids=()
  for t in "${batch[@]}"; do
    echo "fuzz.sh: $t for ${seconds}s (log $out/logs/$t.log)"
    run_one "$t" &
    pids+=($!)
  done
  for i in "${!batch[@]}"; do
    t=${batch[$i]}
    rc=0
    wait "${pids[$i]}" || rc=$?
    summary "$t" "$rc" | tee -a "$out/summary.txt"
    if [[ $rc -ne 0 ]] || [[ -n $(new_artifacts "$t") ]]; then
      failed=1
      echo "fuzz.sh: FINDING in $t (exit $rc); inputs:" >&2
      new_artifacts "$t" >&2
      grep -m3 -E 'ERROR: |runtime error|terminate called|uncaught exception' "$out/logs/$t.log" >&2 || true
    fi
  done
done
rm -rf "$TMPDIR"
exit $failed
