// NVIDIA A100 SXM 80 GB (Ampere, sm_80).
#include "gpu/profiles/profiles.h"

namespace hlsched::profiles {

GpuProfile a100() {
  GpuProfile p;
  p.name = "a100";
  p.description = "NVIDIA A100 (Ampere, sm_80, 108 SMs, HBM2e)";
  p.halide_target = "host-cuda-cuda_capability_80";
  p.sm_count = 108;
  p.max_threads_per_sm = 2048;
  p.max_warps_per_sm = 64;
  p.max_blocks_per_sm = 32;
  p.registers_per_sm = 65536;
  p.max_registers_per_thread = 255;
  p.shared_memory_per_sm = 164 * 1024;
  p.shared_memory_per_block = 48 * 1024;
  p.l2_cache_bytes = 40LL * 1024 * 1024;
  p.dram_bandwidth_bytes_per_s = 1.7e12;
  p.fp32_ops_per_s = 9.7e12;
  p.int32_ops_per_s = 9.7e12;
  p.special_function_ops_per_s = 1.2e12;
  p.shared_memory_bandwidth_bytes_per_s = 108 * 128.0 * 1.41e9;
  p.l2_bandwidth_bytes_per_s = 4.8e12;
  p.l1_bandwidth_bytes_per_s = 19.5e12;
  p.kernel_launch_seconds = 1.75e-6;  // not measured: the H200's split (half the launch, 3 us per call)
  p.pipeline_call_seconds = 3.0e-6;
  p.block_sync_seconds = 2.5e-8;
  return p;
}

}  // namespace hlsched::profiles
