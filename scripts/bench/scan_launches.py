#!/usr/bin/env python3
"""Rebuilds every schedule of dataset collections (their random pipelines' saved decisions) with
an hlsched build and lists the kernel launches whose thread block is over 1024 threads or of a
size known only at run time (`hlsched schedule --stmt-out` verifies each in a fresh process).

  python3 scripts/bench/scan_launches.py build/bin/hlsched WORK_DIR COLLECTION.json[.xz] ...

Prints one line per schedule with such a launch (or that fails to rebuild), then the count."""
import concurrent.futures as cf
import json
import lzma
import os
import subprocess
import sys


def schedules(path):
    with (lzma.open(path) if path.endswith('.xz') else open(path)) as f:
        for v in json.load(f)['variants']:
            decisions = v.get('prediction', {}).get('decisions')
            random = v['pipeline'].get('random')
            if decisions and random:
                yield v['function'], random, decisions


def check(hlsched, work, job):
    function, random, decisions = job
    source = os.path.join(work, f"r{random['seed']}.cpp")
    if not os.path.exists(source):
        subprocess.run([hlsched, 'random-pipeline', '--seed', str(random['seed']), '--stages', str(random['stages']),
                        '--writer-version', str(random['writer_version']), '-o', source], check=True, capture_output=True)
    saved = os.path.join(work, function + '.decisions')
    with open(saved, 'w') as f:
        f.write(decisions)
    stmt = os.path.join(work, function + '.stmt')
    run = subprocess.run([hlsched, 'schedule', source, '--decisions', saved, '--json', '--stmt-out', stmt],
                         capture_output=True, text=True)
    if os.path.exists(stmt):
        os.remove(stmt)
    if run.returncode:
        return function, 'failed: ' + run.stderr[-200:]
    launches = json.loads(run.stdout).get('verified', {}).get('unbounded_launches')
    return function, ('unbounded: ' + json.dumps(launches)) if launches else None


def main():
    hlsched, work, collections = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    jobs = [job for c in collections for job in schedules(c)]
    with cf.ThreadPoolExecutor(2) as pool:
        for function, problem in pool.map(lambda j: check(hlsched, work, j), jobs):
            if problem:
                print(function, problem, flush=True)
    print('scanned', len(jobs), 'schedules')


if __name__ == '__main__':
    main()
