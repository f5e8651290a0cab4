#!/usr/bin/env python3
"""scripts/bench/ab_report.py on four made-up runs (A B B A) of two apps: B's speed-up is the mean
of A's two runs over the mean of B's two, a run whose outputs differ is flagged, the reference
variant is the manual schedule by default and another with --reference (a collection's
`simple`), and the variant compared is `hlsched` by default and another with --label.

    check_ab_report.py SCRIPTS_BENCH_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

bench_dir, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def run_file(name, times, ok=True):
    variants = []
    for app, (reference, compared) in times.items():
        for label, ms in (("manual", reference), ("simple", 2 * reference), ("hlsched", compared), ("beam", compared / 2)):
            variants.append({"app": app, "label": label, "status": "ok", "runtime_ms": {"median": ms},
                             "check": {"ok": ok or label == "manual"},
                             "kernel_trace": {"kernels": [{"func": "f", "stage": 0, "ms": ms}]}})
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"variants": variants}, f)
    return path


a1 = run_file("a1", {"p": (1.0, 0.50), "q": (1.0, 2.0)})
b1 = run_file("b1", {"p": (1.0, 0.40), "q": (1.0, 2.0)})
b2 = run_file("b2", {"p": (1.0, 0.40), "q": (1.0, 2.0)}, ok=False)
a2 = run_file("a2", {"p": (1.0, 0.30), "q": (1.0, 2.0)})
script = os.path.join(bench_dir, "ab_report.py")


def report(*extra):
    return subprocess.run([sys.executable, script, a1, b1, b2, a2, *extra], check=True, capture_output=True,
                          text=True).stdout


def fail(message, text):
    sys.exit(f"FAIL: {message}\n{text}")


default = report()
rows = {line.split()[0]: line.split() for line in default.splitlines() if line[:1] in ("p", "q")}
if rows["p"][6] != "1.000x":  # A (0.50 + 0.30) / 2 = B (0.40 + 0.40) / 2
    fail("p's B/A", default)
if rows["p"][7] != "DIFFER" or rows["q"][7] != "DIFFER":
    fail("b2's differing outputs not flagged", default)
if "against the manual schedules: A 1.118x, B 1.118x" not in default:  # sqrt(1 / 0.4 * 1 / 2)
    fail("p and q against the manual", default)
collection = report("--label", "beam", "--reference", "simple")
if "simple ms" not in collection or "against the simple schedules: A 4.472x, B 4.472x" not in collection:  # sqrt(2 / 0.2 * 2 / 1)
    fail("--label beam --reference simple", collection)
print("ab_report OK")
