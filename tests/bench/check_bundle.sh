#!/usr/bin/env bash
# `hlsched bench` end to end, without a GPU:
#   1. a CUDA bundle for blur and unsharp (manual, li2018, hlsched): it builds, unpacks with its
#      own run.sh's tar command, its runner needs neither Halide nor LLVM (ldd), and its
#      --dry-run finds all six variants with consistent metadata;
#   2. the same apps for a CPU target (li2018, hlsched and the unscheduled pipeline), actually
#      run by the bundle's run.sh, and the results read back by `hlsched report`.
#   check_bundle.sh HLSCHED_EXE WORK_DIR
set -euo pipefail
hlsched=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
export HLSCHED_CACHE_DIR=$work/cache
fail() { echo "FAIL: $*"; exit 1; }

# 1. CUDA bundle.
"$hlsched" bench --app blur --app unsharp --out "$work/gpu" --jobs 2 > "$work/gpu.log" 2>&1 || { cat "$work/gpu.log"; fail "bench (cuda)"; }
test -s "$work/gpu/bench.tar.xz" || fail "no archive"
test -x "$work/gpu/run.sh" || fail "no run.sh"
mkdir "$work/unpacked" && tar -C "$work/unpacked" -xJf "$work/gpu/bench.tar.xz"
runner=$work/unpacked/hlsched-bench-runner
test -x "$runner" || fail "no runner in the archive"
ldd "$runner" > "$work/ldd.txt" || true
if grep -Ei "halide|llvm|not found|libstdc\+\+" "$work/ldd.txt"; then fail "the runner is not self-contained"; fi
"$runner" --dry-run > "$work/dry-run.txt" || { cat "$work/dry-run.txt"; fail "dry run"; }
for v in blur__manual blur__li2018 blur__hlsched unsharp__manual unsharp__li2018 unsharp__hlsched; do
  grep -q "^  $v  (" "$work/dry-run.txt" || fail "$v missing from the dry run"
done
grep -q "all variants OK" "$work/dry-run.txt" || fail "dry run found problems"
grep -q '"predicted_runtime_ms"' "$work/unpacked/manifest.json" || fail "no hlsched prediction in the manifest"

# 2. CPU bundle, run for real.
printf '%s\n' '[{"app": "blur", "label": "unscheduled", "params": {"schedule": "none"}},' \
  ' {"app": "unsharp", "label": "unscheduled", "params": {"schedule": "none"}}]' > "$work/unscheduled.json"
"$hlsched" bench --app blur --app unsharp --scheduler li2018,hlsched --variants "$work/unscheduled.json" \
  --target x86-64-linux-sse41-avx-avx2-fma --machine-params 2,50000000,40 --out "$work/cpu" > "$work/cpu.log" 2>&1 \
  || { cat "$work/cpu.log"; fail "bench (cpu)"; }
bash "$work/cpu/run.sh" --output "$work/results.json" --warmup 1 --min-reps 3 --seconds-per-variant 0.05 \
  --kernel-reps 0 > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the bundle's run"; }
"$hlsched" report "$work/results.json" --chart "$work/chart.svg" > "$work/report.md" || fail "report"
cat "$work/report.md"
# Every variant measured, outputs equal (no "failed", no "≠"), one row per app.
grep -Eq '^\| blur \| [0-9.]+ \| [0-9.*]+ \([0-9.]+%\)' "$work/report.md" || fail "no blur row"
grep -Eq '^\| unsharp \| ' "$work/report.md" || fail "no unsharp row"
if grep -E '^\| (blur|unsharp) \|' "$work/report.md" | grep -E "failed|≠|did not compile|not run"; then
  fail "a variant failed or differs"
fi
if grep -q "^### Problems" "$work/report.md"; then fail "the report lists problems"; fi
grep -q "<svg" "$work/chart.svg" || fail "no chart"

# 3. The same bundle with each app's variants measured last to first: every output still matches
# (the first measured owns the reference), and blur's variants come in the reverse order.
bash "$work/cpu/run.sh" --output "$work/reversed.json" --reverse-variants --warmup 1 --min-reps 3 \
  --seconds-per-variant 0.05 --kernel-reps 0 > "$work/reversed.log" 2>&1 || { cat "$work/reversed.log"; fail "the reversed run"; }
order() { grep -Eo '^  blur__[a-z0-9_]+:' "$1"; }  # the runs' logs, in the order measured
[[ "$(order "$work/reversed.log")" == "$(order "$work/run.log" | tac)" ]] ||
  { order "$work/run.log"; order "$work/reversed.log"; fail "--reverse-variants did not reverse blur's variants"; }
[[ $(order "$work/run.log" | wc -l) -ge 3 ]] || fail "blur's variants missing from the run's log"
echo "bundle OK"
