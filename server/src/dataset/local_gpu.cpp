#include "dataset/local_gpu.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace hlsched::dataset {

int local_cuda_device_count() {
  if (const char *off = std::getenv("HLSCHED_NO_GPU"); off && *off && std::strcmp(off, "0") != 0) return 0;
  // The driver API's own signatures (cuda.h): CUresult is an int enum, 0 = CUDA_SUCCESS.
  using InitFn = int (*)(unsigned int);
  using CountFn = int (*)(int *);
  void *library = nullptr;
  for (const char *name : {"libcuda.so.1", "libcuda.so"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!library) return 0;
  // The library stays loaded: unloading a driver that initialized itself is not safe.
  const auto init = reinterpret_cast<InitFn>(dlsym(library, "cuInit"));
  const auto count_devices = reinterpret_cast<CountFn>(dlsym(library, "cuDeviceGetCount"));
  int count = 0;
  if (!init || !count_devices || init(0) != 0 || count_devices(&count) != 0) return 0;
  return count;
}

}  // namespace hlsched::dataset
