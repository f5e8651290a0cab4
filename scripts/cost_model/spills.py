#!/usr/bin/env python3
"""Which measured kernels spilled registers to local memory, and how their predictions fared.

Reads dataset files (JSON lines, .zst or plain) whose kernels carry CUPTI's local memory per
thread (collections from 2026-12-04's tenth on; older kernels have none and are left out), and
prints, per group of kernels, the geometric mean of measured / predicted time (the record's own
prediction of the kernel's stage, launch term left out: CUPTI measures none):

    scripts/cost_model/spills.py engine/training/data/h200-2026-12-04-s23.jsonl.zst [--list 20]

Groups: no local memory below the 64-register cap, no local memory at the cap, and local memory
(spills or local arrays) in bins of bytes per thread. --list N prints the N spilling kernels
predicted most optimistically.
"""
import argparse
import json
import math
import subprocess
import sys


def records(path):
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True, text=True).stdout
    else:
        text = open(path).read()
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def kernels(record):
    """(kernel, predicted ms without launch) of each measured kernel that has a prediction."""
    predicted = record.get("predicted") or {}
    by_stage = {}
    for s in predicted.get("stages", []):
        terms = s.get("terms_ms", {})
        by_stage[(s["func"], s["stage"])] = s["predicted_ms"] - terms.get("launch", 0.0)
    for k in record["measured"].get("kernels", []):
        if k.get("local_memory_bytes_per_thread", -1) < 0 or k.get("ms", 0) <= 0:
            continue
        p = by_stage.get((k.get("func"), k.get("stage")))
        if p and p > 0:
            yield k, p


def group_of(k):
    local = k["local_memory_bytes_per_thread"]
    if local == 0:
        return "no local memory, < 64 registers" if k["registers_per_thread"] < 64 else "no local memory, 64 registers"
    for limit in (64, 256, 1024):
        if local <= limit:
            return f"local memory <= {limit} B/thread"
    return "local memory > 1024 B/thread"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="+")
    parser.add_argument("--list", type=int, default=0, help="spilling kernels to list, most under-predicted first")
    args = parser.parse_args()
    groups, spilling = {}, []
    for path in args.data:
        for r in records(path):
            for k, p in kernels(r):
                ratio = k["ms"] / p
                groups.setdefault(group_of(k), []).append(ratio)
                if k["local_memory_bytes_per_thread"] > 0:
                    spilling.append((ratio, r["id"], k, p, (r.get("predicted") or {}).get("cost_model", "")[:24]))
    if not groups:
        sys.exit("no kernels with local memory recorded (collections before the tenth lack it)")
    print(f"{'kernels':<36} {'n':>6} {'geomean meas/pred':>18} {'median':>8}")
    for name in sorted(groups):
        ratios = sorted(groups[name])
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"{name:<36} {len(ratios):>6} {geo:>18.2f} {ratios[len(ratios) // 2]:>8.2f}")
    for ratio, rid, k, p, model in sorted(spilling, key=lambda s: -s[0])[: args.list]:
        print(f"{ratio:7.2f}x  {rid}  {k['func']}.{k['stage']}  {k['registers_per_thread']} regs  "
              f"{k['local_memory_bytes_per_thread']} B/thread  measured {k['ms']:.4f} predicted {p:.4f} ({model})")


if __name__ == "__main__":
    main()
