// NVIDIA Tesla V100 SXM2 (Volta, sm_70): the GPU the paper's cost model was trained on.
#include "gpu/profiles/profiles.h"

namespace hlsched::profiles {

GpuProfile v100() {
  GpuProfile p;
  p.name = "v100";
  p.description = "NVIDIA V100 (Volta, sm_70, 80 SMs, HBM2)";
  p.halide_target = "host-cuda-cuda_capability_70";
  p.sm_count = 80;
  p.max_threads_per_sm = 2048;
  p.max_warps_per_sm = 64;
  p.max_blocks_per_sm = 32;
  p.registers_per_sm = 65536;
  p.max_registers_per_thread = 255;
  p.shared_memory_per_sm = 96 * 1024;
  p.shared_memory_per_block = 48 * 1024;
  p.l2_cache_bytes = 6LL * 1024 * 1024;
  p.dram_bandwidth_bytes_per_s = 0.8e12;
  p.fp32_ops_per_s = 7.8e12;
  p.int32_ops_per_s = 7.8e12;
  p.special_function_ops_per_s = 1.0e12;
  p.shared_memory_bandwidth_bytes_per_s = 80 * 128.0 * 1.53e9;
  p.l2_bandwidth_bytes_per_s = 2.2e12;
  p.l1_bandwidth_bytes_per_s = 15.6e12;
  p.kernel_launch_seconds = 2.0e-6;  // not measured: the H200's split (half the launch, 3 us per call)
  p.pipeline_call_seconds = 3.0e-6;
  p.block_sync_seconds = 2.5e-8;
  return p;
}

}  // namespace hlsched::profiles
