#!/usr/bin/env bash
# Random schedules on the GPU, step 1 (this machine): builds a benchmark bundle of each app's
# manual schedule plus COUNT random schedules (random walks over the search's options, drawn by our
# plugin with HLSCHED_OPTIONS "strategy=sample,seed=SEED,sample=I"), then prints the device call.
# The runner checks every variant's output against the app's first variant, the manual schedule:
# bit for bit for integer outputs, within the float tolerance for float ones (output_check.h).
#
#   scripts/bench/random_schedules.sh [COUNT] [APP ...]
#       default: 8 schedules each of blur camera_pipe hist (integer outputs), unsharp harris (float)
#
# Environment: HLSCHED_BUILD_DIR (default build/: builds the plugin there), HLSCHED (the hlsched
# binary that builds the bundle; default: also built in HLSCHED_BUILD_DIR), SEED (default 1),
# BUNDLE (default .bundle-random, git-ignored), GPU (the plugin's profile, default h200).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${HLSCHED_BUILD_DIR:-$here/build}")
count=${1:-8}
shift || true
apps=("$@")
[[ ${#apps[@]} -gt 0 ]] || apps=(blur camera_pipe hist unsharp harris)
seed=${SEED:-1}
bundle=$(realpath -m "${BUNDLE:-$here/.bundle-random}")
gpu=${GPU:-h200}
[[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "COUNT must be a positive integer, not '$count'" >&2; exit 2; }
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "SEED must be a non-negative integer, not '$seed'" >&2; exit 2; }

[[ -f "$build/build.ninja" ]] || cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [[ -n "${HLSCHED:-}" ]]; then
  cmake --build "$build" -j2 --target autoschedule_hlsched
else
  cmake --build "$build" -j2 --target hlsched hlsched_gengen hlsched_bench_runner autoschedule_hlsched
  HLSCHED=$build/bin/hlsched
fi
plugin="$build/lib/libautoschedule_hlsched.so"
[[ -f "$plugin" ]] || { echo "no plugin at $plugin" >&2; exit 2; }
[[ -x "$HLSCHED" ]] || { echo "no hlsched binary at $HLSCHED" >&2; exit 2; }

# One variant per (app, sample index): label "s<SEED>_<I>".
variants="$build/random_schedules.variants.json"
for app in "${apps[@]}"; do
  for ((i = 0; i < count; i++)); do
    jq -n --arg app "$app" --arg name "s${seed}_$i" --arg plugin "$plugin" \
      --arg options "gpu=$gpu,strategy=sample,seed=$seed,sample=$i" \
      '{"app": $app, "label": $name, "params": {"schedule": "none"}, "plugin": $plugin,
        "autoscheduler": "Hlsched", "environment": {"HLSCHED_OPTIONS": $options}}'
  done
done | jq -s . > "$variants"

app_args=()
for app in "${apps[@]}"; do app_args+=(--app "$app"); done
# --scheduler manual: the manual variant comes first per app, so it is the outputs' reference.
"$HLSCHED" bench --out "$bundle" --scheduler manual --variants "$variants" "${app_args[@]}" \
  --input-range camera_pipe.input=0:1023
cat <<STEPS

Step 2, the device tool (random schedules can be slow: few repetitions, a 330 s budget):
  run(kind="nvidia-h200", carry=["$(realpath --relative-to="$here" "$bundle")"], timeout_s=420, command="bash $(realpath --relative-to="$here" "$bundle")/run.sh --time-budget 330 --app-timeout 120 --warmup 1 --min-reps 3 --seconds-per-variant 0.2 --kernel-reps 1")
Step 3, here: $HLSCHED report RESULTS.json --no-stages
STEPS
