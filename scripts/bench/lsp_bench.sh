#!/usr/bin/env bash
# Benchmarks of the language server (`hlsched serve`) for docs/PERFORMANCE.md: hover latency
# under an edit storm, edit-to-updated-costs split into build and search, daemon memory over a
# soak of edits, libclang index parse times. Results: one line each on stdout, JSON files in $out.
#
#   scripts/bench/lsp_bench.sh [BUILD_DIR] [OUT_DIR]     (default: build, build/lsp-bench)
#   HLSCHED_LSP_SOAK_ROUNDS=200 scripts/bench/lsp_bench.sh   # a longer soak
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
out=${2:-$build/lsp-bench}
cmake --build "$build" --target lsp_bench hlsched -j "${HLSCHED_JOBS:-2}" >&2
export HLSCHED_LSP_BENCH_OUT=$out
for bench in hover_under_edits edit_to_costs memory_soak index_parse; do
  "$build/tests/server/lsp_bench" "$bench"
done
echo "lsp_bench: results in $out" >&2
