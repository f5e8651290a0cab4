#!/usr/bin/env bash
# The dataset's device run (on the GPU machine, through the device tool): runs each collection
# bundle given (built by `hlsched dataset collect` / collect_chunks.sh) one after the other, within
# one time budget, and leaves in $OUT per bundle NAME.results.json.xz and NAME.log.xz, plus
# gpu.txt (name and driver, for the provenance).
#
#   device tool: run(carry=[".device-data"], timeout_s=600,
#                    command="BUDGET=520 bash scripts/dataset/device_collect.sh .device-data/*/")
#
# Each bundle gets an equal share of what is left of BUDGET seconds (what one leaves unused goes
# to the next). The runner's per-app child processes have a 60 s limit: a variant that hangs or
# crashes costs its app's remaining time, never the run.
set -uo pipefail
out=${OUT:-.}
budget=${BUDGET:-520}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
start=$(date +%s)
count=$#
index=0
for bundle in "$@"; do
  bundle=${bundle%/}
  name=$(basename "$bundle")
  left=$(( budget - ($(date +%s) - start) ))
  share=$(( left / (count - index) ))
  index=$((index + 1))
  if (( share < 20 )); then echo "$name: skipped, ${left} s left"; continue; fi
  bash "$bundle/run.sh" --output "$out/$name.results.json" --time-budget "$share" --app-timeout 60 \
    --warmup 1 --min-reps 5 --max-reps 200 --seconds-per-variant 0.05 --kernel-reps 1 --max-input-sets 4 \
    > "$out/$name.log" 2>&1
  status=$?
  ok=$(grep -c '"status": "ok"' "$out/$name.results.json" 2>/dev/null)
  echo "$name: runner exit $status, $ok variants ok, $(( $(date +%s) - start )) s so far"
  tail -3 "$out/$name.log"
  xz -T0 -6 "$out/$name.results.json" "$out/$name.log"
done
ls -la "$out"
