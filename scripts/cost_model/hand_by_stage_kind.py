#!/usr/bin/env python3
"""The hand model's error per kind of stage, and how a change of the model moved it.

    python3 scripts/cost_model/hand_by_stage_kind.py BEFORE.features [AFTER.features]

Features files come from `hlsched train --data ... --dump-features F` (one per build compared).
A stage's kind is its random-pipeline Func name without the number plus its stage
(`column_sum.1`: the update of a column sum), or `example:APP:FUNC`. Prints per kind the median of
hand / measured (CUPTI, launch term removed), then for all kernels the median |log| error, the
kernels off by more than 3x, and each pipeline's schedules' median whole-pipeline error and rank
correlation. With AFTER: the kinds whose median moved by more than 5%, before -> after.
Standard library only; parsing is analyze_features.py's, the rank correlation
predictions_report.py's.
"""
import math
import re
import statistics
import sys
from collections import defaultdict

from analyze_features import parse
from predictions_report import spearman


def kind(pipeline_id, kernel):
    if pipeline_id.startswith("example:"):
        return f"{pipeline_id}:{kernel['func']}"
    return re.sub(r"_\d+$", "", kernel["func"]) + f".{kernel['stage']}"


def report(path):
    pipelines = parse(path)
    by_kind, log_errors, pipeline_errors, ranks = defaultdict(list), [], [], []
    for p in pipelines:
        for s in p["schedules"]:
            if s["measured"] > 0:
                pipeline_errors.append(abs(s["hand"] / s["measured"] - 1))
            for k in s["kernels"]:
                if k["measured"] <= 0.005:  # below CUPTI's launch-sized noise
                    continue
                ratio = max(k["hand"] - k["terms"][3], 1e-9) / k["measured"]  # terms[3]: launch
                by_kind[kind(p["id"], k)].append(ratio)
                log_errors.append(abs(math.log(ratio)))
        if len(p["schedules"]) >= 3:
            ranks.append(spearman([s["hand"] for s in p["schedules"]], [s["measured"] for s in p["schedules"]]))
    print(f"{path}: {len(log_errors)} kernels, median |log error| {statistics.median(log_errors):.3f}, "
          f"{sum(e > math.log(3) for e in log_errors)} off by more than 3x; schedules' median error "
          f"{100 * statistics.median(pipeline_errors):.1f}%, rank {statistics.mean(ranks):.3f} "
          f"({len(ranks)} pipelines)")
    return {k: statistics.median(v) for k, v in by_kind.items() if len(v) >= 20}, {k: len(v) for k, v in by_kind.items()}


def main():
    before, counts = report(sys.argv[1])
    if len(sys.argv) < 3:
        for k in sorted(before, key=lambda k: -counts[k]):
            print(f"  {k:40s} {counts[k]:6d}  hand/measured {before[k]:.2f}")
        return
    after, _ = report(sys.argv[2])
    moved = [k for k in before if k in after and abs(math.log(after[k] / before[k])) > math.log(1.05)]
    for k in sorted(moved, key=lambda k: -counts[k]):
        print(f"  {k:40s} {counts[k]:6d}  hand/measured {before[k]:.2f} -> {after[k]:.2f}")


if __name__ == "__main__":
    main()
