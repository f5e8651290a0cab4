#!/usr/bin/env python3
"""Per-schedule and per-pipeline view of `hlsched train --predictions FILE` (TSV).

    python3 scripts/cost_model/predictions_report.py FILE [--held-out]

Prints, for each pipeline, the measured and predicted (hand, learned) times of its schedules and
their rank correlations, worst ratios first. Standard library only.
"""
import csv
import math
import sys
from collections import defaultdict


def spearman(a, b):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va > 0 and vb > 0 else 0.0


def main():
    held_only = "--held-out" in sys.argv
    schedules = defaultdict(lambda: {"measured": 0.0, "hand": 0.0, "learned": 0.0, "held": 0, "call": 0.0})
    for row in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
        s = schedules[(row["pipeline"], int(row["schedule"]))]
        s["measured"] = float(row["schedule_measured_ms"])
        if not s["call"]:  # a call's own cost, once per schedule (TSVs before it: none)
            s["call"] = float(row.get("call_ms") or 0)
            s["hand"] += s["call"]
            s["learned"] += s["call"]
        s["hand"] += float(row["hand_ms"])
        s["learned"] += float(row["learned_ms"])
        s["held"] = int(row["held_out"])
    pipelines = defaultdict(list)
    for (p, i), s in schedules.items():
        if s["held"] or not held_only:
            pipelines[p].append(s)
    def worst(ss):
        return max(max(s["learned"] / s["measured"], s["measured"] / s["learned"]) for s in ss)
    for p, ss in sorted(pipelines.items(), key=lambda kv: -worst(kv[1])):
        m = [s["measured"] for s in ss]
        rank = lambda key: spearman([s[key] for s in ss], m) if len(ss) >= 3 else float("nan")
        print(f"{p:28s} {len(ss)} schedules  worst learned ratio {worst(ss):8.2f}x  "
              f"rank hand {rank('hand'):+.2f} learned {rank('learned'):+.2f}")
        for s in sorted(ss, key=lambda s: s["measured"]):
            print(f"    measured {s['measured']:10.4g} ms  hand {s['hand']:10.4g}  learned {s['learned']:10.4g}")


if __name__ == "__main__":
    main()
