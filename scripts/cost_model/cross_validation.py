#!/usr/bin/env python3
"""Pooled held-out metrics of an 8-fold cross-validation (every pipeline held out once).

    for f in 0 1 2 3 4 5 6 7; do
      build/bin/hlsched train --features F --out /tmp/cv$f.weights --seed 1 --validation-fold $f \\
          --predictions /tmp/cv$f.pred.tsv
    done
    python3 scripts/cost_model/cross_validation.py /tmp/cv?.pred.tsv

Per schedule: |predicted - measured| / measured of the whole pipeline; per pipeline with >= 3
schedules: Spearman rank correlation (mean over pipelines), also over distinct schedules (the same
schedule measured in several bundles merged), and the share of pairs of schedules 1.2x or more
apart that the model orders right; worst max(p/m, m/p). Standard library.

    --only-dataset D.jsonl.zst   count only the schedules recorded in D (matched by pipeline id and
                                 measured time), e.g. to see the first collection's records alone
                                 after training on several
    --ensemble                   the files are several seeds' CVs of the same data: a kernel held
                                 out in several of them gets the mean of their learned predictions
                                 (what an ensemble of those networks predicts: the mean of their
                                 coefficients times the same terms)
"""
import csv
import math
import json
import statistics
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from predictions_report import spearman  # noqa: E402


# Pairs of schedules whose measured times differ by at least this factor: a model that ranks
# schedules must order them (closer ones are within the GPU's drift between bundles, ~5%).
DECISIVE = 1.2


def six_digits(ms):
    return float(f"{ms:.6g}")  # what the trainer's TSV prints


def dataset_schedules(path):
    """(pipeline id, measured ms) of every record of a dataset file (.zst through zstd)."""
    text = subprocess.run(["zstd", "-dc", path], capture_output=True, text=True, check=True).stdout \
        if path.endswith(".zst") else open(path).read()
    keys = set()
    for line in text.splitlines():
        record = json.loads(line)
        ms = (record.get("measured") or {}).get("pipeline_ms")
        if isinstance(ms, (int, float)):
            keys.add((record["pipeline"]["id"], six_digits(ms)))
    return keys


def main():
    args = sys.argv[1:]
    only = None
    if "--only-dataset" in args:
        i = args.index("--only-dataset")
        only = dataset_schedules(args[i + 1])
        del args[i:i + 2]
    ensemble = "--ensemble" in args
    if ensemble:
        args.remove("--ensemble")
    schedules = defaultdict(lambda: {"measured": 0.0, "hand": 0.0, "learned": 0.0, "call_added": False})
    kernel_errors = {"hand": [], "learned": []}
    rows = {}  # (pipeline, schedule, kernel's place in its schedule) -> row, learned times summed
    for path in args:
        place = defaultdict(int)
        for row in csv.DictReader(open(path), delimiter="\t"):
            if row["held_out"] != "1":
                continue
            if only is not None and (row["pipeline"], six_digits(float(row["schedule_measured_ms"]))) not in only:
                continue
            schedule = (row["pipeline"], int(row["schedule"]))
            key = schedule + (place[schedule],) if ensemble else (path,) + schedule + (place[schedule],)
            place[schedule] += 1
            if key not in rows:
                rows[key] = dict(row, members=0, learned_sum=0.0, learned_kernel_sum=0.0)
            r = rows[key]
            r["members"] += 1
            r["learned_sum"] += float(row["learned_ms"])
            r["learned_kernel_sum"] += float(row.get("learned_kernel_ms") or "nan")
    for row in rows.values():
        learned = row["learned_sum"] / row["members"]
        learned_kernel = row["learned_kernel_sum"] / row["members"]
        # Per kernel against CUPTI, without the launch term (CUPTI does not see launches).
        measured_kernel = float(row["kernel_measured_ms"])
        if measured_kernel > 0:
            on_gpu = {"hand": float(row["hand_ms"]) - float(row["launch_term_ms"]),  # hand coefficient 1
                      "learned": learned_kernel}
            for model, predicted in on_gpu.items():
                if not math.isnan(predicted):
                    kernel_errors[model].append(abs(predicted - measured_kernel) / measured_kernel)
        s = schedules[(row["pipeline"], int(row["schedule"]))]
        s["measured"] = float(row["schedule_measured_ms"])
        if not s["call_added"]:  # a call's own cost, once per schedule (TSVs before it: none)
            s["hand"] += float(row.get("call_ms") or 0)
            s["learned"] += float(row.get("call_ms") or 0)
            s["call_added"] = True
        s["hand"] += float(row["hand_ms"])
        s["learned"] += learned
    pipelines = defaultdict(list)
    for (p, _), s in schedules.items():
        pipelines[p].append(s)
    print(f"{len(pipelines)} pipelines, {len(schedules)} schedules held out once each")
    # The same schedule measured in several bundles (the simple scheduler's reference in each) has
    # the same predictions and measured times that differ only by the GPU's drift: ranked as
    # separate schedules, those ties are noise. Merged: one schedule, its measured times' mean.
    distinct = {}
    for p, ss in pipelines.items():
        merged = defaultdict(list)
        for s in ss:
            merged[(round(s["hand"], 9), round(s["learned"], 9))].append(s["measured"])
        distinct[p] = [{"hand": h, "learned": l, "measured": statistics.mean(m)} for (h, l), m in merged.items()]
    pairs = [(a, b) for ss in distinct.values() for i, a in enumerate(ss) for b in ss[i + 1:]
             if max(a["measured"], b["measured"]) >= DECISIVE * min(a["measured"], b["measured"])]
    for model in ["hand", "learned"]:
        errors = [abs(s[model] - s["measured"]) / s["measured"] for s in schedules.values()]
        ratios = [max(s[model] / s["measured"], s["measured"] / s[model]) for s in schedules.values()]
        ranks = [spearman([s[model] for s in ss], [s["measured"] for s in ss])
                 for ss in pipelines.values() if len(ss) >= 3]
        geomean = math.exp(statistics.mean(math.log(s[model] / s["measured"]) for s in schedules.values()))
        print(f"{model:8s} median error {100 * statistics.median(errors):5.1f}%  rank {statistics.mean(ranks):.3f} "
              f"({len(ranks)} pipelines)  geomean pred/meas {geomean:.2f}  worst {max(ratios):.1f}x  "
              f"within 2x: {sum(r <= 2 for r in ratios)}/{len(ratios)}  within 3x: {sum(r <= 3 for r in ratios)}/{len(ratios)}  "
              + (f"kernels: median error {100 * statistics.median(kernel_errors[model]):.1f}% "
                 f"({len(kernel_errors[model])} with CUPTI times)" if kernel_errors[model] else ""))
        distinct_ranks = [spearman([s[model] for s in ss], [s["measured"] for s in ss])
                          for ss in distinct.values() if len(ss) >= 3]
        ordered = sum((a[model] < b[model]) == (a["measured"] < b["measured"]) for a, b in pairs)
        print(f"{'':8s} distinct schedules: rank {statistics.mean(distinct_ranks) if distinct_ranks else float('nan'):.3f} "
              f"({len(distinct_ranks)} pipelines with >= 3)  pairs {DECISIVE:.2f}x or more apart ordered right: "
              f"{ordered}/{len(pairs)} ({100 * ordered / max(1, len(pairs)):.0f}%)")


if __name__ == "__main__":
    main()
