#!/usr/bin/env bash
# A benchmark bundle of tests/data/idioms: Halide idioms that neither the examples nor the random
# pipelines write, standing in for generators never seen before. Each idiom is laid out as an
# example app (<app>/<app>_generator.cpp; its "schedule" GeneratorParam is what `hlsched bench`
# sets) and built by `hlsched bench` under our plugin and Li2018, whose outputs check each other.
#
#   scripts/bench/idioms_bundle.sh OUT [hlsched bench options...]
#   e.g. scripts/bench/idioms_bundle.sh .bundle-idioms --jobs 2
#
# Environment: HLSCHED (binary, default build/bin/hlsched). Then on the GPU machine:
#   bash OUT/run.sh --output results.json
# and compare two bundles' runs with scripts/bench/compare_runs.py --normalize li2018.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: idioms_bundle.sh OUT [hlsched bench options...]}
shift
HLSCHED=${HLSCHED:-$here/build/bin/hlsched}
apps=$(mktemp -d /tmp/idiom_apps.XXXXXX)
trap 'rm -rf "$apps"' EXIT
for source in "$here"/tests/data/idioms/*.cpp; do
  app=$(basename "$source" .cpp)
  mkdir -p "$apps/$app"
  cp "$source" "$apps/$app/${app}_generator.cpp"
done
"$HLSCHED" bench --examples-dir "$apps" --scheduler hlsched li2018 --out "$out" "$@"
