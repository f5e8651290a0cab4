#!/usr/bin/env python3
"""The small checked-in training set of the cost model's CI tests (SYNTHETIC labels).

  python3 scripts/cost_model/synthetic_dataset.py records > /tmp/synthetic.jsonl
  build/bin/hlsched train --data /tmp/synthetic.jsonl --dump-features /tmp/raw.features
  python3 scripts/cost_model/synthetic_dataset.py label /tmp/raw.features > tests/data/cost_model/synthetic.features

`records` writes dataset records (docs/COST_MODEL.md) for the test generators under random walks,
with a placeholder measurement; `label` replaces every time in a features file by a synthetic
"truth": fixed coefficients (0.3x..3x the hand model's) times the kernel's cost terms, with 5%
log-normal noise per kernel (a kernel's label leaves out its launch term, as CUPTI does; the
pipeline's total has it). Never train shipped weights on this: it is not a measurement.
"""
import json
import math
import random
import sys

PIPELINES = [
    ("pyramid_small", {"levels": "1"}), ("pyramid_small", {"levels": "2"}), ("pyramid_small", {"levels": "3"}),
    ("pyramid_small", {"levels": "4"}), ("pyramid_small", {"levels": "5"}),
    ("stencil_small", {"radius": "1"}), ("stencil_small", {"radius": "2"}), ("stencil_small", {"radius": "3"}),
    ("stencil_small", {"radius": "4"}),
    ("reductions_small", {}), ("scans_shared", {}),
    ("many_stages", {"stages": "8", "shape": "chain"}), ("many_stages", {"stages": "8", "shape": "wide"}),
    ("many_stages", {"stages": "12", "shape": "chain"}), ("many_stages", {"stages": "12", "shape": "wide"}),
    ("many_stages", {"stages": "16", "shape": "wide"}),
]
SOURCES = {"pyramid_small": "pyramid_small.cpp", "stencil_small": "stencil_chain_small.cpp",
           "reductions_small": "reductions_small.cpp", "scans_shared": "scans_shared.cpp",
           "many_stages": "many_stages.cpp"}
WALKS = 8

# The synthetic truth: coefficient per cost term (names as in engine/src/cost/features.cpp).
TRUTH = {"throughput": 0.6, "latency": 0.3, "sync": 1.0, "launch": 2.5, "non_affine_excess": 0.1,
         "load_issue": 0.5, "block_overhead": 1.5, "stores": 0.3}
TERMS = ["throughput", "latency", "sync", "launch", "non_affine_excess", "compute", "dram", "l2", "l1",
         "shared_memory", "atomics", "stores", "load_issue", "local_memory", "block_overhead",
         "low_occupancy_memory", "idle_lanes", "non_affine_dram", "non_affine_sectors", "kernel_minimum",
         "atomics_one_address", "wave_tail", "fused_chain", "reduction_chain"]


def records():
    for generator, params in PIPELINES:
        pid = "synthetic:" + generator + "".join(":%s=%s" % kv for kv in sorted(params.items()))
        for walk in range(WALKS):
            print(json.dumps({
                "format": "hlsched-dataset-v1", "id": "%s/walk%d" % (pid, walk),
                "provenance": {"gpu": "synthetic", "measured": "2026-12-01", "commit": "none"},
                "pipeline": {"id": pid, "kind": "example", "source": "tests/data/generators/" + SOURCES[generator],
                             "generator": generator, "params": params},
                "schedule": {"kind": "sample", "sample": {"seed": 1, "walk": walk}},
                "measured": {"pipeline_ms": 1.0, "output_ok": True, "kernels": []}}))


def label(path):
    rng = random.Random(1)
    lines = open(path).read().splitlines()
    out, schedule_at, total = [], None, 0.0
    values_per_kernel = None
    for line in lines:
        fields = line.split()
        if fields[0] == "provenance":
            out.append("provenance SYNTHETIC labels (scripts/cost_model/synthetic_dataset.py), not measurements")
        elif fields[0] == "schedule":
            if schedule_at is not None:
                out[schedule_at] = out[schedule_at].replace("TOTAL", repr(total))
            schedule_at, total = len(out), 0.0
            out.append("schedule TOTAL %s %s" % (fields[2], fields[3]))
        elif fields[0] == "kernel":
            values = [float(v) for v in fields[5:]]
            terms = values[len(values) - len(TERMS):]
            # A kernel's time on the GPU (what CUPTI measures) leaves out its launch; the
            # pipeline's time has it.
            ms = sum(TRUTH.get(name, 0.0) * t for name, t in zip(TERMS, terms) if name != "launch")
            ms *= math.exp(rng.gauss(0.0, 0.05))
            total += ms + TRUTH["launch"] * terms[TERMS.index("launch")]
            out.append(" ".join(fields[:3] + [repr(ms)] + fields[4:]))
        else:
            out.append(line)
    if schedule_at is not None:
        out[schedule_at] = out[schedule_at].replace("TOTAL", repr(total))
    print("\n".join(out))


if __name__ == "__main__":
    records() if sys.argv[1] == "records" else label(sys.argv[2])
