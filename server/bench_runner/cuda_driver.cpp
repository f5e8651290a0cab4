#include "cuda_driver.h"

#include <dlfcn.h>

#include <stdexcept>

namespace hlsched::bench {
namespace {

template <typename Fn>
void resolve(void *library, const char *symbol, Fn &slot) {
  slot = reinterpret_cast<Fn>(::dlsym(library, symbol));
  if (!slot) throw std::runtime_error(std::string("the CUDA driver has no ") + symbol);
}

CudaDriver load_driver() {
  CudaDriver d;
  // The loader's search path first; then where NVIDIA's container runtimes mount the driver.
  for (const char *name : {"libcuda.so.1", "libcuda.so", "/usr/local/nvidia/lib64/libcuda.so.1",
                           "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1"}) {
    d.library = ::dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (d.library) break;
  }
  if (!d.library) throw std::runtime_error("cannot load the CUDA driver (libcuda.so.1) from the library path or its usual places");
  resolve(d.library, "cuInit", d.cuInit);
  resolve(d.library, "cuDriverGetVersion", d.cuDriverGetVersion);
  resolve(d.library, "cuDeviceGet", d.cuDeviceGet);
  resolve(d.library, "cuDeviceGetName", d.cuDeviceGetName);
  resolve(d.library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute);
  resolve(d.library, "cuDeviceTotalMem_v2", d.cuDeviceTotalMem);
  resolve(d.library, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain);
  resolve(d.library, "cuCtxSetCurrent", d.cuCtxSetCurrent);
  resolve(d.library, "cuCtxSynchronize", d.cuCtxSynchronize);
  resolve(d.library, "cuCtxSetCacheConfig", d.cuCtxSetCacheConfig);
  resolve(d.library, "cuMemAlloc_v2", d.cuMemAlloc);
  resolve(d.library, "cuMemFree_v2", d.cuMemFree);
  resolve(d.library, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD);
  resolve(d.library, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH);
  resolve(d.library, "cuMemcpyDtoDAsync_v2", d.cuMemcpyDtoDAsync);
  resolve(d.library, "cuMemsetD8_v2", d.cuMemsetD8);
  resolve(d.library, "cuEventCreate", d.cuEventCreate);
  resolve(d.library, "cuEventRecord", d.cuEventRecord);
  resolve(d.library, "cuEventSynchronize", d.cuEventSynchronize);
  resolve(d.library, "cuEventElapsedTime", d.cuEventElapsedTime);
  resolve(d.library, "cuEventDestroy_v2", d.cuEventDestroy);
  resolve(d.library, "cuGetErrorName", d.cuGetErrorName);
  resolve(d.library, "cuGetErrorString", d.cuGetErrorString);
  return d;
}

}  // namespace

CudaCacheConfig cache_config_from_name(const std::string &name) {
  if (name == "none") return kCachePreferNone;
  if (name == "shared") return kCachePreferShared;
  if (name == "l1") return kCachePreferL1;
  if (name == "equal") return kCachePreferEqual;
  throw std::invalid_argument("'" + name + "' is not one of none, shared, l1, equal");
}

const CudaDriver &CudaDriver::load() {
  static const CudaDriver driver = load_driver();
  return driver;
}

void CudaDriver::check(CUresult result, const char *what) const {
  if (result == kCudaSuccess) return;
  const char *name = "?", *text = "?";
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  throw CudaError(std::string(what) + ": " + name + " (" + text + ")", result);
}

}  // namespace hlsched::bench
