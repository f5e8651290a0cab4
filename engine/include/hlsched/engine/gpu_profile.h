// A GPU described as data: the limits the schedule space respects and the rates the cost model
// turns work into time with. One file per GPU under engine/src/gpu/profiles/.
#pragma once

#include <string>
#include <vector>

namespace hlsched {

struct GpuProfile {
  std::string name;          ///< short id used on command lines: "h200"
  std::string description;   ///< "NVIDIA H200 (Hopper, sm_90)"
  std::string halide_target; ///< the target we compile for on this GPU

  // Limits (per SM unless said otherwise).
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int max_registers_per_thread = 255;
  int shared_memory_per_sm = 0;          ///< bytes
  int shared_memory_per_block = 48 * 1024;  ///< bytes, without opt-in (what Halide 14 uses)
  long long l2_cache_bytes = 0;

  // Rates.
  double dram_bandwidth_bytes_per_s = 0;   ///< achievable, not peak
  double fp32_ops_per_s = 0;               ///< scalar FMA counted as one op
  double int32_ops_per_s = 0;
  double special_function_ops_per_s = 0;   ///< exp, log, sqrt, ...
  double shared_memory_bandwidth_bytes_per_s = 0;  ///< whole GPU
  double l2_bandwidth_bytes_per_s = 0;     ///< L2 -> SM, whole GPU
  double l1_bandwidth_bytes_per_s = 0;     ///< load/store units through L1, whole GPU
  int warps_to_hide_latency = 16;          ///< resident warps per SM below which memory stalls show
  /// What each kernel adds to a pipeline's time beyond its own run on the GPU (CUPTI's time):
  /// the gap to the next launch, and its buffer's allocation.
  double kernel_launch_seconds = 0;
  /// What a call of the pipeline costs beyond its kernels and their launches, once: argument
  /// checks, the first launch's latency, the final synchronization.
  double pipeline_call_seconds = 0;
  double block_sync_seconds = 0;           ///< one __syncthreads round trip
  /// Per thread block, on its SM: dispatching it and retiring it, not hidden by the SM's other
  /// blocks (the cost model adds blocks / SMs x this to a kernel). 0 where not measured.
  double block_launch_seconds = 0;
  /// Atomic updates of one address serialize. Per update of one global address (done in L2),
  /// calibrated on the H200: examples/hist's 3.9M atomic increments over 256 bins took 0.91 ms,
  /// 15360 updates per bin, ~59 ns each (uneven bins included). Other profiles keep this value.
  double global_same_address_atomic_seconds = 59e-9;
  /// The same within one block's shared memory (an SM-local read-modify-write, a few cycles).
  double shared_same_address_atomic_seconds = 4e-9;
  /// One step of a reduction loop run inside a thread, which waits for the step before (a scan
  /// reads what it wrote) and for its own loads. Calibrated on the H200 (2026-12-01 run,
  /// examples/iir_blur): blur_y's first scan, 2559 steps per thread, took 0.53 ms (208 ns a
  /// step) rolled and 0.19 ms (73 ns) split by 8 and unrolled in the manual schedule.
  double reduction_step_seconds = 200e-9;
  /// The same when everything the stage touches fits one SM's L1 (up to
  /// `reduction_l1_bytes`): examples/hist's 255-step scan of 1 KB took 9.4 us (37 ns a step).
  double reduction_step_l1_seconds = 40e-9;
  double reduction_l1_bytes = 64 * 1024;
  /// The part of that wait that unrolled steps overlap (their loads issue together, values pass
  /// in registers): 0.75 gives 69 ns a step unrolled by 8.
  double unrolled_step_overlap = 0.75;
  /// One partial result of a factored reduction (rfactor) combined by the stage's own kernel, a
  /// thread per point of the Func: loads of consecutive values that do not wait on each other as
  /// a scan's steps do. The H200 datasets' 210 one-thread combining kernels (64-2,560 partial
  /// results, CUPTI) took 19.5 ns a partial result in the median (13.7-27 ns, 10th-90th percentile).
  double partial_combine_step_seconds = 20e-9;

  int max_threads_in_flight() const { return sm_count * max_threads_per_sm; }
};

/// The profile named `name` ("h200", "a100", "rtx4090", "v100"). Throws std::invalid_argument
/// listing the known names when there is none.
const GpuProfile &find_gpu_profile(const std::string &name);

/// Every known profile.
const std::vector<GpuProfile> &gpu_profiles();

/// The default GPU: the H200 our measurements run on.
inline const char *default_gpu_profile_name() { return "h200"; }

}  // namespace hlsched
