#include "schedule_json.h"

#include <stdexcept>

namespace hlsched::server {

using nlohmann::json;

namespace {

// Each enum listed once, in declaration order, for both directions.
const std::vector<std::string> &kind_names() {
  static const std::vector<std::string> names = {"compute_root", "compute_at", "store_in", "split", "fuse",
                                                 "reorder", "gpu_tile", "gpu_blocks", "gpu_threads",
                                                 "gpu_single_thread", "unroll", "vectorize", "atomic", "rfactor",
                                                 "bound_extent", "align_bounds", "specialize_aligned", "compute_with",
                                                 "specialize_stage", "end_specialization", "align_storage"};
  return names;
}
const std::vector<std::string> &level_names() {
  static const std::vector<std::string> names = {"inline", "root", "block", "thread"};
  return names;
}

template <typename Enum>
Enum enum_from(const std::vector<std::string> &names, const std::string &name, const char *what) {
  for (size_t i = 0; i < names.size(); i++)
    if (names[i] == name) return static_cast<Enum>(i);
  throw std::invalid_argument(std::string("unknown ") + what + " '" + name + "'");
}

}  // namespace

json schedule_spec_to_json(const ScheduleSpec &spec) {
  json funcs = json::array();
  for (const FuncSchedule &f : spec.funcs) {
    json stages = json::array();
    for (const StageSchedule &s : f.stages) {
      json directives = json::array();
      for (const Directive &d : s.directives)
        directives.push_back({{"kind", kind_names().at(size_t(d.kind))}, {"vars", d.vars}, {"factors", d.factors},
                              {"tail", int(d.tail)}, {"at_func", d.at_func}, {"memory", int(d.memory)}});
      stages.push_back({{"stage", s.stage}, {"rvars", s.rvars}, {"directives", directives}});
    }
    funcs.push_back({{"func", f.func}, {"level", level_names().at(size_t(f.level))}, {"comment", f.comment},
                     {"stages", stages}});
  }
  return {{"funcs", funcs}, {"header_comments", spec.header_comments}};
}

ScheduleSpec schedule_spec_from_json(const json &j) {
  try {
    ScheduleSpec spec;
    spec.header_comments = j.value("header_comments", std::vector<std::string>{});
    for (const json &f : j.at("funcs")) {
      FuncSchedule fs;
      fs.func = f.at("func").get<std::string>();
      fs.level = enum_from<ComputeLevel>(level_names(), f.at("level").get<std::string>(), "compute level");
      fs.comment = f.value("comment", "");
      for (const json &s : f.at("stages")) {
        StageSchedule stage;
        stage.stage = s.at("stage").get<int>();
        stage.rvars = s.value("rvars", std::vector<std::string>{});
        for (const json &d : s.at("directives")) {
          Directive directive{enum_from<Directive::Kind>(kind_names(), d.at("kind").get<std::string>(), "directive")};
          directive.vars = d.value("vars", std::vector<std::string>{});
          directive.factors = d.value("factors", std::vector<int64_t>{});
          directive.tail = static_cast<Halide::TailStrategy>(d.value("tail", 0));
          directive.at_func = d.value("at_func", "");
          directive.memory = static_cast<Halide::MemoryType>(d.value("memory", 0));
          stage.directives.push_back(directive);
        }
        fs.stages.push_back(stage);
      }
      spec.funcs.push_back(fs);
    }
    return spec;
  } catch (const json::exception &e) {
    throw std::invalid_argument(std::string("malformed schedule JSON: ") + e.what());
  }
}

}  // namespace hlsched::server
