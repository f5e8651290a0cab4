#!/usr/bin/env bash
# Brings a device fuzz run home (the two files that .bundle-fuzz/run.sh left in $OUT/fuzz:
# summary.txt and results.tar.gz, holding fuzz.log, corpus/ and artifacts/): merges the inputs it
# found into the checked-in seeds (only those that add coverage), measures the seeds' coverage
# with this build's fuzzer (the measure of the earlier runs in docs/PERFORMANCE.md), copies any
# crash artifacts into the build for replaying, and appends a section to docs/PERFORMANCE.md.
# Review and commit the result.
#
#   scripts/fuzz/ingest_device_run.sh RESULTS_DIR [BUILD_DIR] [WHAT]    (WHAT: a note for the entry,
#                                                                        e.g. "H200 machine, 14 workers")
set -euo pipefail
results=${1:?usage: ingest_device_run.sh RESULTS_DIR [BUILD_DIR] [WHAT]}
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$repo/build}
what=${3:-the GPU machine, through the device tool}
fuzzer=$build/tests/server/fuzz_language_server
seeds=$repo/tests/server/fuzz_lsp_corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nice cmake --build "$build" --target fuzz_language_server -j "${HLSCHED_JOBS:-2}" >&2
cat "$results/summary.txt"
tar -xzf "$results/results.tar.gz" -C "$work"
before=$(ls "$seeds" | wc -l)
# -merge=1 copies into the first folder only the inputs that add coverage to it.
nice "$fuzzer" -merge=1 -timeout=20 -rss_limit_mb=3072 -max_len=4096 -artifact_prefix="$work/" "$seeds" "$work/corpus" \
  >"$work/merge.log" 2>&1 || { tail -20 "$work/merge.log"; exit 1; }
after=$(ls "$seeds" | wc -l)
mkdir -p "$work/empty"
nice "$fuzzer" -runs=0 "$work/empty" "$seeds" >"$work/replay.log" 2>&1
inited=$(grep -m1 INITED "$work/replay.log" | sed 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/')
echo "seeds: $before -> $after files; their coverage: $inited"

crashes="none"
if [[ -n $(ls "$work/artifacts") ]]; then
  crashes=$(ls "$work/artifacts" | tr '\n' ' ')
  mkdir -p "$build/lsp-fuzz/device-artifacts"
  cp "$work"/artifacts/* "$build/lsp-fuzz/device-artifacts/"
  echo "ARTIFACTS (copied to $build/lsp-fuzz/device-artifacts; replay: $fuzzer FILE): $crashes"
fi

field() { awk -v key="$1: " 'index($0, key) == 1 { print substr($0, length(key) + 1) }' "$results/summary.txt"; }
# run.sh's two modes report failures differently: fork mode its oom/timeout/crash counters, jobs
# mode the sanitizer reports and deadly signals found in the jobs' logs.
if grep -q 'jobs in-process' "$results/summary.txt"; then
  mode="\`FUZZ_MODE=jobs\` (in-process jobs sharing one corpus)"
  failures="$(field "sanitizer reports and deadly signals in the logs") sanitizer reports"
else
  mode="libFuzzer \`-fork\`"
  failures="$(field "oom/timeout/crash") (oom/timeout/crash)"
fi
cat >>"$repo/docs/PERFORMANCE.md" <<EOF

## Reliability: the LSP fuzzer's long run on many cores ($(date -u +%Y-%m-%d), $what)

\`scripts/fuzz/device_bundle.sh build .bundle-fuzz\` here, then \`bash .bundle-fuzz/run.sh\` there
($mode, ASan + UBSan, the fake analyzer and indexer; docs/DEVICE_FUZZ.md), ingested with
\`scripts/fuzz/ingest_device_run.sh\`.

| inputs | inputs per second (whole run) | run | coverage | failures | artifacts |
|---:|---:|---|---|---|---|
| **$(field "inputs executed")** | $(field "inputs per second of the whole run") | $(field exit) | $(field coverage) | $failures | $crashes |

The found inputs were merged into tests/server/fuzz_lsp_corpus (-merge=1: $before -> $after
files); the seeds now reach $inited with this build's fuzzer (the measure of the earlier
sections; the run's own "cov" counts differently).
EOF
echo "appended a section to docs/PERFORMANCE.md"
