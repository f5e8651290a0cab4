#!/usr/bin/env bash
# Runs tests/editors/nvim_e2e.lua in `nvim --headless --clean` with editors/nvim on the
# runtimepath, against the real daemon: over stdio (the plugin starts `hlsched serve`), or over
# TCP with a token (this script starts a shared `hlsched serve --listen`; Neovim 0.7 reaches it
# through `hlsched rpc --relay`).
#
#   nvim_e2e.sh HLSCHED_BINARY SOURCE_DIR WORK_DIR CACHE_DIR stdio|tcp
set -euo pipefail
binary=$(realpath "$1") source_dir=$(realpath "$2") work=$(realpath -m "$3") cache=$(realpath -m "$4") mode=$5

rm -rf "$work" && mkdir -p "$work/out"
cp "$source_dir/examples/blur/blur_generator.cpp" "$work/blur_generator.cpp"
export HLSCHED_BINARY=$binary HLSCHED_CACHE=$cache HLSCHED_TEST_FILE=$work/blur_generator.cpp HLSCHED_OUT=$work/out
export XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache  # nvim's own files

daemon_pid=
cleanup() { [[ -n "$daemon_pid" ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null; true; }
trap cleanup EXIT

if [[ "$mode" == tcp ]]; then
  export HLSCHED_TEST_TOKEN=nvim-e2e-token
  # The daemon prints its port on stdout as its first line; read it from a FIFO (no polling).
  mkfifo "$work/daemon.out"
  "$binary" serve --listen 127.0.0.1:0 --token "$HLSCHED_TEST_TOKEN" --cache-dir "$cache" \
      --log-file "$work/daemon.log" >"$work/daemon.out" &
  daemon_pid=$!
  exec 3<"$work/daemon.out"
  read -r -t 120 line <&3 || { echo "the daemon did not report its port" >&2; exit 1; }
  export HLSCHED_CONNECT=${line##*listening on }
fi

status=0
timeout 900 nvim --headless --clean --cmd "set rtp^=$source_dir/editors/nvim" \
    -c "luafile $source_dir/tests/editors/nvim_e2e.lua" </dev/null || status=$?
if ((status != 0)); then
  echo "nvim exited with $status" >&2
  [[ -f "$work/daemon.log" ]] && tail -50 "$work/daemon.log" >&2
  exit 1
fi
