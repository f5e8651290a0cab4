#!/usr/bin/env bash
# Runs a selection of the tests several times in a row under CPU load, to find tests that depend
# on timing or on a quiet machine (a test that fails once under load is a bug). Each run: ctest
# with JOBS parallel tests while `stress-ng --cpu STRESS` spins beside it, both niced (the load
# is for our tests, not for other people's jobs); the generator build cache of the e2e tests is
# emptied first, so builds happen under the load too.
#
#   scripts/test_under_load.sh [BUILD_DIR] [REGEX] [RUNS] [JOBS] [STRESS]
#   defaults: build 'server|protocol|lsp' 3 4 2
#
# Needs stress-ng (Debian package stress-ng; without it, STRESS shell busy-loops stand in).
# Logs: <build>/load-runs/run-N.log; a line per run on stdout: passed/failed, failed names,
# minutes, load average. Exits non-zero when any run had a failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
regex=${2:-server|protocol|lsp}
runs=${3:-3}
jobs=${4:-4}
stress=${5:-2}
logs=$build/load-runs
mkdir -p "$logs"

start_load() {
  if command -v stress-ng >/dev/null; then
    nice -n 10 stress-ng --cpu "$stress" --quiet 2>/dev/null &
  else
    nice -n 10 bash -c "for i in \$(seq $stress); do while :; do :; done & done; wait" &
  fi
  load_pid=$!
}

stop_load() {
  pkill -TERM -P "$load_pid" 2>/dev/null
  kill -TERM "$load_pid" 2>/dev/null
  wait "$load_pid" 2>/dev/null
}

any_failed=0
for run in $(seq "$runs"); do
  rm -rf "$build/tests/e2e-cache"
  start_load
  begin=$(date +%s)
  nice -n 10 ctest --test-dir "$build" -j "$jobs" -R "$regex" --output-on-failure >"$logs/run-$run.log" 2>&1
  status=$?
  minutes=$(( ($(date +%s) - begin + 30) / 60 ))
  stop_load
  summary=$(grep -E '^[0-9]+% tests passed' "$logs/run-$run.log")
  failed=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (.*)$/\1/p' "$logs/run-$run.log" | tr '\n' ';')
  echo "run $run: exit $status, $summary, ${minutes} min, load $(cut -d' ' -f1-3 /proc/loadavg)${failed:+, FAILED: $failed}"
  [[ $status -ne 0 ]] && any_failed=1
done
exit $any_failed
