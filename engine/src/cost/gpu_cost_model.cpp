#include "cost/gpu_cost_model.h"

#include <algorithm>
#include <cmath>

namespace hlsched {

namespace {

// wave_tail's cost per warp of a block and wave, as a share of the profile's block dispatch:
// the median fit over the 6,737 CUPTI-timed kernels of the two H200 datasets put it at 15 ns
// (docs/PERFORMANCE.md, "Serial points per thread", 2026-12-02), a quarter of the H200's 60 ns.
// Profiles that measured no block dispatch (0) get no tail either.
constexpr double kWarpShareOfBlockLaunch = 0.25;
// Rounds of a compare-and-swap loop per update where a warp's lanes hit one word.
constexpr double kCasRoundsPerUpdate = 32;
// Resident warps per SM that keep its four warp schedulers issuing arithmetic (two each).
constexpr double kWarpsToKeepSchedulersBusy = 8;

// Blocks of this kernel that fit on one SM at once.
double resident_blocks_per_sm(const KernelModel &k, const GpuProfile &gpu) {
  const double warps = std::ceil(k.threads_per_block / gpu.warp_size);
  double shared = 0;
  for (const FusedFunc &f : k.fused)
    if (f.level == ComputeLevel::Block) shared += f.bytes_per_block;
  double by_threads = std::floor(gpu.max_warps_per_sm / std::max(1.0, warps));
  double by_registers = std::floor(gpu.registers_per_sm / std::max(1.0, k.registers_per_thread * warps * gpu.warp_size));
  double by_shared = shared > 0 ? std::floor(gpu.shared_memory_per_sm / shared) : 1e9;
  return std::max(1.0, std::min({double(gpu.max_blocks_per_sm), by_threads, by_registers, by_shared}));
}

// Points of the fused producers one thread of a pure kernel computes in sequence (fused_chain),
// those unrolled in registers counted at the part of their wait that unrolling leaves. Reductions,
// scatters and one-thread kernels wait on their own chains (reduction_chain, atomics): none here.
double fused_points_per_thread(const KernelModel &k, const GpuProfile &gpu) {
  const bool single_thread = k.tiling && k.tiling->single_thread;
  if (single_thread || k.global_atomics > 0 || k.shared_atomics_per_block > 0) return 0;
  // Threads that run a reduction (the kernel's own or a fused one) interleave their per-thread
  // producers with its steps (the reduction chain's). A Func fused per block is computed before
  // them all, in passes ended by a barrier: its chain adds to theirs (depthwise_separable_conv's
  // `constant_exterior` per block of `output`, whose threads reduce `pointwise`: 13 passes a
  // thread, 0.011 ms more on the H200 than main's kernel, which the model charged nothing).
  bool thread_reduction = k.serial_steps_per_thread > 0;
  for (const FusedFunc &f : k.fused)
    if (f.func != k.root && f.stages > 1) thread_reduction = true;
  double points = 0;
  for (const FusedFunc &f : k.fused) {
    if (f.func == k.root || f.stages > 1) continue;  // a fused reduction's steps: its own chain
    if (thread_reduction && f.level != ComputeLevel::Block) continue;
    points += f.points_per_block / std::max(1.0, k.threads_per_block) * (f.in_registers ? 1 - gpu.unrolled_step_overlap : 1.0);
  }
  return points;
}

}  // namespace

KernelCost cost_of_kernel(const KernelModel &k, const GpuProfile &gpu) {
  KernelCost cost;
  const double ms = 1e3;
  const double resident = resident_blocks_per_sm(k, gpu);
  const double warps_per_block = std::ceil(k.threads_per_block / gpu.warp_size);
  const double slots = resident * gpu.sm_count;
  const double waves = std::ceil(k.blocks / slots);
  // Idle SMs in the last wave, idle lanes in partial warps, idle threads in tail tiles.
  const double sm_utilization = k.blocks / (waves * slots);
  const double lane_utilization = k.threads_per_block / (warps_per_block * gpu.warp_size);
  const double tail_utilization = 1.0 - k.wasted_points_fraction;
  // Arithmetic quantizes per SM rather than per block slot: an SM left with fewer blocks in the
  // last wave gives each more of its issue slots, as long as their warps keep its schedulers busy
  // (conv_layer's 784 blocks of 4 warps, 4 resident per SM: two waves by slots, yet the fastest
  // tiling measured on the H200, 0.83 ms against 0.88-1.03 ms for tilings of one wave).
  const double rounds_per_sm = std::ceil(k.blocks / gpu.sm_count);
  const double sm_balance = k.blocks / (rounds_per_sm * gpu.sm_count);
  const double last_wave_blocks = k.blocks - (waves - 1) * slots;
  const double last_wave_warps_per_sm = last_wave_blocks / gpu.sm_count * warps_per_block;
  const double busy_issue =
      k.serial_steps_per_thread > 0 ? std::min(1.0, last_wave_warps_per_sm / kWarpsToKeepSchedulersBusy) : 0.0;
  const double compute_sm_utilization = sm_utilization + (std::max(sm_balance, sm_utilization) - sm_utilization) * busy_issue;
  const double utilization = std::max(1e-3, std::min(1.0, compute_sm_utilization) * lane_utilization * tail_utilization);
  // The blocks that exist: a grid of fewer blocks than the SMs could hold leaves them emptier.
  const double resident_here = std::min(resident, std::ceil(k.blocks / gpu.sm_count));
  const double resident_warps = std::min(resident_here * warps_per_block, double(gpu.max_warps_per_sm));
  cost.occupancy = resident_warps / gpu.max_warps_per_sm;

  const double ops = k.blocks * (k.ops_per_block + k.idle_lane_ops_per_block), math = k.blocks * k.math_ops_per_block;
  const double compute = (ops / gpu.fp32_ops_per_s + math / gpu.special_function_ops_per_s) / utilization;

  double dram_bytes = k.store_bytes, l2_bytes = k.store_bytes / k.store_efficiency, l1_bytes = k.update_rmw_bytes;
  // Strided store instructions (several consecutive points per thread) take more L1 wavefronts
  // than the sectors they finally fill.
  if (k.store_instruction_efficiency < k.store_efficiency)
    l1_bytes += k.store_bytes / k.store_instruction_efficiency;
  for (const GlobalRead &g : k.global_reads) {
    const double touched = k.blocks * g.footprint_per_block * g.bytes_per_element;
    // Reuse between blocks is served by L2 when the producer fits there, else refetched.
    const double unique = g.full_region * g.bytes_per_element;
    // What a sibling computed in the same blocks reads too comes from DRAM once, for the sibling.
    if (!g.read_by_sibling) dram_bytes += unique <= gpu.l2_cache_bytes ? std::min(touched, unique) : touched;
    l2_bytes += touched / g.sector_efficiency;
    l1_bytes += k.blocks * g.loads_per_block * g.bytes_per_element / g.coalescing_efficiency;
  }
  // Spilled registers: local memory, through L2 (KernelModel::spill_bytes).
  l2_bytes += k.spill_bytes;
  double shared_bytes = 0, syncs = 0;
  for (const FusedFunc &f : k.fused) {
    if (f.level == ComputeLevel::Thread) {
      // Per-thread arrays read at loop-dependent indices live in local memory (L1-cached): their
      // stores and loads go through the load/store units. Unrolled, they are registers.
      if (!f.in_registers) l1_bytes += k.blocks * (f.points_per_block + f.loads_by_consumers) * 4;
      continue;
    }
    if (f.level != ComputeLevel::Block) continue;
    shared_bytes += k.blocks * (f.bytes_per_block * f.slabs + f.loads_by_consumers * 4 * f.bank_conflict_ways);
    // A reduction computed per block: each step a read and a write of its accumulator in shared
    // memory, and a barrier after each of its definitions (pure, then each update).
    shared_bytes += k.blocks * f.accumulator_updates_per_block * 2 * 4;
    syncs += f.stages;
    // Copied per slab: per slab, a barrier after the copy and one before the next overwrites it.
    if (f.slabs > 1) syncs += f.slabs * (f.stages + 1) - f.stages;
  }
  // Bandwidths are reached only with every SM busy; a half-empty last wave gets less. Kernels
  // whose threads run reduction loops wait on their steps' chain (reduction_chain below, their
  // latency): their bandwidth is that of the SMs their blocks occupy.
  const double busy_sms = k.serial_steps_per_thread > 0 ? std::min(1.0, k.blocks / gpu.sm_count) : 0.0;
  const double bandwidth_share = std::max({sm_utilization, busy_sms, 0.05});
  const double dram = dram_bytes / gpu.dram_bandwidth_bytes_per_s / bandwidth_share;
  const double l2 = l2_bytes / gpu.l2_bandwidth_bytes_per_s / bandwidth_share;
  // Small blocks get little reuse out of L1 (few warps of a block share an SM's cache).
  const double l1_reuse = std::min(1.0, k.threads_per_block / 128.0);
  const double l1 = l1_bytes / gpu.l1_bandwidth_bytes_per_s / bandwidth_share / std::max(l1_reuse, 0.25);
  const double shared = shared_bytes / gpu.shared_memory_bandwidth_bytes_per_s / bandwidth_share;
  const double memory = std::max({dram, l2, l1});
  // Too few resident warps cannot keep enough loads in flight to reach the bandwidth.
  const double hiding = std::min(1.0, resident_warps / gpu.warps_to_hide_latency);
  const double latency = memory * std::min(2.0, 1.0 / std::max(hiding, 0.05) - 1.0);
  const double sync = waves * syncs * gpu.block_sync_seconds * 20;  // a barrier stalls the whole block
  // Computed with a sibling: its launch and its blocks' dispatch are the sibling's.
  const bool own_launch = k.computed_with < 0;
  const double launch = own_launch ? gpu.kernel_launch_seconds : 0.0;
  // Each SM dispatches and retires its share of the blocks one after another: grids of many small
  // blocks (one point per thread) ran ~2x longer on the H200 than their traffic says.
  const double block_launch = own_launch ? k.blocks / gpu.sm_count * gpu.block_launch_seconds : 0.0;
  // A block frees its slot only when its last warp retires, and an SM starts a block's warps one
  // after another: each wave waits about one warp's dispatch per warp of a block, so large blocks
  // cost more per wave than block_launch says (1,024-thread blocks of the H200 datasets ran
  // 2.4x longer than predicted, 128-thread ones as predicted).
  const double wave_tail =
      own_launch ? waves * warps_per_block * gpu.block_launch_seconds * kWarpShareOfBlockLaunch : 0.0;
  // Contention: atomic updates of one address serialize, so a scatter takes at least its
  // busiest address's chain of updates (the mean per address; the calibration folds in uneven
  // bins). Global chains span the whole kernel; a privatized copy's chains are per block, blocks
  // of a wave running side by side. Without this term 4M increments of 256 bins looked like
  // 16 MB of L2 traffic (0.4 ms predicted, 1.0 ms measured on the H200).
  const double global_chain = k.global_atomics / k.atomic_addresses * gpu.global_same_address_atomic_seconds;
  const double shared_chain =
      waves * k.shared_atomics_per_block / k.atomic_addresses * gpu.shared_same_address_atomic_seconds;
  // A compare-and-swap loop succeeds for one lane of those that collide per round, the others
  // retry: a histogram's hot bins make every update wait about a warp's worth of rounds (random
  // pipelines 400141 and 400119: 338 and 170 ms on the H200 where adds took about 1 ms).
  const double cas_chain = k.cas_loop ? kCasRoundsPerUpdate * (k.global_atomics * gpu.global_same_address_atomic_seconds +
                                                               waves * k.shared_atomics_per_block *
                                                                   gpu.shared_same_address_atomic_seconds)
                                      : 0.0;
  const double atomics = std::max(global_chain + shared_chain, cas_chain);
  // Reduction loops inside each thread: a thread's steps run one after another, each waiting on
  // the one before, so the kernel takes at least its waves x one thread's chain, however few
  // bytes it moves (a scan over 2559 rows on 18 blocks). Unrolled steps overlap most of the wait.
  const double step_wait = k.reduction_bytes <= gpu.reduction_l1_bytes ? gpu.reduction_step_l1_seconds
                                                                          : gpu.reduction_step_seconds;
  const double step =
      step_wait * (gpu.unrolled_step_overlap / std::max(1.0, k.unrolled_steps) + 1 - gpu.unrolled_step_overlap);
  const double reduction_chain = waves * k.serial_steps_per_thread * step;
  // Partial results of a factored reduction: the kernel above computes them, one more kernel
  // initializes them and the stage's own kernel combines them, a thread per point of the Func (a
  // few thousand at most: in parallel) stepping through them. A total's regrouped ones: two more
  // kernels (initialized, then each of the groups' threads steps through its share), and the one
  // thread through the groups.
  const double combine_steps =
      k.partials_regroup > 0 ? k.partials_regroup + std::ceil(k.partial_results / k.partials_regroup) : k.partial_results;
  const double combine = combine_steps * gpu.partial_combine_step_seconds;
  const double extra_launches =
      k.partial_results > 0 ? (k.partials_regroup > 0 ? 4 : 2) * gpu.kernel_launch_seconds : 0.0;
  // Producers fused into a pure kernel (per thread or per block): each thread computes its share
  // of their points one after another before its own, each point waiting on its loads like a
  // reduction step; unrolled in registers, the points' loads overlap as unrolled steps do. The
  // 6,737 kernels of the H200 datasets put the wait at ~230 ns a point, the reduction step's.
  const double fused_chain = waves * fused_points_per_thread(k, gpu) * gpu.reduction_step_seconds;

  cost.terms_ms = {{"compute", compute * ms}, {"dram", dram * ms},       {"l2", l2 * ms},
                   {"l1", l1 * ms},           {"shared_memory", shared * ms}, {"latency", latency * ms},
                   {"sync", sync * ms},       {"launch", (launch + extra_launches) * ms},
                   {"atomics", atomics * ms}, {"block_launch", block_launch * ms},
                   {"wave_tail", wave_tail * ms}, {"fused_chain", fused_chain * ms}};
  if (reduction_chain > 0) cost.terms_ms["reduction_chain"] = (reduction_chain + combine) * ms;
  const double throughput = std::max({compute, memory, shared, atomics, reduction_chain});
  cost.total_ms =
      (throughput + latency + sync + launch + block_launch + wave_tail + fused_chain + combine + extra_launches) * ms;
  if (launch >= throughput + latency) cost.bound = "launch";
  else if (reduction_chain > 0 && reduction_chain >= std::max({compute, memory, shared, atomics}))
    cost.bound = "reduction_chain";
  else if (atomics >= std::max({compute, memory, shared})) cost.bound = "atomics";
  else if (compute >= std::max(memory, shared)) cost.bound = "compute";
  else cost.bound = "memory";
  return cost;
}

}  // namespace hlsched
