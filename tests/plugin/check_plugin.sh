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
# A random schedule (strategy=sample) instead of the search: compiles to GPU kernels too, and the
# random walk's comment says so. About 3 s more; the two bad settings fail before any compiling.
mkdir -p "$work/sample"
HLSCHED_OPTIONS=strategy=sample,seed=3,sample=2 "$gengen" -g blur -p "$plugin" -s Hlsched -o "$work/sample" \
  -e static_library,h,schedule,stmt target=host-cuda-cuda_capability_86 auto_schedule=true
grep -q "random walk" "$work/sample/blur.schedule.h" || { echo "strategy=sample applied no random schedule"; exit 1; }
grep -q "halide_cuda_run" "$work/sample/blur.stmt" || { echo "no GPU kernels for the random schedule"; exit 1; }
expect_error() {  # HLSCHED_OPTIONS, then a part of the error message GenGen must print
  # (in a subshell whose stderr is dropped: bash would report GenGen's abort there)
  if (HLSCHED_OPTIONS=$1 "$gengen" -g blur -p "$plugin" -s Hlsched -o "$work/sample" -e static_library \
      target=host-cuda-cuda_capability_86 auto_schedule=true > "$work/error.log" 2>&1; exit $?) 2> /dev/null; then
    echo "HLSCHED_OPTIONS=$1 was accepted"; exit 1
  fi
  grep -q "$2" "$work/error.log" || { echo "HLSCHED_OPTIONS=$1: no '$2' in:"; cat "$work/error.log"; exit 1; }
}
expect_error strategy=sample,sample=two "sample wants a non-negative integer"
expect_error sample=1 "needs strategy=sample"
expect_error strategy=sample,candidate=1 "needs strategy=beam"
expect_error candidate=one "candidate wants a non-negative integer"
echo "plugin OK"
