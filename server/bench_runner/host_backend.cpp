// Backend that runs CPU-target pipelines on the host: buffers live in their host memory, times
// are wall-clock. It exists so that the whole runner can be tested without a GPU.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "backend.h"

namespace hlsched::bench {
namespace {

class HostBackend : public Backend {
public:
  std::string name() const override { return "host"; }

  nlohmann::json device_info() const override {
    return {{"backend", "host"}, {"name", "host CPU"}, {"threads", std::thread::hardware_concurrency()}};
  }

  void attach_input(Halide::Runtime::Buffer<void> &) override {}
  void attach_output(Halide::Runtime::Buffer<void> &) override {}
  void poison_output(Halide::Runtime::Buffer<void> &buffer) override {
    std::memset(buffer.data(), 0xFF, buffer.raw_buffer()->size_in_bytes());
  }
  void fetch_output(Halide::Runtime::Buffer<void> &) override {}
  void detach(Halide::Runtime::Buffer<void> &) override {}

  double timed_call(const std::function<int()> &call, int &status) override {
    const auto start = std::chrono::steady_clock::now();
    status = call();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  void synchronize() override {}

  CopyBandwidth measure_copy_bandwidth() override {
    constexpr std::size_t kBytes = std::size_t(128) << 20;
    std::vector<char> a(kBytes, 0x5A), b(kBytes);
    std::vector<double> samples;
    for (int i = 0; i < 6; i++) {
      int status = 0;
      const double ms = timed_call([&] { std::memcpy(b.data(), a.data(), kBytes); return 0; }, status);
      if (i >= 1) samples.push_back(ms);
    }
    std::sort(samples.begin(), samples.end());
    CopyBandwidth bw;
    bw.bytes_moved = 2.0 * double(kBytes);
    bw.milliseconds = samples[samples.size() / 2];
    bw.gb_per_s = bw.bytes_moved / (bw.milliseconds * 1e-3) / 1e9;
    return bw;
  }

  KernelTrace *kernel_trace(std::string &why_not) override {
    why_not = "no kernels on the host backend";
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

}  // namespace hlsched::bench
