// Whether this machine has an NVIDIA GPU a benchmark bundle can run on: asks the CUDA driver
// itself (dlopen of libcuda.so.1, cuInit, cuDeviceGetCount), so nothing of the CUDA toolkit is
// needed to build hlsched, and a machine with the driver but no GPU (or no driver) answers 0.
#pragma once

namespace hlsched::dataset {

/// CUDA devices the driver reports; 0 without a driver, without a device, or on any error.
/// HLSCHED_NO_GPU=1 in the environment makes it 0 (dry runs, tests on a GPU machine).
int local_cuda_device_count();

}  // namespace hlsched::dataset
