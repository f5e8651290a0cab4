#!/usr/bin/env bash
# The language-server fuzzer's long run on a many-core machine, from the folder that
# scripts/fuzz/device_bundle.sh made (it is copied there as run.sh). One libFuzzer process in fork
# mode: N worker processes fuzz in parallel and the parent merges what they find into one corpus
# and keeps one total count of inputs run and one coverage figure.
#
#   bash .bundle-fuzz/run.sh SECONDS [WORKERS] [CPUS]    defaults: 540, 14, 2-15
#   FUZZ_MODE=jobs bash .bundle-fuzz/run.sh ...            WORKERS in-process jobs instead of fork mode
#
# Results, in $FUZZ_OUT (default: $OUT/fuzz, else ./fuzz-out): results.tar.gz (fuzz.log, the whole
# log; corpus/, the inputs the run added to the seeds: merge them at home, see docs/DEVICE_FUZZ.md;
# artifacts/, crash/leak/timeout inputs, if any) and summary.txt (inputs, exec/s, coverage,
# crashes), written last: its presence means the run is over. Two files, so that the run fits
# beside another job's files in $OUT (the device tool returns 8 at most).
# Large working files go to $FUZZ_WORK (default /tmp/hlsched-fuzz), not to $OUT.
# Exit status: 0 when the run finished with no crash, leak, UB, timeout or out-of-memory.
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-540}
workers=${2:-14}
cpus=${3:-2-15}
out=${FUZZ_OUT:-${OUT:+$OUT/fuzz}}
out=${out:-$PWD/fuzz-out}
work=${FUZZ_WORK:-/tmp/hlsched-fuzz}
fuzzer=$bundle/bin/fuzz_language_server

# Our libraries only (stubs for libclang and Halide among them); glibc from the machine.
export LD_LIBRARY_PATH=$bundle/lib
# A crash report names functions from the binary's symbols; no symbolizer travels with us.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:malloc_context_size=8:symbolize=0}

rm -rf "$work" "$out/summary.txt"
mkdir -p "$out" "$work/corpus" "$work/artifacts"
log=$work/fuzz.log
if ldd "$fuzzer" | grep -E 'not found|version .* not found'; then
  echo "run.sh: the fuzzer cannot load here (above); glibc: $(ldd --version | head -1)" | tee "$out/summary.txt"
  exit 2
fi

# LeakSanitizer stops the process's threads with ptrace at exit; some sandboxes (gVisor) may not
# allow that, and then every worker would end as a "crash". One input and an exit tell.
leaks=on
"$fuzzer" -runs=1 "$bundle/corpus/$(ls "$bundle/corpus" | head -1)" >"$work/preflight.log" 2>&1
if grep -q 'LeakSanitizer has encountered a fatal error' "$work/preflight.log"; then
  leaks="off (LeakSanitizer cannot run here: $(grep -m1 -i 'tracer\|ptrace\|fatal' "$work/preflight.log"))"
  export ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
elif ! grep -q 'Executed .* in' "$work/preflight.log"; then
  echo "run.sh: the fuzzer failed on one seed:" | tee "$out/summary.txt"
  tail -20 "$work/preflight.log" | tee -a "$out/summary.txt"
  exit 2
fi

# Both modes end here: the lines every summary has, the results archive, then summary.txt last
# (its presence means the run is over). Mode-specific lines are already in $work/summary.txt.
finish() {
  {
    echo "artifacts: $artifacts $(ls "$work/artifacts" | head -20 | tr '\n' ' ')"
    echo "corpus: $(ls "$work/corpus" | wc -l) new inputs, $(du -sk "$work/corpus" | cut -f1) kB"
  } >>"$work/summary.txt"
  cat "$work/summary.txt"
  tar -czf "$out/results.tar.gz" -C "$work" fuzz.log preflight.log corpus artifacts
  mv "$work/summary.txt" "$out/summary.txt"
}

