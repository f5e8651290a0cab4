#!/usr/bin/env bash
# Worker-fault soak of the language server for docs/PERFORMANCE.md: one `hlsched serve` daemon
# (stdio) analyzes a generator N times while every worker fails on purpose at a random point
# (HLSCHED_WORKER_FAULT=random: SIGKILL after loading the generator, after instantiating it or
# after the search, a garbage or a half-written result, or no fault), and now and then the
# compiler or the worker is SIGKILLed from outside mid-run. Each edit flips a comment, so after
# the first two builds every analysis is a cache hit (a worker run, not a compile).
#
# Measures: the daemon's RSS after the warm-up and at the end, how each analysis ended, and what
# is left over at the end: processes under the daemon, files in its TMPDIR, temporaries in the
# cache. One JSON line on stdout.
#
#   scripts/bench/worker_fault_soak.sh [BUILD_DIR] [FAULTS]      (default: build, 1000)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
faults=${2:-1000}
work=$(mktemp -d "${TMPDIR:-/tmp}/hlsched-fault-soak.XXXXXX")
mkdir -p "$work/tmp" "$work/cache"
# Precompiled headers from the build's test cache when there are some: saves a minute.
[[ -d "$build/tests/e2e-cache/pch" ]] && ln -s "$build/tests/e2e-cache/pch" "$work/cache/pch"
cp "$here/examples/blur/blur_generator.cpp" "$work/blur.cpp"

exec python3 - "$build/bin/hlsched" "$work" "$faults" <<'PY'
import json, os, random, signal, subprocess, sys, time

binary, work, faults = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, HLSCHED_WORKER_FAULT="random", TMPDIR=f"{work}/tmp")
daemon = subprocess.Popen(
    [binary, "serve", "--no-index", "--cache-dir", f"{work}/cache",
     "--settings", json.dumps({"debounce_ms": 0, "timeout": 120, "memory_limit_mb": 4096})],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(f"{work}/daemon.log", "wb"), env=env)
next_id = 0

def send(message):
    body = json.dumps(dict(message, jsonrpc="2.0")).encode()
    daemon.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    daemon.stdin.flush()

def receive():
    length = None
    while True:
        line = daemon.stdout.readline()
        if not line:
            raise SystemExit("the daemon closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(daemon.stdout.read(length))

def request(method, params):
    global next_id
    next_id += 1
    send({"id": next_id, "method": method, "params": params})
    while True:
        m = receive()
        if m.get("id") == next_id and "method" not in m:
            return m

def wait_finished(version):
    while True:
        m = receive()
        if "method" in m and "id" in m:  # a request from the server (progress tokens)
            send({"id": m["id"], "result": None})
        if m.get("method") == "hlsched/analysisFinished" and m["params"]["version"] == version:
            return m["params"]

def descendants(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            children = open(f"/proc/{pid}/task/{task}/children").read().split()
        except OSError:
            continue
        for child in map(int, children):
            found += [child] + descendants(child)
    return found

def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

# Kills a random descendant of the daemon (the compiler or a worker) from outside, now and then.
def kill_something():
    victims = descendants(daemon.pid)
    if victims:
        try:
            os.kill(random.choice(victims), signal.SIGKILL)
            return True
        except ProcessLookupError:
            pass
    return False

random.seed(1)
source = open(f"{work}/blur.cpp").read()
uri = f"file://{work}/blur.cpp"
request("initialize", {"processId": os.getpid(), "capabilities": {}, "rootUri": None})
send({"method": "initialized", "params": {}})
send({"method": "textDocument/didOpen",
      "params": {"textDocument": {"uri": uri, "languageId": "cpp", "version": 0, "text": source}}})
outcomes = {}
external_kills = 0
warmup = 20
rss_first = None
start = time.time()
for version in range(0, faults + warmup):
    if version > 0:
        text = source + ("\n// b\n" if version % 2 else "\n// a\n")
        send({"method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}})
        if random.random() < 0.1:
            time.sleep(random.uniform(0.0, 0.8))
            external_kills += kill_something()
    finished = wait_finished(version)
    key = finished["status"] + ("/" + finished["error_kind"] if finished["error_kind"] else "")
    outcomes[key] = outcomes.get(key, 0) + 1
    if version == warmup - 1:
        rss_first = rss_kb(daemon.pid)
rss_last = rss_kb(daemon.pid)
seconds = time.time() - start
time.sleep(1)
leftover_processes = descendants(daemon.pid)
leftover_tmp = os.listdir(f"{work}/tmp")
leftover_cache = [os.path.join(d, f) for d, _, fs in os.walk(f"{work}/cache", followlinks=False) for f in fs if ".tmp" in f]
request("shutdown", None)
send({"method": "exit"})
code = daemon.wait(timeout=30)
print(json.dumps({"analyses": faults, "warmup": warmup, "seconds": round(seconds, 1), "outcomes": outcomes,
                  "external_kills": external_kills, "rss_kb_after_warmup": rss_first, "rss_kb_last": rss_last,
                  "leftover_processes": len(leftover_processes), "leftover_tmp_files": len(leftover_tmp),
                  "leftover_cache_temporaries": len(leftover_cache), "daemon_exit_code": code, "work": work}))
PY
