#!/usr/bin/env bash
# The plugin under GenGen: schedules a generator for CUDA, writes a schedule header that compiles,
# and produces a static library with GPU kernels.
#   check_plugin.sh GENERATOR_EXE PLUGIN_SO WORK_DIR
set -euo pipefail
gengen=$1 plugin=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$gengen" -g blur -p "$plugin" -s Hlsched -o "$work" -e static_library,h,schedule,stmt \
  target=host-cuda-cuda_capability_86 auto_schedule=true machine_params=132,50000000,40
test -s "$work/blur.schedule.h" || { echo "no schedule header"; exit 1; }
test -s "$work/blur.a" || { echo "no static library"; exit 1; }
grep -q "halide_cuda_run" "$work/blur.stmt" || { echo "no GPU kernels in the lowered program"; exit 1; }
grep -q "gpu_tile" "$work/blur.schedule.h" || { echo "schedule header has no GPU schedule"; exit 1; }
# The emitted header compiles as written.
printf '#include "Halide.h"\n#include "blur.schedule.h"\nint main() { return 0; }\n' > "$work/use_schedule.cpp"
g++ -std=c++17 -fsyntax-only -I/usr/include/halide14 -I"$work" "$work/use_schedule.cpp"
echo "plugin OK"
