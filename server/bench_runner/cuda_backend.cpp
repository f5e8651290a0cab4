// Backend on the CUDA driver API. Halide's CUDA runtime (linked into the runner from the bundle's
// runtime library) is told to use our context and the legacy default stream, so that our events
// bracket exactly the kernels a pipeline launches, and to reuse device allocations between calls
// (as a real application would; otherwise every call pays cuMemAlloc/cuMemFree for its
// intermediate buffers, and cuMemFree synchronizes).
//
// Halide 14's runtime looks the driver up with dlopen("libcuda.so"), a name only the CUDA
// toolkit's development package provides; we hand it the libcuda.so.1 we already loaded.
#include <HalideRuntimeCuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend.h"
#include "cuda_driver.h"

// Only CUDA-target runtimes define these; a runner linked with a host-only runtime never creates
// this backend, and must still link.
#pragma weak halide_cuda_device_interface
#pragma weak halide_set_cuda_acquire_context
#pragma weak halide_set_cuda_release_context
#pragma weak halide_set_cuda_get_stream

namespace hlsched::bench {
namespace {

CUcontext g_context = nullptr;  // the context Halide's runtime uses (set once, before any pipeline)

int acquire_context(void *, void **context, bool) {
  *context = g_context;
  return 0;
}
int release_context(void *) { return 0; }
int get_stream(void *, void *, void **stream) {
  *stream = nullptr;  // the legacy default stream, where our events are recorded too
  return 0;
}

void *load_library(const char *name) {
  if (std::strncmp(name, "libcuda.so", 10) == 0) return CudaDriver::load().library;
  return ::dlopen(name, RTLD_LAZY);
}

class CudaEvent {
public:
  explicit CudaEvent(const CudaDriver &cu) : cu_(cu) { cu_.check(cu_.cuEventCreate(&event_, 0), "cuEventCreate"); }
  ~CudaEvent() { cu_.cuEventDestroy(event_); }
  CudaEvent(const CudaEvent &) = delete;
  CudaEvent &operator=(const CudaEvent &) = delete;
  CUevent get() const { return event_; }

private:
  const CudaDriver &cu_;
  CUevent event_ = nullptr;
};

class CudaBackend : public Backend {
public:
  CudaBackend(std::string library_dir, CudaCacheConfig cache_config)
      : cu_(CudaDriver::load()), library_dir_(std::move(library_dir)) {
    if (!halide_cuda_device_interface)
      throw std::runtime_error("this runner was linked with a Halide runtime without CUDA");
    // CUPTI's buffers are registered before CUDA starts, so that it sees every context and module;
    // kernel records are only switched on around the traced calls.
    std::string ignored;
    kernel_trace(ignored);
    cu_.check(cu_.cuInit(0), "cuInit");
    cu_.check(cu_.cuDeviceGet(&device_, 0), "cuDeviceGet");
    cu_.check(cu_.cuDevicePrimaryCtxRetain(&g_context, device_), "cuDevicePrimaryCtxRetain");
    cu_.check(cu_.cuCtxSetCurrent(g_context), "cuCtxSetCurrent");
    if (cache_config != kCachePreferNone) cu_.check(cu_.cuCtxSetCacheConfig(cache_config), "cuCtxSetCacheConfig");
    halide_set_custom_load_library(load_library);
    halide_set_cuda_acquire_context(acquire_context);
    halide_set_cuda_release_context(release_context);
    halide_set_cuda_get_stream(get_stream);
    halide_reuse_device_allocations(nullptr, true);
    start_ = std::make_unique<CudaEvent>(cu_);
    end_ = std::make_unique<CudaEvent>(cu_);
  }

  std::string name() const override { return "cuda"; }

  nlohmann::json device_info() const override {
    char name[256] = {0};
    cu_.cuDeviceGetName(name, sizeof name - 1, device_);
    auto attribute = [&](int a) {
      int value = 0;
      cu_.cuDeviceGetAttribute(&value, a, device_);
      return value;
    };
    std::size_t memory = 0;
    cu_.cuDeviceTotalMem(&memory, device_);
    int driver = 0;
    cu_.cuDriverGetVersion(&driver);
    return {{"backend", "cuda"},
            {"name", name},
            {"compute_capability", std::to_string(attribute(kAttrComputeCapabilityMajor)) + "." +
                                       std::to_string(attribute(kAttrComputeCapabilityMinor))},
            {"multiprocessors", attribute(kAttrMultiprocessorCount)},
            {"l2_bytes", attribute(kAttrL2CacheSizeBytes)},
            {"memory_bytes", memory},
            {"memory_clock_khz", attribute(kAttrMemoryClockRateKHz)},
            {"memory_bus_bits", attribute(kAttrGlobalMemoryBusWidthBits)},
            {"driver_version", driver}};
  }

  void attach_input(Halide::Runtime::Buffer<void> &buffer) override {
    const CUdeviceptr device = allocate(buffer);
    cu_.check(cu_.cuMemcpyHtoD(device, buffer.data(), bytes(buffer)), "cuMemcpyHtoD (input)");
    wrap(buffer, device);
  }

