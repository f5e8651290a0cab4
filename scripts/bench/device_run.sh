#!/usr/bin/env bash
# The GPU benchmark, step 2 of 3 (on the GPU machine, through the device tool): a smoke run of
# two small apps, and only if every variant there ran and CUPTI gave per-kernel times, the full
# run. Results and logs go to $OUT (smoke.json, smoke.log, results.json, run.log).
#
#   device tool: run(carry=[".bundle"], timeout_s=420, command="bash scripts/bench/device_run.sh")
#
# Extra arguments go to the full run (e.g. --app hist). Build .bundle first with gpu_run.sh.
set -uo pipefail
out=${OUT:-.}
bash .bundle/run.sh --app blur --app unsharp --time-budget 60 --output "$out/smoke.json" > "$out/smoke.log" 2>&1
status=$?
tail -22 "$out/smoke.log"
ok=$(grep -c '"status": "ok"' "$out/smoke.json" 2>/dev/null || true)
if [[ "$ok" != 6 ]] || ! grep -q '"busy_ms"' "$out/smoke.json"; then
  echo "SMOKE FAILED (exit $status, $ok of 6 variants ok, or no per-kernel times): no full run"
  head -80 "$out/smoke.log"
  exit 1
fi
echo "SMOKE OK"
bash .bundle/run.sh --time-budget 200 --app-timeout 60 --output "$out/results.json" "$@" > "$out/run.log" 2>&1
echo "full run: exit $? (1: some variant failed or differs; see the table)"
tail -75 "$out/run.log"
