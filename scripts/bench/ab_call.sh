#!/usr/bin/env bash
# An A/B measurement of two builds' schedules in one device call: builds a bench bundle of the
# examples with each build's plugin (the manual schedule in both, as the outputs' reference) and
# a call.sh that runs them A B B A on the GPU machine (the H200's timings drift between calls
# more than most changes, so compare only within one call). Report: scripts/bench/ab_report.py.
#
#   cp build/lib/libautoschedule_hlsched.so /tmp/a.so     # before the change
#   ... change, rebuild ...
#   scripts/bench/ab_call.sh /tmp/a.so build/lib/libautoschedule_hlsched.so .bundle-ab [--app APP ...]
#   device tool: run(carry=[".bundle-ab"], command="bash .bundle-ab/call.sh")
#   scripts/bench/ab_report.py $FILES_AT/{a1,b1,b2,a2}.json
#
# Without --app: every example. Put the out folder under a git-ignored name (.bundle*).
set -euo pipefail
if (($# < 3)); then
  sed -n 2,13p "$0" >&2
  exit 2
fi
plugin_a=$(realpath "$1") plugin_b=$(realpath "$2") out=$3
shift 3
here=$(cd "$(dirname "$0")/../.." && pwd)
hlsched=${HLSCHED:-$here/build/bin/hlsched}
mkdir -p "$out"
for side in a b; do
  plugin=$plugin_a
  [[ $side == b ]] && plugin=$plugin_b
  "$hlsched" bench --scheduler manual hlsched --input-range camera_pipe.input=0:1023 --plugin "$plugin" \
    --out "$out/$side" --work-dir "$out.work/$side" --jobs "$(nproc)" "$@"
done
cat > "$out/call.sh" <<'CALL'
#!/usr/bin/env bash
# A B B A (scripts/bench/ab_call.sh); results in $OUT/{a1,b1,b2,a2}.json.
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
options=(--app-timeout 60 --warmup 1 --min-reps 5 --seconds-per-variant 0.05 --kernel-reps 1)
for run in a:a1 b:b1 b:b2 a:a2; do
  side=${run%%:*} name=${run##*:}
  bash "$here/$side/run.sh" --output "$out/$name.json" "${options[@]}" > "$out/$name.log" 2>&1
  echo "$name: exit $? at ${SECONDS}s"
done
CALL
echo "bundle: $out (carry it; run: bash $out/call.sh)"
