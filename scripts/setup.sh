#!/usr/bin/env bash
# Installs what is missing from Debian 12's packages, then configures and builds hlsched.
# Idempotent: when everything is present it only runs the (incremental) build.
#
#   scripts/setup.sh            install + build everything (tests, the VS Code extension too)
#   scripts/setup.sh --main     install + build only the hlsched executable and what it runs
#   scripts/setup.sh --no-build install only
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${HLSCHED_BUILD_DIR:-$here/build}

packages=(
  build-essential cmake ninja-build pkg-config
  libhalide14-0-dev            # Halide 14: headers, libHalide14, GenGen/RunGen sources, plugins
  llvm-14-dev libclang-14-dev  # the LLVM that Halide 14 links against; libclang for source understanding
  libclang-rt-14-dev clang-14  # libFuzzer runtime; clang++-14 also builds the analyzed generators (twice as fast)
  libboost-dev libboost-system-dev libboost-filesystem-dev  # Asio, Process (which needs Filesystem)
  nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev
  libeigen3-dev libxxhash-dev catch2
  zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libedit-dev libffi-dev  # LLVM's CMake config wants these
  libpng-dev libjpeg-dev       # Halide's image_io in the examples' tests
  xz-utils
)
# The editor clients' builds and tests (editors/): not needed by the main job (--main).
if [[ "${1:-}" != "--main" ]]; then
  packages+=(neovim)    # the Neovim plugin's end-to-end test
  packages+=(chromium)  # the VS Code extension's end-to-end test (code-server in a headless browser)
  # The VS Code extension builds with Node and npm: Debian's, unless a Node is installed already.
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ "${1:-}" == "--no-build" ]]; then
  "$here/scripts/install_vscode_e2e.sh"
  exit 0
fi

if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
fi
if [[ "${1:-}" == "--main" ]]; then
  # What `hlsched schedule --verify` needs: the executable (its workers are itself) and what it links.
  cmake --build "$build_dir" --target hlsched -j "$(nproc)" >&2
  exit 0
fi
# The VS Code end-to-end test's npm packages download while the build compiles (cached in
# .cache/vscode-e2e: a second run skips this).
"$here/scripts/install_vscode_e2e.sh" &
e2e_install=$!
cmake --build "$build_dir" -j "$(nproc)" >&2
wait "$e2e_install"
"$here/scripts/build_vscode_extension.sh" >/dev/null
