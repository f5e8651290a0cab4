#!/usr/bin/env bash
# The VS Code extension's node tests (editors/vscode/test) against the real daemon: compiles the
# extension with tsc (into editors/vscode/out, git-ignored) and runs `node --test`.
#
#   vscode_tests.sh HLSCHED_BINARY SOURCE_DIR WORK_DIR CACHE_DIR
set -euo pipefail
binary=$(realpath "$1") source_dir=$(realpath "$2") work=$(realpath -m "$3") cache=$(realpath -m "$4")
cd "$source_dir/editors/vscode"
if [[ ! -d node_modules ]]; then
  echo "editors/vscode/node_modules is missing: run scripts/build_vscode_extension.sh --install (setup.sh does)" >&2
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"
npx tsc -p .
HLSCHED_BINARY=$binary HLSCHED_CACHE=$cache HLSCHED_WORK=$work node --test out/test/
