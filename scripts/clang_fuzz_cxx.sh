#!/usr/bin/env bash
# Compiler launcher for the fuzz targets of a g++ build (tests/server/CMakeLists.txt): CMake runs
# `clang_fuzz_cxx.sh <its c++ compiler> <args...>`; we run clang++-14 with the same arguments
# instead (libFuzzer needs clang), through ccache when there is one. Linking the g++-built
# libraries works: clang++ uses the same libstdc++.
set -euo pipefail
shift  # the build's own compiler
clang=${HLSCHED_FUZZ_CLANGXX:-clang++-14}
# Objects only (-c): linking through ccache gains nothing.
if command -v ccache >/dev/null && [[ " $* " == *" -c "* ]]; then exec ccache "$clang" "$@"; fi
exec "$clang" "$@"
