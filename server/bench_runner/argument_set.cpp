#include "argument_set.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "input_values.h"

namespace hlsched::bench {
namespace {

Halide::Runtime::Buffer<void> allocate(const ArgumentSpec &spec) {
  std::vector<int> sizes, mins;
  for (size_t d = 0; d < spec.extents.size(); d++) {
    sizes.push_back(int(spec.extents[d]));
    mins.push_back(int(spec.mins[d]));
  }
  Halide::Runtime::Buffer<void> buffer(spec.type, sizes);
  buffer.set_min(mins);
  return buffer;
}

}  // namespace

ArgumentSet::ArgumentSet(const std::vector<ArgumentSpec> &specs, const AppEntry &app, int set_index, Backend &backend)
    : backend_(backend) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (const ArgumentSpec &spec : specs) {
    if (!spec.is_buffer()) {
      scalars_[spec.name] = spec.scalar;
    } else if (spec.is_output()) {
      auto &buffer = outputs_[spec.name] = allocate(spec);
      backend_.attach_output(buffer);
    } else {
      auto &buffer = inputs_[spec.name] = allocate(spec);
      auto range = app.input_ranges.find(spec.name);
      fill_deterministic(buffer, range != app.input_ranges.end() ? range->second : default_value_range(spec.type),
                         input_seed(app.name, spec.name, set_index), threads);
      backend_.attach_input(buffer);
    }
  }
}

ArgumentSet::~ArgumentSet() {
  for (auto *buffers : {&inputs_, &outputs_})
    for (auto &[name, buffer] : *buffers) backend_.detach(buffer);
}

std::vector<void *> ArgumentSet::argv(const halide_filter_metadata_t &metadata) {
  std::vector<void *> args;
  for (int i = 0; i < metadata.num_arguments; i++) {
    const std::string name = metadata.arguments[i].name;
    if (auto it = inputs_.find(name); it != inputs_.end()) args.push_back(it->second.raw_buffer());
    else if (auto out = outputs_.find(name); out != outputs_.end()) args.push_back(out->second.raw_buffer());
    else if (auto s = scalars_.find(name); s != scalars_.end()) args.push_back(&s->second);
    else throw std::runtime_error(std::string(metadata.name) + " takes an argument '" + name + "' that its app's other variants do not");
  }
  return args;
}

int64_t input_bytes(const std::vector<ArgumentSpec> &specs) {
  int64_t total = 0;
  for (const auto &s : specs)
    if (s.is_buffer() && !s.is_output()) total += s.bytes();
  return total;
}

int64_t output_bytes(const std::vector<ArgumentSpec> &specs) {
  int64_t total = 0;
  for (const auto &s : specs)
    if (s.is_output()) total += s.bytes();
  return total;
}

int64_t working_set_bytes(const std::vector<ArgumentSpec> &specs) { return input_bytes(specs) + output_bytes(specs); }

int input_set_count(int64_t working_set, int64_t rotate_below, int64_t rotate_target, int max_sets) {
  if (working_set >= rotate_below || working_set <= 0) return 1;
  const int64_t wanted = (rotate_target + working_set - 1) / working_set;
  return int(std::clamp<int64_t>(wanted, 1, max_sets));
}

}  // namespace hlsched::bench
