#!/usr/bin/env bash
# Builds the protocol fuzzer (libFuzzer + ASan + UBSan, clang-14) in its own
# build directory and runs it for a bounded time.
#
#   scripts/fuzz_protocol.sh [SECONDS]     default 60
#
# Environment:
#   HLSCHED_FUZZ_BUILD_DIR   build directory (default: <repo>/build-fuzz)
#   HLSCHED_FUZZ_JOBS        build parallelism (default: 2)
#   HLSCHED_FUZZ_SOURCE_DIR  CMake source dir (default: the repo); any project
#                            that adds protocol/ and tests/protocol/ works
#
# Seeds come from tests/protocol/fuzz_corpus/ (read-only); inputs the fuzzer
# discovers go to <build>/fuzz/corpus, crashes to <build>/fuzz/artifacts/.
# Exits non-zero if the fuzzer finds a crash, leak, UB or timeout.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build_dir=${HLSCHED_FUZZ_BUILD_DIR:-$repo/build-fuzz}
source_dir=${HLSCHED_FUZZ_SOURCE_DIR:-$repo}
jobs=${HLSCHED_FUZZ_JOBS:-2}

if [[ ! -f "$build_dir/build.ninja" ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$source_dir" -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHLSCHED_BUILD_TESTS=ON \
    -DHLSCHED_BUILD_FUZZERS=ON >&2
fi
# Only the fuzzer and its dependencies, not the whole project.
cmake --build "$build_dir" --target fuzz_framing_jsonrpc -j "$jobs" >&2

fuzzer=$(find "$build_dir" -type f -name fuzz_framing_jsonrpc -perm -u+x | head -n 1)
[[ -n "$fuzzer" ]] || { echo "fuzz_protocol: fuzz_framing_jsonrpc not built" >&2; exit 1; }

work=$build_dir/fuzz
mkdir -p "$work/corpus" "$work/artifacts"
echo "fuzz_protocol: running $fuzzer for ${seconds}s" >&2
exec "$fuzzer" \
  -max_total_time="$seconds" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=16384 \
  -dict="$repo/tests/protocol/fuzz_framing_jsonrpc.dict" \
  -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 \
  "$work/corpus" "$repo/tests/protocol/fuzz_corpus"
