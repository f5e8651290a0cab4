#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build the hlsched executable (not the
# tests), then schedule the bundled blur example for the default GPU profile (H200) and print
# the result.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh" --main
exec "$here/build/bin/hlsched" schedule "$here/examples/blur/blur_generator.cpp" --verify "$@"
