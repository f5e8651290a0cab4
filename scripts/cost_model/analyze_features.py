#!/usr/bin/env python3
"""Where does the hand model go wrong? Per-kernel errors of a features file (hlsched train
--dump-features), grouped by access pattern, dominant cost term and schedule traits.

    python3 scripts/cost_model/analyze_features.py FEATURES [--weights-preds PREDS]

Reads only the features file (format: engine/src/training/training_set.cpp); standard library only.
log2 ratio = log2(predicted / measured), the prediction without its launch term (CUPTI does not
see launches): > 0 pessimistic, < 0 optimistic.
"""
import math
import statistics
import sys
from collections import defaultdict

PF = ["stages", "inlined", "basic_ops", "math_ops", "float_stages", "int_stages", "bytes_per_point",
      "pointwise_reads", "stencil_reads", "downsample_reads", "upsample_reads", "transpose_reads",
      "gather_reads", "boundary_reads", "input_reads", "reduction_steps", "scatter_stages", "calls_per_point"]
SF = ["blocks", "threads_per_block", "warps_per_block", "points_per_block", "points_per_thread",
      "inner_thread_extent", "wasted_fraction", "occupancy", "registers_per_thread", "ops_per_block",
      "math_ops_per_block", "store_bytes", "store_efficiency", "global_reads", "footprint_bytes_per_block",
      "loads_per_block", "min_coalescing", "mean_coalescing", "non_affine_bytes_fraction", "fused_block",
      "fused_thread", "fused_in_registers", "shared_bytes_per_block", "bank_conflict_ways",
      "fused_points_per_block", "recompute_ratio", "local_bytes_per_block", "global_atomics",
      "shared_atomics_per_block", "atomic_contention", "waves", "single_thread", "atomic", "privatized"]


def parse(path):
    lines = open(path).read().split("\n")
    header = lines[0].split()
    n_terms = None
    pipelines, cur, sched = [], None, None
    for line in lines[1:]:
        f = line.split()
        if not f:
            continue
        if f[0] == "pipeline":
            cur = {"id": f[1], "schedules": []}
            pipelines.append(cur)
        elif f[0] == "schedule":
            sched = {"measured": float(f[1]), "hand": float(f[2]), "kernels": []}
            cur["schedules"].append(sched)
        elif f[0] == "kernel":
            vals = [float(v) for v in f[5:]]
            k = {"func": f[1], "stage": int(f[2]), "measured": float(f[3]), "hand": float(f[4]),
                 "pf": dict(zip(PF, vals[:len(PF)])),
                 "sf": dict(zip(SF, vals[len(PF):len(PF) + len(SF)])),
                 "terms": vals[len(PF) + len(SF):]}
            sched["kernels"].append(k)
    return pipelines


TERMS = ["throughput", "latency", "sync", "launch", "non_affine_excess", "compute", "dram", "l2", "l1",
         "shared_memory", "atomics", "stores", "load_issue", "local_memory", "block_overhead",
         "low_occupancy_memory", "idle_lanes", "non_affine_dram", "non_affine_sectors", "kernel_minimum",
         "atomics_one_address", "wave_tail", "fused_chain", "reduction_chain"]


def summary(name, ratios):
    if not ratios:
        return
    abs_err = [abs(2 ** r - 1) for r in ratios]
    print(f"  {name:42s} n={len(ratios):5d} median log2 ratio {statistics.median(ratios):+6.2f} "
          f"(x{2 ** statistics.median(ratios):7.2f}) median err {100 * statistics.median(abs_err):6.1f}% "
          f"|log2|>1.58 (3x): {sum(abs(r) > 1.585 for r in ratios):4d}")


