#!/usr/bin/env bash
# Builds the dataset's collection bundles one chunk at a time (each chunk a complete bundle, so
# whatever chunks are done when time runs out can go to the GPU together, in one device call).
#
#   scripts/dataset/collect_chunks.sh CHUNK...     each CHUNK: NAME:FIRST_SEED:PIPELINES:SAMPLES
#                                                  or NAME:examples:SAMPLES
#   e.g. scripts/dataset/collect_chunks.sh c1:100000:100:5 c2:examples:4 c3:100100:100:3
#
# Chunk NAME goes to .bundle-data-NAME/ (bench.tar.xz, run.sh, collection.json; git-ignored);
# logs to .bundle-data-NAME.log. Environment: HLSCHED (default build/bin/hlsched), JOBS (2),
# COLLECTION (the collection name's prefix, default h200-2026-12-01), MIN_STAGES / MAX_STAGES
# (random pipelines' stage range, default 2-12), NICE (niceness, default 10).
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
hlsched=${HLSCHED:-$here/build/bin/hlsched}
jobs=${JOBS:-2}
prefix=${COLLECTION:-h200-2026-12-01}
min_stages=${MIN_STAGES:-2}
max_stages=${MAX_STAGES:-12}
niceness=${NICE:-10}
for chunk in "$@"; do
  IFS=: read -r name a b c <<< "$chunk"
  out="$here/.bundle-data-$name"
  if [[ "$a" == examples ]]; then
    args=(--all-examples --samples "$b")
  else
    args=(--random "$b" --first-seed "$a" --samples "$c" --min-stages "$min_stages" --max-stages "$max_stages")
  fi
  start=$(date +%s)
  echo "chunk $name: ${args[*]} (started $(date -u +%H:%M:%S))"
  nice -n "$niceness" "$hlsched" dataset collect --name "$prefix-$name" "${args[@]}" --jobs "$jobs" --out "$out" \
    > "$out.log" 2>&1
  echo "chunk $name: exit $? after $(( $(date +%s) - start )) s; $(grep -E '^bundle:' "$out.log")"
done
