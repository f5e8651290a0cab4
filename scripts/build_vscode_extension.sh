#!/usr/bin/env bash
# Builds the VS Code extension in editors/vscode: installs its npm packages from
# package-lock.json (the only step that needs the network; skipped when they are current),
# compiles it with tsc and packages editors/vscode/hlsched.vsix with vsce (offline).
#
#   scripts/build_vscode_extension.sh            install + compile + package
#   scripts/build_vscode_extension.sh --install  install only (what the tests need)
#
# Runs on Debian 12's Node 18 and npm 9: package.json pins vsce's cheerio to 1.0.0 (cheerio 1.1+
# loads undici 7, which needs Node 20 and stops `vsce package` with "File is not defined").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here/editors/vscode"

if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "vscode extension: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
[[ "${1:-}" == "--install" ]] && exit 0
npx tsc -p . >&2
npx vsce package --skip-license --out hlsched.vsix </dev/null >&2
echo "$here/editors/vscode/hlsched.vsix"
