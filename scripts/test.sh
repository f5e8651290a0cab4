#!/usr/bin/env bash
# Every test on a fresh machine: install what is missing, build, run ctest (what CI runs).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" --timeout 1200
