#!/usr/bin/env python3
"""Per-block reductions against the learned model: every dataset record whose schedule computes a
Func with updates per GPU block of a root kernel, with the threads its passes use (the split
factors of the Vars it gives gpu_threads) against the block CUPTI launched, and the root kernel's
measured / predicted time, summarized by that fraction (docs/PERFORMANCE.md, session 34).
Usage: python3 scripts/cost_model/perblock.py [DATASET.jsonl.zst ...] (default: all in
engine/training/data)."""
import json, glob, os, subprocess, re, math, statistics as st, sys
rows=[]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'engine', 'training', 'data')
for f in sys.argv[1:] or sorted(glob.glob(os.path.join(DATA, 'h*-*.jsonl.zst'))):
    out=subprocess.run(['zstd','-dc',f],capture_output=True).stdout.decode()
    for line in out.splitlines():
        r=json.loads(line); m=r.get('measured') or {}; p=r.get('predicted') or {}
        code=(r.get('schedule') or {}).get('code') or ''
        if not m.get('kernels') or not p.get('stages') or not code: continue
        # per-block Funcs with updates: "// F: computed per GPU block of R" and "F.update(" in code
        for mm in re.finditer(r'// (\w+): computed per GPU block of (\w+)', code):
            fn, root = mm.group(1), mm.group(2)
            if (fn + '.update(') not in code: continue
            # active threads: the split factors of the vars given to gpu_threads in its pure stage
            blk = code[mm.end(): code.find('\n//', mm.end())]
            splits = dict((a, int(n)) for a, n in re.findall(r'\.split\(\w+, \w+, (\w+), (\d+)', blk))
            g = re.search(r'\.gpu_threads\(([\w, ]+)\)', blk)
            if not g: continue
            act = 1
            for v in [x.strip() for x in g.group(1).split(',')]: act *= splits.get(v, 0) or 0
            # root kernel's CUPTI: stage 0 of root (the fused Funcs run in the root's last stage kernel; take max ms over root stages)
            ks=[k for k in m['kernels'] if k['func']==root]
            if not ks: continue
            k=max(ks, key=lambda k: k['ms'])
            bt=k['block'][0]*k['block'][1]*k['block'][2]
            pr=[s for s in p['stages'] if s['func']==root and s['stage']==k.get('stage',0)]
            if not pr: continue
            # does the fused Func read global memory in its updates? crude: inlined boundary or input names in its definition unknown; skip
            rows.append(dict(file=f.split('/')[-1][:14], pid=r['pipeline']['id'], root=root, fn=fn, active=act, block=bt, grid=k['grid'], meas=k['ms'], pred=pr[0]['predicted_ms']))
print(len(rows))
def summ(sel, name):
    v=[math.log(x['meas']/x['pred']) for x in sel if x['pred']>0]
    if not v: return
    print('%-28s n=%4d median meas/pred %.2fx  quartiles %s' % (name, len(v), math.exp(st.median(v)), [round(math.exp(q),2) for q in st.quantiles(v,n=4)] if len(v)>3 else ''))
summ(rows,'all per-block reductions')
for lo,hi in [(0,0.2),(0.2,0.5),(0.5,0.99),(0.99,2)]:
    summ([x for x in rows if x['active']>0 and lo <= x['active']/x['block'] < hi], 'active/block in [%.2f,%.2f)'%(lo,hi))
summ([x for x in rows if x['active']==0], 'unparsed active')