pin=()
if command -v taskset >/dev/null && taskset -c "$cpus" true 2>/dev/null; then pin=(taskset -c "$cpus"); fi
echo "run.sh: $workers workers for ${seconds}s on CPUs ${cpus} (${pin[*]:-not pinned}), $(nproc) CPUs here" | tee "$log"
start=$(date +%s)
if [[ ${FUZZ_MODE:-fork} == jobs ]]; then
  # -jobs: WORKERS independent libFuzzer processes, each fuzzing for SECONDS in-process (no fork
  # mode's per-job restarts, which measured ~108 inputs/s/worker against ~436 in-process), all
  # adding to one corpus directory and re-reading it (-reload). A crash ends only its own job.
  # Totals are summed over the jobs' logs (fuzz-N.log, written in the working directory).
  (cd "$work" && "${pin[@]}" "$fuzzer" -jobs="$workers" -workers="$workers" -reload=30 \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len=4096 \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 -print_pcs=0 -print_funcs=0 \
    "$work/corpus" "$bundle/corpus" >>"$log" 2>&1)
  status=$?
  elapsed=$(( $(date +%s) - start ))
  artifacts=$(ls "$work/artifacts" | wc -l)
  inputs=0; best_cov=0; best_ft=0
  for job_log in "$work"/fuzz-*.log; do
    [[ -f $job_log ]] || continue
    cat "$job_log" >>"$log"
    # A finished job prints "Done N runs"; a job cut short has only its status lines.
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$job_log" | tail -1)
    [[ -n $runs ]] || runs=$(grep -E '^#[0-9]+' "$job_log" | tail -1 | sed -n 's/^#\([0-9]*\).*/\1/p')
    inputs=$(( inputs + ${runs:-0} ))
    cov=$(grep -oE 'cov: [0-9]+' "$job_log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -oE 'ft: [0-9]+' "$job_log" | tail -1 | cut -d' ' -f2)
    (( ${cov:-0} > best_cov )) && best_cov=$cov
    (( ${ft:-0} > best_ft )) && best_ft=$ft
  done
  crashes=$(grep -cE '^==[0-9]+==ERROR|deadly signal|runtime error:' "$log")
  {
    echo "exit: $status after ${elapsed}s ($workers jobs in-process, CPUs $cpus)"
    echo "leak detection: $leaks"
    echo "inputs executed: $inputs"
    echo "inputs per second of the whole run: $(( inputs / (elapsed > 0 ? elapsed : 1) ))"
    echo "coverage: cov: $best_cov ft: $best_ft (the best job's)"
    echo "sanitizer reports and deadly signals in the logs: $crashes"
  } >"$work/summary.txt"
  finish
  [[ $status -eq 0 && $artifacts -eq 0 && $crashes -eq 0 ]]
  exit
fi

# -fork: workers are processes (a crash in one is recorded, the run goes on: -ignore_*), their
# new inputs are merged into $work/corpus; the seeds are read, never written.
"${pin[@]}" "$fuzzer" -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len=4096 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 -print_pcs=0 -print_funcs=0 \
  "$work/corpus" "$bundle/corpus" >>"$log" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))

# The last fork-mode status line: "#<inputs>: cov: C ft: F corp: N exec/s E oom/timeout/crash: a/b/c time: Ts ..."
last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
artifacts=$(ls "$work/artifacts" | wc -l)
{
  echo "exit: $status after ${elapsed}s ($workers workers, CPUs $cpus)"
  echo "leak detection: $leaks"
  echo "last status line: ${last:-none}"
  echo "inputs executed: $(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")"
  echo "exec/s (total): $(sed -n 's/.*exec\/s:* \([0-9]*\).*/\1/p' <<<"$last")"
  inputs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")
  echo "inputs per second of the whole run: $(( ${inputs:-0} / (elapsed > 0 ? elapsed : 1) ))"
  echo "coverage: $(sed -n 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/p' <<<"$last")"
  echo "oom/timeout/crash: $(sed -n 's/.*oom\/timeout\/crash: \([0-9/]*\).*/\1/p' <<<"$last")"
} >"$work/summary.txt"
finish
[[ $status -eq 0 && $artifacts -eq 0 ]]
