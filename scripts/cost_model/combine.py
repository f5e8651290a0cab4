#!/usr/bin/env python3
"""Totals combined in one GPU thread: every dataset record of a searched schedule (beam or
candidate) whose total's partial results one thread combines, with that kernel's CUPTI time and
its share of the pipeline's kernel time, the largest shares first (docs/PERFORMANCE.md, session 34).
Usage: python3 scripts/cost_model/combine.py [DATASET.jsonl.zst ...] (default: all in
engine/training/data)."""
import json, glob, os, subprocess, re, sys
n=0; fr=[]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'engine', 'training', 'data')
for f in sys.argv[1:] or sorted(glob.glob(os.path.join(DATA, 'h*-*.jsonl.zst'))):
    out = subprocess.run(['zstd', '-dc', f], capture_output=True).stdout.decode()
    for line in out.splitlines():
        r = json.loads(line)
        m = r.get('measured') or {}; code = (r.get('schedule') or {}).get('code') or ''
        if not m.get('kernels') or not code or r['schedule'].get('kind') not in ('beam','candidate'): continue
        for k in m['kernels']:
            mm = re.search(r'// ' + re.escape(k['func']) + r': ([^\n]*)', code)
            c = mm.group(1) if mm else ''
            p = re.search(r'update in (\d+) partial results along \S+ \(rfactor\), combined in one thread', c)
            if p and k.get('stage',0)==1 and k['block']==[1,1,1]:
                parts=int(p.group(1)); tot=m.get('kernel_busy_ms') or 0
                fr.append((parts, k['ms'], tot, r['pipeline']['id'], f.split('/')[-1][:14]))
print(len(fr))
for x in sorted(fr, key=lambda x: -x[1]/max(x[2],1e-9))[:25]: print(x, 'frac %.2f'%(x[1]/max(x[2],1e-9)))
