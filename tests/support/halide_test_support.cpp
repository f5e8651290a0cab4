#include <algorithm>
#include "halide_test_support.h"

#include <stdexcept>

#include "hlsched/engine/compile_check.h"
#include "hlsched/engine/pipeline_walk.h"

namespace hlsched::testing {
namespace {

Halide::Internal::Parameter find_input(const Halide::Pipeline &pipeline, const std::string &name) {
  for (auto &param : pipeline_input_parameters(pipeline))
    if (param.name() == name) return param;
  throw std::runtime_error("pipeline has no input named '" + name + "'");
}

}  // namespace

Halide::Target cpu_target() { return safe_host_target().with_feature(Halide::Target::StrictFloat); }

void schedule_compute_root_everywhere(const Halide::Pipeline &pipeline) {
  for (auto &[name, function] : pipeline_functions(pipeline)) {
    Halide::Func func(function);
    if (!function.has_extern_definition()) func.compute_root();
  }
}

void bind_input(const Halide::Pipeline &pipeline, const std::string &name, const Halide::Buffer<> &buffer) {
  Halide::Internal::Parameter param = find_input(pipeline, name);
  if (!param.is_buffer()) throw std::runtime_error("input '" + name + "' is a scalar, not a buffer");
  param.set_buffer(buffer);
}

template <typename T>
void bind_scalar(const Halide::Pipeline &pipeline, const std::string &name, T value) {
  Halide::Internal::Parameter param = find_input(pipeline, name);
  if (param.is_buffer()) throw std::runtime_error("input '" + name + "' is a buffer, not a scalar");
  param.set_scalar<T>(value);
}

template void bind_scalar<float>(const Halide::Pipeline &, const std::string &, float);
template void bind_scalar<double>(const Halide::Pipeline &, const std::string &, double);
template void bind_scalar<int32_t>(const Halide::Pipeline &, const std::string &, int32_t);
template void bind_scalar<uint8_t>(const Halide::Pipeline &, const std::string &, uint8_t);
template void bind_scalar<uint16_t>(const Halide::Pipeline &, const std::string &, uint16_t);

std::string compile_for_cuda(const Halide::Pipeline &pipeline) {
  return compile_pipeline(pipeline, default_gpu_target()).lowered_stmt;
}

bool launches_gpu_kernels(const std::string &lowered_stmt) {
  return lowered_stmt.find("halide_cuda_run(") != std::string::npos;
}

std::vector<std::string> launch_thread_extents(const std::string &lowered_stmt, const std::string &kernel) {
  std::vector<std::string> out;
  const std::string call = "halide_cuda_run(";
  for (size_t at = lowered_stmt.find(call); at != std::string::npos; at = lowered_stmt.find(call, at + 1)) {
    const std::string line = lowered_stmt.substr(at, lowered_stmt.find('\n', at) - at);
    if (!kernel.empty() && line.find(kernel) == std::string::npos) continue;
    size_t pos = call.size();
    for (int arg = 0; arg < 8; arg++) {
      const size_t comma = line.find(", ", pos);
      if (arg >= 5) out.push_back(line.substr(pos, comma - pos));
      pos = comma + 2;
    }
  }
  return out;
}

bool is_number(const std::string &extent) {
  return !extent.empty() && std::all_of(extent.begin(), extent.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<int64_t> launch_block_threads(const std::string &lowered_stmt) {
  const std::vector<std::string> extents = launch_thread_extents(lowered_stmt);
  if (extents.size() % 3 != 0) throw std::logic_error("kernel launches with other than three thread extents");
  std::vector<int64_t> out;
  for (size_t k = 0; k < extents.size(); k += 3) {
    int64_t threads = 1;
    for (size_t d = k; d < k + 3; d++) threads = is_number(extents[d]) && threads > 0 ? threads * std::stoll(extents[d]) : -1;
    out.push_back(threads);
  }
  return out;
}

int64_t count_differences(const Halide::Buffer<> &a, const Halide::Buffer<> &b) {
  if (a.size_in_bytes() != b.size_in_bytes())
    throw std::invalid_argument("outputs of " + std::to_string(a.size_in_bytes()) + " and " +
                                std::to_string(b.size_in_bytes()) + " bytes");
  int64_t n = 0;
  const auto *x = static_cast<const uint8_t *>(a.data()), *y = static_cast<const uint8_t *>(b.data());
  for (size_t i = 0; i < a.size_in_bytes(); i++) n += x[i] != y[i];
  return n;
}

Halide::ImageParam float_input_512x512() {
  Halide::ImageParam in(Halide::Float(32), 2, "in");
  in.dim(0).set_estimate(0, 512);
  in.dim(1).set_estimate(0, 512);
  return in;
}

int func_named(const PipelineDag &dag, const std::string &name) {
  for (size_t f = 0; f < dag.funcs.size(); f++) {
    const std::string &n = dag.funcs[f].name;
    if (n == name || n.rfind(name + "$", 0) == 0) return int(f);
  }
  return -1;
}

}  // namespace hlsched::testing
