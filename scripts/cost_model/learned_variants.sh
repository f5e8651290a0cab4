#!/usr/bin/env bash
# Extra benchmark variants for `hlsched bench --variants`: every example app scheduled by our
# plugin with the learned cost model (or MODEL: "both", hand and learned together; "hand": the
# hand model, WEIGHTS then unused) and the given weights, labelled LABEL ("learned" by default; the
# standard "hlsched" variant is the same plugin with the default options: model=both, embedded weights).
#
#   scripts/cost_model/learned_variants.sh WEIGHTS [BUILD_DIR [LABEL [MODEL]]] > .bundle-cfg/learned.json
#   HLSCHED_BUILD_DIR=build scripts/bench/gpu_run.sh --variants .bundle-cfg/learned.json
#
# WEIGHTS and BUILD_DIR are made absolute: the bundle builder runs GenGen from other folders.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
weights=$(realpath "${1:?usage: learned_variants.sh WEIGHTS [BUILD_DIR]}")
build=$(realpath "${2:-$here/build}")
label=${3:-learned}
model=${4:-learned}
plugin="$build/lib/libautoschedule_hlsched.so"
first=1
echo "["
for dir in "$here"/examples/*/; do
  app=$(basename "$dir")
  [[ -f "$dir/${app}_generator.cpp" ]] || continue
  [[ $first == 1 ]] || echo ","
  first=0
  printf '  {"app": "%s", "label": "%s", "params": {"schedule": "none"}, "plugin": "%s",\n' "$app" "$label" "$plugin"
  printf '   "autoscheduler": "Hlsched", "environment": {"HLSCHED_OPTIONS": "model=%s,weights=%s"}, "predict": false}' "$model" "$weights"
done
echo
echo "]"
