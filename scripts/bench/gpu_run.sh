#!/usr/bin/env bash
# The GPU benchmark, step 1 of 3 (this machine): builds hlsched and the benchmark bundle of every
# example app x {manual, li2018, hlsched} into .bundle/ (git-ignored), then prints step 2: the
# device-tool call that runs it on the H200 and step 3: the report.
#
#   scripts/bench/gpu_run.sh [hlsched bench options]     e.g. --app blur --app unsharp
#
# Environment: HLSCHED_BUILD_DIR (default build/). Takes about 3 minutes on 2 cores with a warm
# generator cache (docs/PERFORMANCE.md has the measured figures).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${HLSCHED_BUILD_DIR:-$here/build}
[[ -f "$build/build.ninja" ]] || cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j2 --target hlsched hlsched_gengen hlsched_bench_runner autoschedule_hlsched
cd "$here"
# camera_pipe's raw input holds 10-bit values; everything else gets the default range of its type.
"$build/bin/hlsched" bench --out .bundle --input-range camera_pipe.input=0:1023 "$@"
cat <<'STEPS'

Step 2, the device tool (one H200; the bundle travels as a carried path; about a minute of
device time): a smoke run of blur and unsharp, then, if it passed, every app:
  run(kind="nvidia-h200", carry=[".bundle"], timeout_s=420, command="bash scripts/bench/device_run.sh")

Step 3, here, with the results.json that came back (files_at in the tool's reply):
  build/bin/hlsched report RESULTS.json --chart docs/perf/CHART.svg > table.md
STEPS
