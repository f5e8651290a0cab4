// Per-kernel GPU cost terms, each in milliseconds and each with a physical meaning, so that the
// breakdown explains itself. Predicted kernel time = sum over terms of coefficient x term; the
// default coefficients (all 1 for the overlapping roofline terms combined by max, see below) come
// from the GPU profile's physical rates. A learned model replaces the coefficients, not the terms.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cost/kernel_model.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/gpu_profile.h"

namespace hlsched {

/// The cost terms of one kernel, in ms:
///  compute        arithmetic / throughput, inflated by idle lanes, idle SMs and tail waste
///  dram           bytes that must come from or go to DRAM / bandwidth
///  l2             bytes blocks fetch from L2 (footprints / coalescing efficiency) / bandwidth
///  l1             load instructions' bytes through L1 (x uncoalesced sectors) / bandwidth
///  shared_memory  fused producers' stores + loads, x bank conflicts / bandwidth
///  latency        extra memory time when too few warps are resident to hide latency
///  sync           __syncthreads between fused stages, per block
///  launch         kernel launch overhead
///  block_launch   blocks per SM x the SM's cost of dispatching and retiring one block
///  reduction_chain  (update stages) waves x one thread's reduction steps, each waiting on the
///                 one before; unrolled steps overlap most of it (a throughput term: in the max)
/// The throughput terms overlap on a GPU: the kernel time is their max plus the non-overlapping
/// terms (latency, sync, launch, block_launch).
struct KernelCost {
  std::map<std::string, double> terms_ms;
  double total_ms = 0;
  std::string bound;          ///< "compute", "memory" or "launch"
  double occupancy = 0;       ///< resident warps / max warps per SM
};

KernelCost cost_of_kernel(const KernelModel &kernel, const GpuProfile &gpu);

}  // namespace hlsched
