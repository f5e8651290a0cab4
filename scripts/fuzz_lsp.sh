#!/usr/bin/env bash
# Fuzzes the language server (tests/server/fuzz_language_server.cpp: LSP message sequences
# against the real LanguageServer with the fake analyzer, under ASan + UBSan) in one process,
# niced, for a number of inputs or seconds. The fuzzer is part of the normal build (compiled by
# clang++-14 through scripts/clang_fuzz_cxx.sh); ctest runs it briefly as lsp_fuzz_bounded.
#
#   scripts/fuzz_lsp.sh [BUILD_DIR] [RUNS] [SECONDS]     default: build, 10000000, 0 (no time limit)
#
# Seeds: tests/server/fuzz_lsp_corpus/ (read-only). New inputs go to <build>/lsp-fuzz/corpus,
# crashes to <build>/lsp-fuzz/artifacts/, the log to <build>/lsp-fuzz/fuzz.log; the last lines of
# the log hold the final stats (executed inputs, coverage, peak RSS). Exits non-zero on a crash,
# leak, UB or timeout.
#
# To refresh the checked-in seeds from a run's corpus (a small set with the same coverage):
#   <build>/tests/server/fuzz_language_server -merge=1 tests/server/fuzz_lsp_corpus <build>/lsp-fuzz/corpus
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
runs=${2:-10000000}
seconds=${3:-0}
nice cmake --build "$build" --target fuzz_language_server -j "${HLSCHED_JOBS:-2}" >&2
work=$build/lsp-fuzz
mkdir -p "$work/corpus" "$work/artifacts"
echo "fuzz_lsp: $runs inputs (time limit: ${seconds}s, 0 = none); log: $work/fuzz.log" >&2
start=$(date +%s)
set +e
nice -n 19 "$build/tests/server/fuzz_language_server" \
  -runs="$runs" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len=4096 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 -print_pcs=0 \
  "$work/corpus" "$repo/tests/server/fuzz_lsp_corpus" >"$work/fuzz.log" 2>&1
status=$?
set -e
echo "fuzz_lsp: exit $status after $(( $(date +%s) - start )) s" | tee -a "$work/fuzz.log" >&2
grep -E '^(#[0-9]+\s+(DONE|pulse)|stat::|Done )' "$work/fuzz.log" | tail -12 >&2 || true
exit $status
