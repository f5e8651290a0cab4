// The few CUDA driver API entry points the benchmark runner needs, loaded at run time from the
// driver's libcuda.so.1 (the GPU machine has the driver but no toolkit of ours, and the runner
// must start without it to offer --dry-run anywhere).
//
// The declarations are written here rather than taken from the toolkit's cuda.h so that the
// runner builds on machines without a CUDA toolkit (CI). They use the driver's versioned symbol
// names (cuMemAlloc_v2, ...), whose ABI NVIDIA keeps stable; Halide's own runtime does the same.
//
// Threading: load once, then the function pointers may be used from any thread (the driver API
// is thread-safe; the context must be current on the calling thread).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace hlsched::bench {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult kCudaSuccess = 0;

// CUfunc_cache (values from cuda.h): the context's preferred split of each SM's L1 and shared
// memory. On GPUs where they are one array (sm_70 on) the driver turns it into its carve-out.
enum CudaCacheConfig : int {
  kCachePreferNone = 0,
  kCachePreferShared = 1,
  kCachePreferL1 = 2,
  kCachePreferEqual = 3,
};

// cuDeviceGetAttribute attributes (values from cuda.h).
enum CudaDeviceAttribute : int {
  kAttrMultiprocessorCount = 16,
  kAttrMemoryClockRateKHz = 36,
  kAttrGlobalMemoryBusWidthBits = 37,
  kAttrL2CacheSizeBytes = 38,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
};

/// A CUDA call that failed: the call's text, the driver's error name and description.
class CudaError : public std::runtime_error {
public:
  CudaError(const std::string &what, CUresult code) : std::runtime_error(what), code_(code) {}
  CUresult code() const { return code_; }

private:
  CUresult code_;
};

/// "none", "shared", "l1", "equal" (the runner's --cache-config, checked with it) as a CudaCacheConfig; throws
/// std::invalid_argument listing those for anything else.
CudaCacheConfig cache_config_from_name(const std::string &name);

struct CudaDriver {
  /// dlopen()s libcuda.so.1 (then libcuda.so) and resolves every entry point; throws
  /// std::runtime_error saying which one is missing.
  static const CudaDriver &load();

  void *library = nullptr;
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(std::size_t *bytes, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuCtxSetCacheConfig)(int config) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, std::size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void *source, std::size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *destination, CUdeviceptr source, std::size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source, std::size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value, std::size_t count) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start, CUevent end) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;

  /// Throws CudaError("<what>: CUDA_ERROR_X (description)") unless `result` is success.
  void check(CUresult result, const char *what) const;
};

}  // namespace hlsched::bench
