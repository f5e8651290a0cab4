// NVIDIA H200 SXM (Hopper, sm_90): the GPU our measurements run on. Rates are datasheet leads
// scaled to what kernels typically achieve; the learned cost model corrects the rest.
#include "gpu/profiles/profiles.h"

namespace hlsched::profiles {

GpuProfile h200() {
  GpuProfile p;
  p.name = "h200";
  p.description = "NVIDIA H200 (Hopper, sm_90, 132 SMs, HBM3e)";
  p.halide_target = "host-cuda-cuda_capability_86";  // Halide 14's newest; the driver JITs the PTX
  p.sm_count = 132;
  p.max_threads_per_sm = 2048;
  p.max_warps_per_sm = 64;
  p.max_blocks_per_sm = 32;
  p.registers_per_sm = 65536;
  p.max_registers_per_thread = 255;
  p.shared_memory_per_sm = 228 * 1024;
  p.shared_memory_per_block = 48 * 1024;
  p.l2_cache_bytes = 50LL * 1024 * 1024;
  p.dram_bandwidth_bytes_per_s = 4.0e12;   // ~4.8 TB/s peak; device-to-device copies reach ~4
  p.fp32_ops_per_s = 33.5e12;              // 67 TFLOP/s FMA = 33.5 T fused ops/s
  p.int32_ops_per_s = 16.7e12;
  p.special_function_ops_per_s = 4.2e12;
  p.shared_memory_bandwidth_bytes_per_s = 132 * 128.0 * 1.98e9;
  p.l2_bandwidth_bytes_per_s = 10.0e12;
  p.l1_bandwidth_bytes_per_s = 33.4e12;
  // Fit to a pipeline's measured time less its kernels' CUPTI times over the H200 datasets (4,903
  // schedules of 1 to 34 kernels: ~4.5 us for one kernel, ~2 us more per kernel; session
  // forty-three, docs/PERFORMANCE.md). 5 us per kernel and nothing per call, as before, priced a
  // ten-kernel pipeline's overhead 2.5x too high.
  p.kernel_launch_seconds = 2.5e-6;
  p.pipeline_call_seconds = 3.0e-6;
  p.block_sync_seconds = 2.0e-8;
  // The median of (CUPTI time - hand prediction) / (blocks per SM) over the 778 kernels of the
  // 2026-12-01 dataset with >= 100 blocks per SM (docs/PERFORMANCE.md, 2026-12-02): ~120 cycles.
  p.block_launch_seconds = 6.0e-8;
  return p;
}

}  // namespace hlsched::profiles
