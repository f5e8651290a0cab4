#!/usr/bin/env bash
# `hlsched schedule --measure K` end to end, without a GPU (HLSCHED_NO_GPU=1 also on a machine with one):
#   1. the bundle: a small random pipeline's 2 best candidates, built into a CUDA bundle whose
#      runner's dry run lists both; the collection manifest holds each candidate's prediction,
#      matching what the plugin applied, ranked by prediction; the no-GPU message says how to run
#      the bundle and how to pick from its results;
#   2. the pick: results in the runner's format where candidate 1 ran faster than candidate 0
#      (made from the manifest here) -> candidate 1's schedule is printed and both measurements
#      become dataset records.
#   check_measure.sh HLSCHED_EXE WORK_DIR
set -euo pipefail
hlsched=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
export HLSCHED_CACHE_DIR=$work/cache HLSCHED_NO_GPU=1
fail() { echo "FAIL: $*"; exit 1; }

"$hlsched" random-pipeline --seed 7 --stages 4 -o "$work/rp7.cpp"
measure=(schedule "$work/rp7.cpp" --measure 2 --measure-out "$work/bundle")
"$hlsched" "${measure[@]}" > "$work/measure.out" 2> "$work/measure.log" || { cat "$work/measure.log"; fail "measure (bundle)"; }
cat "$work/measure.out"
grep -q "no GPU on this machine" "$work/measure.out" || fail "no word about the missing GPU"
grep -q "run.sh --output results.json" "$work/measure.out" || fail "no command to run the bundle"
grep -q -- "--measure-results results.json" "$work/measure.out" || fail "no command to pick from the results"
mkdir "$work/unpacked" && tar -C "$work/unpacked" -xJf "$work/bundle/bench.tar.xz"
"$work/unpacked/hlsched-bench-runner" --dry-run > "$work/dry-run.txt" || { cat "$work/dry-run.txt"; fail "dry run"; }
for v in rp7__c0 rp7__c1; do grep -q "^  $v  (" "$work/dry-run.txt" || fail "$v missing from the dry run"; done
python3 - "$work/bundle/collection.json" "$work/results.json" <<'PY' || fail "collection manifest"
import json, sys
c = json.load(open(sys.argv[1]))
vs = c["variants"]
assert [v["function"] for v in vs] == ["rp7__c0", "rp7__c1"], [v["function"] for v in vs]
for i, v in enumerate(vs):
    assert v["schedule"]["kind"] == "candidate" and v["schedule"]["candidate"] == i, v["schedule"]
    assert "candidate=%d," % i in v["schedule"]["options"], v["schedule"]["options"]
    assert v["prediction_matches_applied"], v["function"] + ": the plugin applied another schedule"
    assert v["prediction"]["schedule_code"], v["function"]
assert vs[0]["prediction"]["schedule_code"] != vs[1]["prediction"]["schedule_code"], "candidates not distinct"
assert vs[0]["prediction"]["predicted_runtime_ms"] <= vs[1]["prediction"]["predicted_runtime_ms"], "not ranked"
# The runner's results for a run where candidate 1 was the faster one.
def ran(function, ms):
    return {"app": "rp7", "function": function, "label": function.split("__")[1], "status": "ok",
            "runtime_ms": {"median": ms, "min": ms, "p10": ms, "p90": ms, "count": 5},
            "check": {"ok": True, "reference": "rp7__c0"}}
json.dump({"format": "hlsched-bench-results-v1", "started": "2026-12-02T00:00:00Z",
           "device": {"name": "test GPU"}, "manifest": {},
           "variants": [ran("rp7__c0", 2.0), ran("rp7__c1", 1.0)]}, open(sys.argv[2], "w"))
open(sys.argv[2] + ".c1", "w").write(vs[1]["prediction"]["schedule_code"])
PY

"$hlsched" "${measure[@]}" --measure-results "$work/results.json" --measure-dataset "$work/m.jsonl.zst" \
  > "$work/pick.out" 2>&1 || { cat "$work/pick.out"; fail "pick"; }
cat "$work/pick.out"
grep -q "fastest measured: candidate 1, 1 ms" "$work/pick.out" || fail "candidate 1 not picked"
grep -q "candidate 0) measured 2 ms" "$work/pick.out" || fail "the search's own choice not shown"
python3 - "$work/pick.out" "$work/results.json.c1" <<'PY' || fail "the picked schedule is not candidate 1's"
import sys
assert open(sys.argv[2]).read().strip() in open(sys.argv[1]).read()
PY
"$hlsched" dataset summary "$work/m.jsonl.zst" > "$work/summary.txt"
grep -q "^2 records" "$work/summary.txt" || { cat "$work/summary.txt"; fail "the measurements are not in the dataset"; }
echo "measure OK"
