#!/usr/bin/env bash
# Random pipelines through the simple scheduler: for each seed, `hlsched random-pipeline` writes a
# generator, then `hlsched schedule --json --verify` builds it, schedules it, applies the schedule
# and compiles it for the GPU target. A seed passes when that succeeds with at least one GPU kernel.
#
#   scripts/bench/random_pipelines.sh [N]        N seeds (default 300), starting at $FIRST_SEED
#
# Environment: HLSCHED (binary, default build/bin/hlsched), FIRST_SEED (1), MIN_STAGES (2),
# MAX_STAGES (40), JOBS (parallel checks, 1), TIMEOUT (seconds per generator, 60), STRATEGY
# (the scheduler, default simple),
# OUT (folder for failing sources and logs, default a fresh temporary folder).
# Seed s gets MIN_STAGES + (7 s mod (MAX_STAGES - MIN_STAGES + 1)) stages, so any range of seeds
# covers the whole range of sizes. Exit status: 0 when every seed passes, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-300}
HLSCHED=${HLSCHED:-$here/build/bin/hlsched}
export HLSCHED=$(realpath -m "$HLSCHED")
export MIN_STAGES=${MIN_STAGES:-2} MAX_STAGES=${MAX_STAGES:-40} TIMEOUT=${TIMEOUT:-60} STRATEGY=${STRATEGY:-simple}
first=${FIRST_SEED:-1}
jobs=${JOBS:-1}
export OUT=${OUT:-$(mktemp -d /tmp/random_pipelines.XXXXXX)}
mkdir -p "$OUT"
[[ -x "$HLSCHED" ]] || { echo "no hlsched binary at $HLSCHED (set HLSCHED)" >&2; exit 2; }

# Prints "pass SEED STAGES SECONDS SEARCH_MS" or "FAIL SEED STAGES SECONDS: reason".
check_seed() {
  local seed=$1
  local stages=$((MIN_STAGES + (7 * seed) % (MAX_STAGES - MIN_STAGES + 1)))
  local src="$OUT/seed_$seed.cpp" log="$OUT/seed_$seed.log" json="$OUT/seed_$seed.json"
  local start=$SECONDS
  if ! "$HLSCHED" random-pipeline --seed "$seed" --stages "$stages" --output "$src" 2>"$log"; then
    echo "FAIL $seed $stages 0: random-pipeline: $(head -c 300 "$log")"
    return
  fi
  local status=0
  "$HLSCHED" schedule --json --verify --strategy "$STRATEGY" --timeout "$TIMEOUT" "$src" >"$json" 2>"$log" || status=$?
  local kernels
  kernels=$(grep -o '"gpu_kernels": [0-9]*' "$json" | grep -o '[0-9]*$' || true)
  local seconds=$((SECONDS - start))
  if [[ $status -eq 0 && -n "$kernels" && "$kernels" -gt 0 ]]; then
    local search_ms
    search_ms=$(jq -r '.search.time_ms | floor' "$json" 2>/dev/null || echo '?')
    echo "pass $seed $stages $seconds $search_ms"
    rm -f "$src" "$log" "$json"
  else
    echo "FAIL $seed $stages $seconds: exit $status, gpu_kernels '${kernels}': $(grep -v '^\s*$' "$log" | head -c 400 | tr '\n' ' ')"
  fi
}
export -f check_seed

echo "checking $count seeds from $first with $jobs jobs; failures kept in $OUT" >&2
results=$(seq "$first" $((first + count - 1)) | xargs -P "$jobs" -I{} bash -c 'check_seed {}' | tee /dev/stderr)
passed=$(grep -c '^pass' <<<"$results" || true)
failed=$(grep -c '^FAIL' <<<"$results" || true)
slowest=$(grep '^pass' <<<"$results" | sort -k4 -n | tail -1 || true)
longest_search=$(grep '^pass' <<<"$results" | sort -k5 -n | tail -1 || true)
echo "random pipelines: $passed passed, $failed failed of $count (slowest pass: seed/stages/seconds/search_ms ${slowest#pass }; longest search: ${longest_search#pass })"
[[ $failed -eq 0 ]]
