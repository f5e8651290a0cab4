#!/usr/bin/env python3
"""The A/B table of one device call of scripts/bench/ab_call.sh (runs A B B A).

    ab_report.py A1.json B1.json B2.json A2.json [--markdown] [--label L] [--reference R]

Per app: the manual schedule's median time (over the four runs), each run's median time of the
hlsched variant, B's speed-up over A (mean of A's two runs over mean of B's two), whether every
output matched the manual schedule's, and the kernel whose CUPTI time moved most (ms, A -> B).
Then the geometric means: B over A, and each against the manual schedules. --label and
--reference name other variants (a collection bundle's: `--label beam --reference simple`).
Standard library.
"""
import argparse
import json
import lzma
import math
import statistics
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return {(v["app"], v["label"]): v for v in json.load(f)["variants"]}


def median_ms(variant):
    if not variant or variant.get("status") != "ok":
        return None
    return variant["runtime_ms"]["median"]


def kernels(variant):
    out = {}
    for k in (variant or {}).get("kernel_trace", {}).get("kernels", []):
        key = f'{k["func"]}.s{k["stage"]}'
        out[key] = out.get(key, 0.0) + k["ms"]
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs=4, metavar="RUN.json", help="the results of runs A1 B1 B2 A2, in that order")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--label", default="hlsched", help="the variant compared (default: hlsched)")
    parser.add_argument("--reference", default="manual", help="the reference variant (default: manual)")
    return parser.parse_args(argv)


def main(argv):
    args = parse_arguments(argv)
    markdown, label, reference, paths = args.markdown, args.label, args.reference, args.runs
    a1, b1, b2, a2 = (load(p) for p in paths)
    apps = sorted({app for (app, l) in a1 if l == label} & {app for (app, l) in b1 if l == label})
    rows, speedups, a_vs_reference, b_vs_reference = [], [], [], []
    for app in apps:
        runs = [r.get((app, label)) for r in (a1, a2, b1, b2)]
        times = [median_ms(v) for v in runs]
        reference_ms = [median_ms(r.get((app, reference))) for r in (a1, b1, b2, a2)]
        reference_ms = [t for t in reference_ms if t]
        ok = all(v and v.get("check", {}).get("ok", False) for v in runs)
        if None in times:
            rows.append((app, None, times, None, ok, ""))
            continue
        a, b = statistics.mean(times[:2]), statistics.mean(times[2:])
        speedups.append(a / b)
        man = statistics.median(reference_ms) if reference_ms else None
        if man:
            a_vs_reference.append(man / a)
            b_vs_reference.append(man / b)
        ka, kb = kernels(runs[0]), kernels(runs[2])
        moved = max(set(ka) | set(kb), key=lambda k: abs(ka.get(k, 0) - kb.get(k, 0)), default=None)
        kernel = f"{moved} {ka.get(moved, 0):.4f} -> {kb.get(moved, 0):.4f}" if moved else ""
        rows.append((app, man, times, a / b, ok, kernel))
    sep = " | " if markdown else "  "
    header = ["app", f"{reference} ms", "A1", "A2", "B1", "B2", "B/A", "outputs", "kernel moved most (ms)"]
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(sep.join(f"{h:>10}" if i else f"{h:28}" for i, h in enumerate(header)))
    for app, man, times, ratio, ok, kernel in rows:
        cells = [app, f"{man:.4f}" if man else "-"] + [f"{t:.4f}" if t else "failed" for t in times]
        cells += [f"{ratio:.3f}x" if ratio else "-", "match" if ok else "DIFFER", kernel]
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print(sep.join(f"{c:>10}" if i else f"{c:28}" for i, c in enumerate(cells)))
    print(f"\nB over A, geometric mean of {len(speedups)} apps: {geomean(speedups):.3f}x"
          f" (faster by >5%: {sum(s > 1.05 for s in speedups)}, slower by >5%: {sum(s < 1 / 1.05 for s in speedups)})")
    if a_vs_reference:
        print(f"against the {reference} schedules: A {geomean(a_vs_reference):.3f}x, B {geomean(b_vs_reference):.3f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
