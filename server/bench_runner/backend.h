// Where pipelines run: on the GPU through the CUDA driver (the benchmark), or on the host CPU
// (bundles built for a CPU target, which test the whole runner on machines without a GPU).
//
// A backend owns the device side of the buffers it attaches: inputs are uploaded once and stay
// resident (pipelines then never copy them), outputs get device memory the pipelines write into.
//
// Threading: one backend per process, used from one thread.
#pragma once

#include <HalideBuffer.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "kernel_trace.h"

namespace hlsched::bench {

/// A large device-to-device copy: the practical ceiling of memory bandwidth on this device.
struct CopyBandwidth {
  double bytes_moved = 0;   ///< bytes read + bytes written per copy
  double milliseconds = 0;  ///< median over the timed copies
  double gb_per_s = 0;      ///< bytes_moved / time, in 1e9 bytes per second
};

class Backend {
public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;  ///< "cuda" or "host"
  /// Facts about the device for the results (name, multiprocessors, memory, driver, ...).
  virtual nlohmann::json device_info() const = 0;

  /// The buffer's host memory holds the input; make it resident where pipelines read it.
  virtual void attach_input(Halide::Runtime::Buffer<void> &buffer) = 0;
  /// Give an output buffer the memory pipelines write into.
  virtual void attach_output(Halide::Runtime::Buffer<void> &buffer) = 0;
  /// Fill an attached output with 0xFF bytes (NaN for floats) where pipelines write it, so that
  /// elements a pipeline fails to write are caught by the output check.
  virtual void poison_output(Halide::Runtime::Buffer<void> &buffer) = 0;
  /// Bring what a pipeline wrote into the buffer's host memory.
  virtual void fetch_output(Halide::Runtime::Buffer<void> &buffer) = 0;
  /// Release what attach_* allocated; call before the buffer is destroyed.
  virtual void detach(Halide::Runtime::Buffer<void> &buffer) = 0;

  /// Runs `call` once; returns the time it took in ms (CUDA: between events recorded on the
  /// pipelines' stream before and after it, so it includes every kernel it launched) and its
  /// return value in `status`.
  virtual double timed_call(const std::function<int()> &call, int &status) = 0;
  /// Waits for all work on the device.
  virtual void synchronize() = 0;

  virtual CopyBandwidth measure_copy_bandwidth() = 0;

  /// The kernel tracer, or null with `why_not` set.
  virtual KernelTrace *kernel_trace(std::string &why_not) = 0;
};

/// Initializes CUDA on device 0 and points Halide's CUDA runtime at our context and stream.
/// `library_dir` holds the bundle's libcupti.so. Throws on any failure.
/// `cache_config`: the context's preferred L1/shared split (cache_config_from_name).
std::unique_ptr<Backend> make_cuda_backend(const std::string &library_dir, const std::string &cache_config = "none");

std::unique_ptr<Backend> make_host_backend();

}  // namespace hlsched::bench