  void attach_output(Halide::Runtime::Buffer<void> &buffer) override { wrap(buffer, allocate(buffer)); }

  void poison_output(Halide::Runtime::Buffer<void> &buffer) override {
    cu_.check(cu_.cuMemsetD8(buffer.raw_buffer()->device, 0xFF, bytes(buffer)), "cuMemsetD8 (poison)");
    buffer.set_host_dirty(false);
    buffer.set_device_dirty(false);
  }

  void fetch_output(Halide::Runtime::Buffer<void> &buffer) override {
    synchronize();
    if (buffer.host_dirty()) return;  // the pipeline wrote it on the host
    cu_.check(cu_.cuMemcpyDtoH(buffer.data(), buffer.raw_buffer()->device, bytes(buffer)), "cuMemcpyDtoH (output)");
    buffer.set_device_dirty(false);
  }

  void detach(Halide::Runtime::Buffer<void> &buffer) override {
    const CUdeviceptr device = buffer.raw_buffer()->device;
    if (!device) return;
    buffer.device_detach_native();
    cu_.cuMemFree(device);
  }

  double timed_call(const std::function<int()> &call, int &status) override {
    cu_.check(cu_.cuEventRecord(start_->get(), nullptr), "cuEventRecord");
    status = call();
    cu_.check(cu_.cuEventRecord(end_->get(), nullptr), "cuEventRecord");
    cu_.check(cu_.cuEventSynchronize(end_->get()), "cuEventSynchronize (after the pipeline)");
    float ms = 0;
    cu_.check(cu_.cuEventElapsedTime(&ms, start_->get(), end_->get()), "cuEventElapsedTime");
    return ms;
  }

  void synchronize() override { cu_.check(cu_.cuCtxSynchronize(), "cuCtxSynchronize"); }

  CopyBandwidth measure_copy_bandwidth() override {
    // 2 GiB per copy (1 GiB read + 1 GiB written): far past the L2, long enough that launch
    // overhead is noise.
    constexpr std::size_t kBytes = std::size_t(1) << 30;
    CUdeviceptr a = 0, b = 0;
    cu_.check(cu_.cuMemAlloc(&a, kBytes), "cuMemAlloc (bandwidth)");
    cu_.check(cu_.cuMemAlloc(&b, kBytes), "cuMemAlloc (bandwidth)");
    cu_.check(cu_.cuMemsetD8(a, 0x5A, kBytes), "cuMemsetD8");
    std::vector<double> samples;
    for (int i = 0; i < 13; i++) {
      int status = 0;
      const double ms = timed_call([&] { return cu_.cuMemcpyDtoDAsync(b, a, kBytes, nullptr); }, status);
      cu_.check(status, "cuMemcpyDtoDAsync");
      if (i >= 3) samples.push_back(ms);  // the first copies warm up clocks and TLBs
    }
    cu_.cuMemFree(a);
    cu_.cuMemFree(b);
    std::sort(samples.begin(), samples.end());
    CopyBandwidth bw;
    bw.bytes_moved = 2.0 * double(kBytes);
    bw.milliseconds = samples[samples.size() / 2];
    bw.gb_per_s = bw.bytes_moved / (bw.milliseconds * 1e-3) / 1e9;
    return bw;
  }

  KernelTrace *kernel_trace(std::string &why_not) override {
    if (!trace_tried_) {
      trace_tried_ = true;
      trace_ = KernelTrace::create(library_dir_, trace_why_not_);
    }
    why_not = trace_why_not_;
    return trace_.get();
  }

private:
  static std::size_t bytes(const Halide::Runtime::Buffer<void> &buffer) { return buffer.raw_buffer()->size_in_bytes(); }

  CUdeviceptr allocate(const Halide::Runtime::Buffer<void> &buffer) {
    CUdeviceptr device = 0;
    cu_.check(cu_.cuMemAlloc(&device, std::max<std::size_t>(bytes(buffer), 1)), "cuMemAlloc");
    return device;
  }

  void wrap(Halide::Runtime::Buffer<void> &buffer, CUdeviceptr device) {
    if (buffer.device_wrap_native(halide_cuda_device_interface(), device) != 0) {
      cu_.cuMemFree(device);
      throw std::runtime_error("halide_cuda_wrap_device_ptr failed");
    }
    buffer.set_host_dirty(false);
    buffer.set_device_dirty(false);
  }

  const CudaDriver &cu_;
  std::string library_dir_;
  CUdevice device_ = 0;
  std::unique_ptr<CudaEvent> start_, end_;
  bool trace_tried_ = false;
  std::unique_ptr<KernelTrace> trace_;
  std::string trace_why_not_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const std::string &library_dir, const std::string &cache_config) {
  return std::make_unique<CudaBackend>(library_dir, cache_config_from_name(cache_config));
}

}  // namespace hlsched::bench
