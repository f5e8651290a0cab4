// What the learned cost model sees of one kernel: numbers describing the algorithm it computes
// (pipeline features), numbers describing how the schedule runs it (schedule features), and the
// named cost terms whose non-negative weighted sum is its predicted time.
//
// Every number comes from the kernel model (kernel_model.h) and the hand cost model
// (gpu_cost_model.h): the terms are the hand model's, split so that a coefficient can correct a
// part of them, plus terms the hand model lacks. With the coefficients of hand_coefficients() the
// sum of the terms is exactly the hand model's prediction. docs/COST_MODEL.md has the table.
//
// Bump kFeatureVersion whenever a feature or term changes meaning: weights and feature caches
// record the version they were made with and are refused by another one.
#pragma once

#include <array>
#include <cstddef>

#include "cost/gpu_cost_model.h"
#include "cost/kernel_model.h"
#include "search/schedule_state.h"

namespace hlsched {

constexpr int kFeatureVersion = 3;
/// Version 3 = version 2 plus the last three terms: weights of version 2 still load, their
/// network reading the new terms with zero weights (the same predictions as before).
constexpr int kPreviousFeatureVersion = 2;
constexpr int kTermsAddedInVersion3 = 3;

/// Every profile's launch was halved in session forty-three (measured again, a cost per call
/// added): the launch terms that weights and format-1 feature files were made with are this many
/// times today's.
constexpr double kOldLaunchPerLaunch = 2.0;

/// The cost terms, in ms. hand_coefficients() gives their weights in the hand model.
enum CostTerm : int {
  kTermThroughput,        ///< the hand model's overlapped max(compute, memory, shared, atomics), affine reads only
  kTermLatency,           ///< the hand model's latency term (too few warps), affine reads only
  kTermSync,              ///< __syncthreads between fused stages
  kTermLaunch,            ///< kernel launch overhead
  kTermNonAffineExcess,   ///< what reads through clamps, boundary conditions and gathers add to the hand model
  kTermCompute,           ///< arithmetic / throughput alone (additive correction)
  kTermDram,              ///< DRAM traffic alone (v2: affine reads only, as the three below)
  kTermL2,                ///< L2 traffic alone
  kTermL1,                ///< L1 / load-store traffic alone
  kTermSharedMemory,      ///< shared memory traffic alone
  kTermAtomics,           ///< same-address atomic chains
  kTermStores,            ///< bytes stored / DRAM bandwidth
  kTermLoadIssue,         ///< global load instructions / the SMs' issue rate
  kTermLocalMemory,       ///< per-thread arrays not in registers (local memory traffic)
  kTermBlockOverhead,     ///< per-block scheduling cost (blocks per SM x 1 us)
  kTermLowOccupancyMemory,///< memory time x (1 - occupancy)
  kTermIdleLanes,         ///< compute lost to idle lanes, idle SMs and tail tiles
  kTermNonAffineDram,     ///< v2: non-affine reads' bytes, per block at most one element per load, / DRAM bandwidth
  kTermNonAffineSectors,  ///< v2: non-affine reads' loads x one 32-byte sector each (a gather's worst case) / L2 bandwidth
  kTermKernelMinimum,     ///< v2: 1 us per kernel: the shortest kernel CUPTI times runs ~0.6 us
  kTermAtomicsOneAddress, ///< v2: every atomic update of the kernel on one address (data that fills few bins)
  kTermWaveTail,          ///< v3: the hand model's wave_tail (waves x warps per block x dispatch), also in throughput
  kTermFusedChain,        ///< v3: the hand model's fused_chain (fused points per thread waiting in turn), also in throughput
  kTermReductionChain,    ///< v3: the hand model's reduction_chain (waves x a thread's reduction steps), inside throughput's max
  kTermCount
};

/// Pipeline features: what the kernel computes, independent of how (sums over its stages).
enum PipelineFeature : int {
  kPfStages,              ///< stages computed in the kernel (root, inlined, fused)
  kPfInlined,             ///< inlined Funcs reached
  kPfBasicOps,            ///< arithmetic ops per point of the root stage, summed over its stages
  kPfMathOps,             ///< transcendental ops per point
  kPfFloatStages,         ///< stages producing floating point values
  kPfIntStages,           ///< stages producing integers
  kPfBytesPerPoint,       ///< of the root Func
  kPfPointwiseReads,      ///< call sites reading the consumer's own point
  kPfStencilReads,        ///< affine unit-stride reads of a window (stencils)
  kPfDownsampleReads,     ///< affine reads with a coefficient > 1 (strided, downsampling)
  kPfUpsampleReads,       ///< affine reads with a coefficient < 1 (upsampling)
  kPfTransposeReads,      ///< affine reads whose innermost coordinate follows another loop
  kPfGatherReads,         ///< non-affine reads (data-dependent, clamps)
  kPfBoundaryReads,       ///< reads of a boundary-condition Func
  kPfInputReads,          ///< reads of pipeline inputs
  kPfReductionSteps,      ///< reduction loop iterations per point of the stages with rvars
  kPfScatterStages,       ///< update stages writing where the pure vars do not say (histograms)
  kPfCallsPerPoint,       ///< all call sites
  kPfCount
};

/// Schedule features: how the kernel runs (raw values; the network takes log(1 + x)).
enum ScheduleFeature : int {
  kSfBlocks,
  kSfThreadsPerBlock,
  kSfWarpsPerBlock,
  kSfPointsPerBlock,
  kSfPointsPerThread,
  kSfInnerThreadExtent,   ///< threads along the coalescing dimension
  kSfWastedFraction,      ///< tile points beyond the region
  kSfOccupancy,
  kSfRegistersPerThread,
  kSfOpsPerBlock,
  kSfMathOpsPerBlock,
  kSfStoreBytes,
  kSfStoreEfficiency,
  kSfGlobalReads,         ///< producers read from global memory
  kSfFootprintBytesPerBlock,
  kSfLoadsPerBlock,
  kSfMinCoalescing,
  kSfMeanCoalescing,      ///< weighted by loads
  kSfNonAffineBytesFraction,
  kSfFusedBlock,          ///< Funcs fused per block (shared memory)
  kSfFusedThread,         ///< Funcs fused per thread
  kSfFusedInRegisters,
  kSfSharedBytesPerBlock,
  kSfBankConflictWays,    ///< worst
  kSfFusedPointsPerBlock, ///< with recompute
  kSfRecomputeRatio,      ///< fused points per block / their boxes' points without overlap
  kSfLocalBytesPerBlock,
  kSfGlobalAtomics,
  kSfSharedAtomicsPerBlock,
  kSfAtomicContention,    ///< atomics per address
  kSfWaves,
  kSfSingleThread,
  kSfAtomic,
  kSfPrivatized,
  kSfCount
};

using PipelineFeatures = std::array<double, kPfCount>;
using ScheduleFeatures = std::array<double, kSfCount>;
using CostTerms = std::array<double, kTermCount>;

struct KernelFeatures {
  PipelineFeatures pipeline{};
  ScheduleFeatures schedule{};
  CostTerms terms_ms{};
  double hand_ms = 0;  ///< the hand model's prediction (equals the terms' sum with hand coefficients)
};

const std::array<const char *, kTermCount> &cost_term_names();
const std::array<const char *, kPfCount> &pipeline_feature_names();
const std::array<const char *, kSfCount> &schedule_feature_names();

/// The coefficients with which the terms sum to the hand model's prediction.
const CostTerms &hand_coefficients();

/// The features and terms of a valid kernel of `state`.
KernelFeatures kernel_features(const PipelineDag &dag, const ScheduleState &state, const KernelModel &kernel,
                               const GpuProfile &gpu);

}  // namespace hlsched