def main():
    pipelines = parse(sys.argv[1])
    kernels = [k for p in pipelines for s in p["schedules"] for k in s["kernels"] if k["measured"] > 0]
    # CUPTI times a kernel on the GPU: the launch term (index 3) is not in it.
    r = lambda k: math.log2(max(k["hand"] - k["terms"][3], 1e-9) / k["measured"])
    print(f"{len(kernels)} kernels with CUPTI times")
    summary("all", [r(k) for k in kernels])

    print("by dominant hand term (largest term x hand coefficient):")
    groups = defaultdict(list)
    for k in kernels:
        t = k["terms"]
        main_terms = {"throughput": t[0], "latency": t[1], "sync": t[2], "launch": t[3], "non_affine_excess": t[4]}
        groups[max(main_terms, key=main_terms.get)].append(r(k))
    for g, v in sorted(groups.items()):
        summary(g, v)

    print("by the memory level that sets throughput (largest of compute/dram/l2/l1/shared/atomics):")
    groups = defaultdict(list)
    for k in kernels:
        t = dict(zip(TERMS, k["terms"]))
        parts = {n: t[n] for n in ["compute", "dram", "l2", "l1", "shared_memory", "atomics"]}
        groups[max(parts, key=parts.get)].append(r(k))
    for g, v in sorted(groups.items()):
        summary(g, v)

    print("by access pattern present in the kernel:")
    for feat in ["pointwise_reads", "stencil_reads", "downsample_reads", "upsample_reads", "transpose_reads",
                 "gather_reads", "boundary_reads", "reduction_steps", "scatter_stages"]:
        summary(feat + " > 0", [r(k) for k in kernels if k["pf"][feat] > 0])
        summary(feat + " = 0", [r(k) for k in kernels if k["pf"][feat] == 0])

    print("by schedule trait:")
    traits = {
        "fused_block > 0": lambda k: k["sf"]["fused_block"] > 0,
        "fused_thread > 0": lambda k: k["sf"]["fused_thread"] > 0,
        "fused_in_registers > 0": lambda k: k["sf"]["fused_in_registers"] > 0,
        "points_per_thread > 1": lambda k: k["sf"]["points_per_thread"] > 1,
        "single_thread": lambda k: k["sf"]["single_thread"] > 0,
        "atomic": lambda k: k["sf"]["atomic"] > 0,
        "non_affine_bytes_fraction > 0": lambda k: k["sf"]["non_affine_bytes_fraction"] > 0,
        "blocks < 132": lambda k: k["sf"]["blocks"] < 132,
        "threads_per_block <= 32": lambda k: k["sf"]["threads_per_block"] <= 32,
        "inner_thread_extent < 8": lambda k: k["sf"]["inner_thread_extent"] < 8,
        "mean_coalescing < 0.5": lambda k: k["sf"]["mean_coalescing"] < 0.5,
        "recompute_ratio > 1.5": lambda k: k["sf"]["recompute_ratio"] > 1.5,
        "measured < 5 us": lambda k: k["measured"] < 0.005,
        "measured > 1 ms": lambda k: k["measured"] > 1,
    }
    for name, pred in traits.items():
        summary(name, [r(k) for k in kernels if pred(k)])

    print("worst 25 kernels (hand):")
    for k in sorted(kernels, key=lambda k: -abs(r(k)))[:25]:
        t = dict(zip(TERMS, k["terms"]))
        big = sorted(t.items(), key=lambda kv: -kv[1])[:4]
        print(f"  {k['func']:22s} s{k['stage']} meas {k['measured']:.4g} hand {k['hand']:.4g} "
              f"x{k['hand'] / k['measured']:.3g} | " + " ".join(f"{n}={v:.3g}" for n, v in big) +
              f" | blocks {k['sf']['blocks']:.0f} thr {k['sf']['threads_per_block']:.0f} "
              f"fp/blk {k['sf']['footprint_bytes_per_block']:.3g} gather {k['pf']['gather_reads']:.0f} "
              f"bnd {k['pf']['boundary_reads']:.0f} down {k['pf']['downsample_reads']:.0f} "
              f"nonaff {k['sf']['non_affine_bytes_fraction']:.2f}")

    # Whole pipelines: how much of the measured time is kernels (CUPTI) and what is left over.
    over = []
    for p in pipelines:
        for s in p["schedules"]:
            ks = sum(k["measured"] for k in s["kernels"] if k["measured"] > 0)
            if s["measured"] > 0 and ks > 0:
                over.append((s["measured"] - ks) / len(s["kernels"]))
    print(f"pipeline time minus CUPTI kernel time, per kernel: median {1000 * statistics.median(over):.2f} us, "
          f"p10 {1000 * sorted(over)[len(over) // 10]:.2f} us, p90 {1000 * sorted(over)[9 * len(over) // 10]:.2f} us")


if __name__ == "__main__":
    main()
