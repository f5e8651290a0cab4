#!/usr/bin/env bash
# `hlsched autotune`'s local steps end to end, without a GPU:
#   1. sample + bundle: one small random pipeline under the simple scheduler's schedule (the
#      outputs' reference), the beam search's and one random walk, built into a CUDA bundle whose
#      runner's dry run lists all three; the collection manifest
#      holds each variant's prediction, decisions and schedule, matching what the plugin applied;
#      with no GPU, autotune says how to run the bundle elsewhere and how to ingest the results;
#   2. ingest: a checked-in results file of a real H200 run (a few variants of the dataset's
#      collection, data/) becomes dataset records; ingesting it again adds nothing.
#   3. dataset collect --plugin: another build's plugin compiles the variants; a missing one is refused.
#   check_autotune.sh HLSCHED_EXE DATA_DIR WORK_DIR PLUGIN_SO
set -euo pipefail
hlsched=$1 data=$2 work=$3 plugin=$4
rm -rf "$work" && mkdir -p "$work"
export HLSCHED_CACHE_DIR=$work/cache
fail() { echo "FAIL: $*"; exit 1; }

# 1. sample -> bundle (no GPU here, or --no-gpu says so).
"$hlsched" autotune --no-gpu --name ci --random 1 --first-seed 7 --min-stages 3 --max-stages 3 --samples 1 \
  --out "$work/bundle" --dataset "$work/data.jsonl.zst" > "$work/autotune.out" 2> "$work/autotune.log" \
  || { cat "$work/autotune.log"; fail "autotune (bundle)"; }
test -s "$work/bundle/bench.tar.xz" || fail "no archive"
grep -q "no GPU on this machine" "$work/autotune.out" || fail "no instructions for a remote run"
grep -q -- "--ingest results.json --collection $work/bundle/collection.json" "$work/autotune.out" || fail "no ingest command"
mkdir "$work/unpacked" && tar -C "$work/unpacked" -xJf "$work/bundle/bench.tar.xz"
"$work/unpacked/hlsched-bench-runner" --dry-run > "$work/dry-run.txt" || { cat "$work/dry-run.txt"; fail "dry run"; }
for v in r7__simple r7__beam r7__s1_0; do grep -q "^  $v  (" "$work/dry-run.txt" || fail "$v missing from the dry run"; done
python3 - "$work/bundle/collection.json" <<'PY' || fail "collection manifest"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["format"] == "hlsched-collection-v1", c["format"]
kinds = sorted(v["schedule"]["kind"] for v in c["variants"])
assert kinds == ["beam", "sample", "simple"], kinds
for v in c["variants"]:
    p = v["prediction"]
    assert p["predicted_runtime_ms"] > 0 and p["stages"], v["function"]
    if v["schedule"]["kind"] != "simple":  # the simple scheduler decides nothing to warm-start from
        assert p["decisions"].startswith("hlsched-warm-start-v"), v["function"]
    assert p["schedule_code"], v["function"]
    assert v["prediction_matches_applied"], v["function"] + ": the plugin applied another schedule"
    assert v["pipeline"]["random"] == {"seed": 7, "stages": 3, "writer_version": 2}, v["pipeline"]
PY

# 2. ingest a real run's results (twice: the second adds nothing).
for round in 1 2; do
  "$hlsched" autotune --ingest "$data/results_small.json" --collection "$data/collection_small.json" \
    --dataset "$work/data.jsonl.zst" > "$work/ingest$round.out" 2>&1 || { cat "$work/ingest$round.out"; fail "ingest $round"; }
done
grep -q "already there" "$work/ingest2.out" || fail "the second ingest did not notice its records"
"$hlsched" dataset summary "$work/data.jsonl.zst" > "$work/summary.txt"
cat "$work/summary.txt"
python3 - "$data/expected_summary.txt" "$work/summary.txt" <<'PY' || fail "summary differs from data/expected_summary.txt"
import sys
assert open(sys.argv[1]).read().strip() == open(sys.argv[2]).read().strip()
PY
# 3. another build's plugin (an A/B of two engines on the same pipelines): the variants are
#    compiled with the plugin given, and a plugin that is not there is refused before any work.
cp "$plugin" "$work/other_plugin.so"
"$hlsched" dataset collect --name ci-plugin --random 1 --first-seed 7 --min-stages 2 --max-stages 2 --samples 0 \
  --no-beam --plugin "$work/other_plugin.so" --out "$work/other" > "$work/other.log" 2>&1 \
  || { cat "$work/other.log"; fail "collect --plugin"; }
grep -qx -- "$work/other_plugin.so" "$work/other.work/variants/r7__simple.command" \
  || fail "the variant was not compiled with the plugin given"
if "$hlsched" dataset collect --random 1 --plugin "$work/missing.so" --out "$work/missing" > "$work/missing.log" 2>&1; then
  fail "collect accepted a plugin that does not exist"
fi
grep -q "missing.so" "$work/missing.log" || fail "the error does not name the missing plugin"
echo "autotune local steps OK"
