#include "cost/features.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "hlsched/engine/gpu_profile.h"

namespace hlsched {

const std::array<const char *, kTermCount> &cost_term_names() {
  static const std::array<const char *, kTermCount> names = {
      "throughput", "latency", "sync",   "launch",      "non_affine_excess", "compute",
      "dram",       "l2",      "l1",     "shared_memory", "atomics",         "stores",
      "load_issue", "local_memory", "block_overhead", "low_occupancy_memory", "idle_lanes",
      "non_affine_dram", "non_affine_sectors", "kernel_minimum", "atomics_one_address", "wave_tail",
      "fused_chain", "reduction_chain"};
  return names;
}

const std::array<const char *, kPfCount> &pipeline_feature_names() {
  static const std::array<const char *, kPfCount> names = {
      "stages",          "inlined",        "basic_ops",       "math_ops",      "float_stages",   "int_stages",
      "bytes_per_point", "pointwise_reads", "stencil_reads",  "downsample_reads", "upsample_reads",
      "transpose_reads", "gather_reads",   "boundary_reads",  "input_reads",   "reduction_steps",
      "scatter_stages",  "calls_per_point"};
  return names;
}

const std::array<const char *, kSfCount> &schedule_feature_names() {
  static const std::array<const char *, kSfCount> names = {
      "blocks",           "threads_per_block",   "warps_per_block",   "points_per_block",
      "points_per_thread", "inner_thread_extent", "wasted_fraction",  "occupancy",
      "registers_per_thread", "ops_per_block",    "math_ops_per_block", "store_bytes",
      "store_efficiency", "global_reads",        "footprint_bytes_per_block", "loads_per_block",
      "min_coalescing",   "mean_coalescing",     "non_affine_bytes_fraction", "fused_block",
      "fused_thread",     "fused_in_registers",  "shared_bytes_per_block", "bank_conflict_ways",
      "fused_points_per_block", "recompute_ratio", "local_bytes_per_block", "global_atomics",
      "shared_atomics_per_block", "atomic_contention", "waves",        "single_thread",
      "atomic",           "privatized"};
  return names;
}

const CostTerms &hand_coefficients() {
  static const CostTerms coefficients = [] {
    CostTerms c{};
    for (CostTerm t : {kTermThroughput, kTermLatency, kTermSync, kTermLaunch, kTermNonAffineExcess}) c[t] = 1;
    return c;
  }();
  return coefficients;
}

namespace {

double term(const KernelCost &cost, const char *name) {
  auto it = cost.terms_ms.find(name);
  return it == cost.terms_ms.end() ? 0.0 : it->second;
}

// Counts one call site of `consumer` by its access pattern.
void count_access(const PipelineDag &dag, const FuncNode &consumer, const ProducerAccess &a, PipelineFeatures &pf) {
  const double calls = double(std::max<int64_t>(1, a.calls_per_point));
  pf[kPfCallsPerPoint] += calls;
  if (a.producer_is_input) pf[kPfInputReads] += calls;
  else if (const FuncNode *p = dag.find(a.producer); p && p->is_boundary_condition) pf[kPfBoundaryReads] += calls;
  if (a.is_pointwise) {
    pf[kPfPointwiseReads] += calls;
    return;
  }
  if (!a.is_affine) {
    pf[kPfGatherReads] += calls;
    return;
  }
  bool down = false, up = false, transposed = false, window = false;
  for (size_t d = 0; d < a.region_min.size(); d++) {
    for (const auto &[var, coef] : a.region_min[d].coefficients) {
      if (coef == 0) continue;
      if (std::fabs(coef) > 1) down = true;
      if (std::fabs(coef) < 1) up = true;
      if (d == 0 && !consumer.args.empty() && var != consumer.args[0]) transposed = true;
    }
    if (d < a.points_per_consumer_point.size() && a.points_per_consumer_point[d] > 1) window = true;
  }
  if (down) pf[kPfDownsampleReads] += calls;
  if (up) pf[kPfUpsampleReads] += calls;
  if (transposed) pf[kPfTransposeReads] += calls;
  if (window && !down && !up) pf[kPfStencilReads] += calls;
}

PipelineFeatures pipeline_features(const PipelineDag &dag, const ScheduleState &state, const KernelModel &k,
                                   std::set<std::string> &non_affine_producers) {
  PipelineFeatures pf{};
  for (int f : funcs_in_kernel(dag, state, k.root)) {
    const FuncNode &func = dag.funcs[f];
    const bool inlined = f != k.root && state.decisions[f].level == ComputeLevel::Inline;
    if (inlined) pf[kPfInlined] += 1;
    std::vector<const StageNode *> stages;
    if (f == k.root) stages.push_back(&func.stages[k.stage]);
    else if (inlined) stages.push_back(&func.stages[0]);
    else for (const StageNode &s : func.stages) stages.push_back(&s);
    for (const StageNode *s : stages) {
      pf[kPfStages] += 1;
      const ArithmeticOps ops = s->arithmetic_ops();
      pf[kPfBasicOps] += double(ops.basic);
      pf[kPfMathOps] += double(ops.math);
      const bool is_float = !func.types.empty() && func.types[0].is_float();
      pf[is_float ? kPfFloatStages : kPfIntStages] += 1;
      double steps = 1;
      bool scatter = false;
      for (const LoopDim &loop : s->loops) {
        if (loop.is_rvar) steps *= double(std::max<int64_t>(1, loop.estimate.extent()));
        if (s->index > 0 && !loop.is_rvar && !loop.is_pure) scatter = true;
      }
      if (s->has_rvars()) pf[kPfReductionSteps] += steps;
      if (scatter || (s->index > 0 && s->has_rvars() && s->atomic_safe)) pf[kPfScatterStages] += 1;
      for (const ProducerAccess &a : s->accesses) {
        count_access(dag, func, a, pf);
        if (!a.is_affine) non_affine_producers.insert(a.producer);
      }
    }
  }
  pf[kPfBytesPerPoint] = double(dag.funcs[k.root].bytes_per_point());
  return pf;
}

double region_points(const FuncNode &f) {
  double n = 1;
  for (const Span &s : f.region) n *= double(std::max<int64_t>(1, s.extent()));
  return n;
}

}  // namespace

KernelFeatures kernel_features(const PipelineDag &dag, const ScheduleState &state, const KernelModel &k,
                               const GpuProfile &gpu) {
  KernelFeatures out;
  std::set<std::string> non_affine;
  out.pipeline = pipeline_features(dag, state, k, non_affine);

  // The hand model twice: as is, and without the reads whose regions are not affine (their
  // footprints are the kernel model's least certain numbers: a clamp's window over whole loops).
  const KernelCost full = cost_of_kernel(k, gpu);
  const bool reads_non_affine = std::any_of(k.global_reads.begin(), k.global_reads.end(),
                                            [&non_affine](const GlobalRead &g) { return non_affine.count(g.name) > 0; });
  KernelCost affine = full;
  if (reads_non_affine) {
    KernelModel affine_only = k;
    affine_only.global_reads.clear();
    for (const GlobalRead &g : k.global_reads)
      if (!non_affine.count(g.name)) affine_only.global_reads.push_back(g);
    affine = cost_of_kernel(affine_only, gpu);
  }

  CostTerms &t = out.terms_ms;
  t[kTermLatency] = term(affine, "latency");
  t[kTermSync] = term(affine, "sync");
  t[kTermLaunch] = term(affine, "launch");
  t[kTermThroughput] = affine.total_ms - t[kTermLatency] - t[kTermSync] - t[kTermLaunch];
  t[kTermNonAffineExcess] = full.total_ms - affine.total_ms;
  // Each level alone from the affine reads only: a non-affine read's footprint can be the whole
  // producer per block (the mirror_interior pyramid's 74 GB for 4.2M points), and a term that is
  // off by 10,000x in some kernels and right in others cannot be fixed by a coefficient. The
  // non-affine reads get their own, bounded terms below.
  t[kTermCompute] = term(affine, "compute");
  t[kTermDram] = term(affine, "dram");
  t[kTermL2] = term(affine, "l2");
  t[kTermL1] = term(affine, "l1");
  t[kTermSharedMemory] = term(affine, "shared_memory");
  t[kTermAtomics] = term(affine, "atomics");
  out.hand_ms = full.total_ms;

  const double ms = 1e3;
  double loads = 0, footprint_bytes = 0, coalescing_weighted = 0, non_affine_bytes = 0, min_coalescing = 1;
  for (const GlobalRead &g : k.global_reads) {
    loads += g.loads_per_block;
    const double bytes = g.footprint_per_block * g.bytes_per_element;
    footprint_bytes += bytes;
    if (non_affine.count(g.name)) non_affine_bytes += bytes;
    coalescing_weighted += g.loads_per_block * g.coalescing_efficiency;
    min_coalescing = std::min(min_coalescing, g.coalescing_efficiency);
  }
  double shared_bytes = 0, local_bytes = 0, fused_points = 0, fused_needed = 0, conflicts = 1;
  double fused_block = 0, fused_thread = 0, in_registers = 0;
  for (const FusedFunc &f : k.fused) {
    fused_points += f.points_per_block;
    if (f.func >= 0 && f.func != k.root) fused_needed += region_points(dag.funcs[f.func]) / std::max(1.0, k.blocks);
    if (f.level == ComputeLevel::Block) {
      fused_block += 1;
      shared_bytes += f.bytes_per_block;
      conflicts = std::max(conflicts, f.bank_conflict_ways);
    } else {
      fused_thread += 1;
      if (f.in_registers) in_registers += 1;
      else local_bytes += (f.points_per_block + f.loads_by_consumers) * 4;
    }
  }

  const double warps = std::ceil(k.threads_per_block / gpu.warp_size);
  const double slots = std::max(1.0, full.occupancy * gpu.max_warps_per_sm / std::max(1.0, warps)) * gpu.sm_count;
  const double waves = std::ceil(k.blocks / slots);
  const double load_lanes_per_s = gpu.fp32_ops_per_s / 4;  // load/store units: a quarter of the FP32 lanes
  t[kTermStores] = k.store_bytes / gpu.dram_bandwidth_bytes_per_s * ms;
  t[kTermLoadIssue] = k.blocks * loads / load_lanes_per_s * ms;
  t[kTermLocalMemory] = k.blocks * local_bytes / gpu.l1_bandwidth_bytes_per_s * ms;
  // Computed with a sibling (KernelModel::computed_with): the sibling's launch dispatches the
  // blocks, and the kernel's minimum time is the sibling's.
  const bool own_launch = k.computed_with < 0;
  t[kTermBlockOverhead] = own_launch ? k.blocks / gpu.sm_count * 1e-6 * ms : 0.0;
  t[kTermLowOccupancyMemory] = std::max({t[kTermDram], t[kTermL2], t[kTermL1]}) * (1 - full.occupancy);
  const double ideal_compute =
      k.blocks * (k.ops_per_block / gpu.fp32_ops_per_s + k.math_ops_per_block / gpu.special_function_ops_per_s) * ms;
  t[kTermIdleLanes] = std::max(0.0, t[kTermCompute] - ideal_compute);
  // Non-affine reads, bounded: a block cannot touch more distinct elements than it issues loads.
  double non_affine_dram_bytes = 0, non_affine_sector_bytes = 0;
  for (const GlobalRead &g : k.global_reads) {
    if (!non_affine.count(g.name)) continue;
    const double touched = k.blocks * std::min(g.footprint_per_block, g.loads_per_block) * g.bytes_per_element;
    const double unique = g.full_region * g.bytes_per_element;
    non_affine_dram_bytes += unique <= gpu.l2_cache_bytes ? std::min(touched, unique) : touched;
    non_affine_sector_bytes += k.blocks * g.loads_per_block * 32;
  }
  t[kTermNonAffineDram] = non_affine_dram_bytes / gpu.dram_bandwidth_bytes_per_s * ms;
  t[kTermNonAffineSectors] = non_affine_sector_bytes / gpu.l2_bandwidth_bytes_per_s * ms;
  // The hand model's launch is not part of a kernel's time on the GPU, and its other terms go to
  // zero for a one-thread kernel, which CUPTI still times at 0.6-0.8 us (random pipelines'
  // total_sum initializations).
  t[kTermKernelMinimum] = own_launch ? 1e-6 * ms : 0.0;
  // The hand model spreads atomic updates evenly over the Func's points; a histogram of data
  // that falls in few bins serializes them (hist_11 of a random pipeline: 0.0006 ms predicted,
  // 1.5 ms measured). Its worst case, for the network to weigh by what the kernel computes.
  const double waves_of_blocks = std::ceil(k.blocks / std::max(1.0, double(gpu.sm_count)));
  t[kTermAtomicsOneAddress] = (k.global_atomics * gpu.global_same_address_atomic_seconds +
                               waves_of_blocks * k.shared_atomics_per_block * gpu.shared_same_address_atomic_seconds) *
                              ms;
  // The hand model's own serial terms (v3), from the full model: throughput already holds them
  // at coefficient 1 (wave_tail, fused_chain added; reduction_chain inside the max), so their
  // hand coefficient here is 0 and the network can weight them beyond it, kernel by kernel.
  t[kTermWaveTail] = term(full, "wave_tail");
  t[kTermFusedChain] = term(full, "fused_chain");
  t[kTermReductionChain] = term(full, "reduction_chain");

  ScheduleFeatures &s = out.schedule;
  const StageTiling *tiling = k.tiling;
  const int inner = tiling && !tiling->single_thread ? tiling->innermost_thread_loop() : -1;
  s[kSfBlocks] = k.blocks;
  s[kSfThreadsPerBlock] = k.threads_per_block;
  s[kSfWarpsPerBlock] = warps;
  s[kSfPointsPerBlock] = k.points_per_block;
  s[kSfPointsPerThread] = k.points_per_block / std::max(1.0, k.threads_per_block);
  s[kSfInnerThreadExtent] = inner >= 0 ? double(tiling->threads[size_t(inner)]) : 1.0;
  s[kSfWastedFraction] = k.wasted_points_fraction;
  s[kSfOccupancy] = full.occupancy;
  s[kSfRegistersPerThread] = k.registers_per_thread;
  s[kSfOpsPerBlock] = k.ops_per_block;
  s[kSfMathOpsPerBlock] = k.math_ops_per_block;
  s[kSfStoreBytes] = k.store_bytes;
  s[kSfStoreEfficiency] = k.store_efficiency;
  s[kSfGlobalReads] = double(k.global_reads.size());
  s[kSfFootprintBytesPerBlock] = footprint_bytes;
  s[kSfLoadsPerBlock] = loads;
  s[kSfMinCoalescing] = min_coalescing;
  s[kSfMeanCoalescing] = loads > 0 ? coalescing_weighted / loads : 1.0;
  s[kSfNonAffineBytesFraction] = footprint_bytes > 0 ? non_affine_bytes / footprint_bytes : 0.0;
  s[kSfFusedBlock] = fused_block;
  s[kSfFusedThread] = fused_thread;
  s[kSfFusedInRegisters] = in_registers;
  s[kSfSharedBytesPerBlock] = shared_bytes;
  s[kSfBankConflictWays] = conflicts;
  s[kSfFusedPointsPerBlock] = fused_points;
  s[kSfRecomputeRatio] = fused_needed > 0 ? fused_points / fused_needed : 1.0;
  s[kSfLocalBytesPerBlock] = local_bytes;
  s[kSfGlobalAtomics] = k.global_atomics;
  s[kSfSharedAtomicsPerBlock] = k.shared_atomics_per_block;
  s[kSfAtomicContention] = (k.global_atomics + k.shared_atomics_per_block) / std::max(1.0, k.atomic_addresses);
  s[kSfWaves] = waves;
  s[kSfSingleThread] = tiling && tiling->single_thread ? 1 : 0;
  s[kSfAtomic] = tiling && tiling->atomic ? 1 : 0;
  s[kSfPrivatized] = tiling && tiling->privatized ? 1 : 0;
  return out;
}

}  // namespace hlsched
