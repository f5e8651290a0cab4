#!/usr/bin/env python3
"""Compares schedules of the same apps measured by the bundle runner (results.json, .xz too).

    compare_runs.py [--normalize LABEL] BASE OTHER [OTHER...]

Each argument is RESULTS[:LABEL] (LABEL: the variant label, e.g. beam, c0, hlsched; default:
every app's only label other than "simple" and "manual"). For each OTHER, prints the apps both
measured with matching outputs, the geometric mean of BASE/OTHER median times (above 1: OTHER is
faster), how many are faster or slower by more than 5%, and the worst and best apps. Compare runs
of one device call only: the H200's timings drift between calls by more than most changes.
"""
import json
import lzma
import math
import sys

REFERENCE_LABELS = {"simple", "manual"}


def load(spec, normalize=None):
    path, _, label = spec.partition(":")
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        variants = json.load(f)["variants"]
    times, reference = {}, {}
    for v in variants:
        if normalize and v["label"] == normalize and v.get("status") == "ok":
            reference[v["app"]] = v["runtime_ms"]["median"]
        if label and v["label"] != label:
            continue
        if not label and v["label"] in REFERENCE_LABELS:
            continue
        if v.get("status") != "ok" or not v.get("check", {}).get("ok", False):
            continue
        app = v["app"]
        if app in times and not label:
            raise SystemExit(f"{spec}: {app} has several labels; name one (RESULTS:LABEL)")
        times[app] = v["runtime_ms"]["median"]
    if normalize:
        times = {app: t / reference[app] for app, t in times.items() if app in reference}
    return times


def compare(base_spec, base, spec, other):
    apps = sorted(set(base) & set(other))
    if not apps:
        print(f"{spec}: no app measured by both")
        return
    ratios = {a: base[a] / other[a] for a in apps}
    geomean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    faster = sum(r > 1.05 for r in ratios.values())
    slower = sum(r < 1 / 1.05 for r in ratios.values())
    ordered = sorted(apps, key=lambda a: ratios[a])
    worst = ", ".join(f"{a} {ratios[a]:.2f}x" for a in ordered[:3])
    best = ", ".join(f"{a} {ratios[a]:.2f}x" for a in reversed(ordered[-3:]))
    print(f"{spec} against {base_spec}: {len(apps)} apps, {geomean:.3f}x "
          f"({faster} faster, {slower} slower by >5%); worst {worst}; best {best}")


def main(argv):
    normalize = None
    if len(argv) > 2 and argv[1] == "--normalize":
        normalize = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        raise SystemExit(__doc__)
    base = load(argv[1], normalize)
    for spec in argv[2:]:
        compare(argv[1], base, spec, load(spec, normalize))


if __name__ == "__main__":
    main(sys.argv)
