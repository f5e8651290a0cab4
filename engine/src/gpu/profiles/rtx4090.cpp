// NVIDIA GeForce RTX 4090 (Ada, sm_89).
#include "gpu/profiles/profiles.h"

namespace hlsched::profiles {

GpuProfile rtx4090() {
  GpuProfile p;
  p.name = "rtx4090";
  p.description = "NVIDIA GeForce RTX 4090 (Ada, sm_89, 128 SMs, GDDR6X)";
  p.halide_target = "host-cuda-cuda_capability_86";
  p.sm_count = 128;
  p.max_threads_per_sm = 1536;
  p.max_warps_per_sm = 48;
  p.max_blocks_per_sm = 24;
  p.registers_per_sm = 65536;
  p.max_registers_per_thread = 255;
  p.shared_memory_per_sm = 100 * 1024;
  p.shared_memory_per_block = 48 * 1024;
  p.l2_cache_bytes = 72LL * 1024 * 1024;
  p.dram_bandwidth_bytes_per_s = 0.9e12;
  p.fp32_ops_per_s = 41e12;
  p.int32_ops_per_s = 20e12;
  p.special_function_ops_per_s = 5.1e12;
  p.shared_memory_bandwidth_bytes_per_s = 128 * 128.0 * 2.52e9;
  p.l2_bandwidth_bytes_per_s = 5.0e12;
  p.l1_bandwidth_bytes_per_s = 32.0e12;
  p.kernel_launch_seconds = 1.5e-6;  // not measured: the H200's split (half the launch, 3 us per call)
  p.pipeline_call_seconds = 3.0e-6;
  p.block_sync_seconds = 2.0e-8;
  return p;
}

}  // namespace hlsched::profiles
