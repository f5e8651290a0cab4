// Per-kernel GPU times, recorded by CUPTI's activity API while a pipeline runs.
//
// CUPTI is optional: the bundle carries libcupti.so next to the runner when the machine that
// built it had one (see kernel_trace_cupti.cpp); a runner built without it, or one whose CUPTI
// fails to load on the GPU machine, still times whole pipelines and says why kernels are missing.
//
// Tracing adds a little overhead to each launch, so the runner times pipelines with tracing off
// and runs a few extra, traced repetitions for the per-kernel breakdown.
//
// Threading: one KernelTrace per process (CUPTI's activity buffers are process-wide); start()
// and stop() from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hlsched::bench {

/// One kernel launch as CUPTI saw it.
struct KernelRecord {
  std::string name;           ///< the kernel's symbol, e.g. "_kernel_output_s0_y_yo___block_id_y"
  uint64_t start_ns = 0;      ///< GPU timestamps
  uint64_t end_ns = 0;
  int grid[3] = {0, 0, 0};    ///< blocks
  int block[3] = {0, 0, 0};   ///< threads per block
  int registers_per_thread = 0;
  int shared_memory_bytes = 0;  ///< static + dynamic, per block
  /// Local memory per thread: registers ptxas spilled, and arrays it could not keep in registers.
  int local_memory_bytes_per_thread = 0;
  /// Shared memory per SM the driver configured for the launch (its L1/shared carve-out), which
  /// bounds the blocks resident per SM.
  int shared_memory_executed_bytes = 0;
};

class KernelTrace {
public:
  virtual ~KernelTrace() = default;

  /// The process's tracer, or null with `why_not` set (no CUPTI in this build, or it failed to
  /// load from `library_dir` / the system's library path).
  static std::unique_ptr<KernelTrace> create(const std::string &library_dir, std::string &why_not);

  /// Starts recording kernel launches.
  virtual void start() = 0;
  /// Call after the device is synchronized: stops recording and returns the launches recorded
  /// since start(), in launch order. Throws std::runtime_error when CUPTI reports an error or
  /// dropped records.
  virtual std::vector<KernelRecord> stop() = 0;
};

}  // namespace hlsched::bench
