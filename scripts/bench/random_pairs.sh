#!/usr/bin/env bash
# (random pipeline, random schedule) pairs beyond CI's 320: the hidden "[sweep]" test of e2e_tests
# (tests/e2e/test_random_pairs.cpp) over more seeds. For each pair: the schedule applied compiles
# for CUDA, pasted as text it lowers to the same program, and its CPU twin's outputs equal the
# compute_root pipeline's bit for bit.
#
#   scripts/bench/random_pairs.sh [PIPELINES] [SAMPLES]     default 100 pipelines x 10 schedules
#
# Environment: HLSCHED_BUILD_DIR (default build/, where e2e_tests is built), FIRST_SEED (1),
# MAX_STAGES (seed s gets 2 + s mod (MAX_STAGES - 1) stages; default 10), JOBS (parallel test
# processes, default 2), BATCH (pipelines per g++ build, default 10), OUT (logs, default a fresh
# temporary folder), SEARCHED=1 (the beam search's schedule, one per pipeline, instead of random
# walks; SAMPLES is then ignored). Exit status: 0 when every pair passes, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${HLSCHED_BUILD_DIR:-$here/build}")
pipelines=${1:-100}
samples=${2:-10}
first=${FIRST_SEED:-1}
jobs=${JOBS:-2}
batch=${BATCH:-10}
export HLSCHED_PAIRS_MAX_STAGES=${MAX_STAGES:-10}
export HLSCHED_PAIRS_SEARCHED=${SEARCHED:-0}
((HLSCHED_PAIRS_SEARCHED == 0)) || samples=1
out=${OUT:-$(mktemp -d /tmp/random_pairs.XXXXXX)}
mkdir -p "$out"
tests="$build/tests/e2e_tests"
[[ -x "$tests" ]] || { echo "no e2e_tests at $tests (ninja -C $build e2e_tests)" >&2; exit 2; }

# The seeds split into JOBS contiguous ranges, one test process each.
per_job=$(((pipelines + jobs - 1) / jobs))
start=$(date +%s)
pids=()
for ((j = 0; j < jobs; j++)); do
  from=$((first + j * per_job))
  count=$((pipelines - j * per_job < per_job ? pipelines - j * per_job : per_job))
  ((count > 0)) || continue
  HLSCHED_PAIRS_VERBOSE=1 HLSCHED_PAIRS_FIRST_SEED=$from HLSCHED_PAIRS_PIPELINES=$count \
    HLSCHED_PAIRS_SAMPLES=$samples HLSCHED_PAIRS_BATCH=$batch \
    "$tests" "[sweep]" > "$out/seeds_$from.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

failed=$(grep -h -c "FAILED" "$out"/seeds_*.log | paste -sd+ | bc)
echo "$pipelines pipelines x $samples schedules from seed $first (max $HLSCHED_PAIRS_MAX_STAGES stages):" \
     "$failed failed checks, $(($(date +%s) - start)) s wall; logs in $out"
grep -h "^random pairs:" "$out"/seeds_*.log | awk '{cpu[$3 " " $4] += $(NF-1)} END {for (p in cpu) printf "  %-20s cpu %7.1f s\n", p, cpu[p]}'
grep -h -A3 "FAILED" "$out"/seeds_*.log | head -40 || true
exit $status
