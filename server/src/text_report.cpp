#include "text_report.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace hlsched::server {

using nlohmann::json;

namespace {

std::string ms(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, value < 0.1 ? "%.4f" : "%.3f", value);
  return buf;
}

std::string pad(const std::string &s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

}  // namespace

std::string schedule_report(const json &r) {
  std::ostringstream out;
  out << "Generator:  " << r.value("generator", "?") << "\n"
      << "Target:     " << r.value("target", "?") << " (GPU profile " << r.value("gpu_profile", "?") << ")\n"
      << "Predicted:  " << ms(r.value("predicted_runtime_ms", 0.0)) << " ms (" << r.value("cost_model", "") << ")\n"
      << "Search:     " << r["search"].value("strategy", "?") << ", " << r["search"].value("states_evaluated", int64_t{0})
      << " states, " << ms(r["search"].value("time_ms", 0.0)) << " ms";
  if (r["search"].value("time_limit_reached", false))
    out << " (stopped by the time limit: a busy machine may get another schedule; see --time-budget)";
  else if (r["search"].value("budget_exhausted", false))
    out << " (its work budget used up; --work-budget gives it more)";
  out << "\n";
  if (r.contains("verified")) {
    out << "Verified:   compiles for the target, " << r["verified"].value("gpu_kernels", 0) << " GPU kernels\n";
    out << unbounded_launches_report(r["verified"]);
  }
  out << "\n// ---- paste into the generator's schedule() ----\n" << r.value("schedule_code", "")
      << "// ---- end ----\n\n";

  std::set<std::string> term_names;
  for (const json &s : r["stages"])
    for (auto it = s["terms"].begin(); it != s["terms"].end(); ++it) term_names.insert(it.key());
  out << pad("stage", 28) << pad("placement", 14) << pad("predicted ms", 14) << pad("bound", 9);
  for (const auto &t : term_names) out << pad(t + " ms", 18);
  out << "\n";
  for (const json &s : r["stages"]) {
    std::string name = s.value("func", "?") + ".s" + std::to_string(s.value("stage", 0));
    out << pad(name, 28) << pad(s.value("placement", ""), 14) << pad(ms(s.value("predicted_ms", 0.0)), 14)
        << pad(s.value("bound", ""), 9);
    for (const auto &t : term_names) out << pad(s["terms"].contains(t) ? ms(s["terms"][t].get<double>()) : "-", 18);
    out << "\n";
  }
  return out.str();
}

std::string unbounded_launches_report(const json &r) {
  std::ostringstream out;
  if (!r.contains("unbounded_launches")) return "";
  for (const json &l : r["unbounded_launches"]) {
    const int64_t threads = l.value("block_threads", int64_t{-1});
    out << "Warning:    kernel " << l.value("kernel", "?") << " launches "
        << (threads < 0 ? std::string("a thread block Halide sizes only at run time")
                        : std::to_string(threads) + " threads per block")
        << ": more than 1024 fail to launch (CUDA_ERROR_INVALID_VALUE)\n";
  }
  return out.str();
}

std::string dag_report(const json &dag) {
  std::ostringstream out;
  out << "Inputs:\n";
  for (const json &in : dag["inputs"]) {
    out << "  " << in.value("name", "?") << " : " << in.value("type", "?");
    if (in.value("buffer", false)) {
      out << " [";
      bool first = true;
      for (const json &s : in["estimate"]) {
        out << (first ? "" : ", ") << s.value("min", int64_t{0}) << ".." << s.value("min", int64_t{0}) + s.value("extent", int64_t{0}) - 1;
        first = false;
      }
      out << "]";
    } else {
      out << " = " << in["estimate"].get<std::string>();
    }
    out << "\n";
  }
  out << "Funcs (producers first):\n";
  for (const json &f : dag["funcs"]) {
    out << "  " << f.value("name", "?") << (f.value("is_output", false) ? " (output)" : "");
    // Dims whose region is the same whatever the sizes (FuncNode::constant_dims).
    std::string constant;
    const json args = f.value("args", json::array()), dims = f.value("constant_dims", json::array());
    for (size_t d = 0; d < args.size() && d < dims.size(); d++)
      if (dims[d].get<bool>()) constant += (constant.empty() ? "" : ", ") + args[d].get<std::string>();
    if (!constant.empty()) out << ", constant region along " << constant;
    out << "\n";
    for (const json &s : f["stages"]) {
      out << "    " << s.value("definition", "") << "\n      points " << s.value("points", int64_t{0}) << ", loops:";
      for (const json &l : s["loops"])
        out << " " << l.value("var", "?") << (l.value("rvar", false) ? "(r)" : "") << "=" << l["estimate"].value("extent", 0);
      out << "\n";
      if (s.contains("phase_loops")) {
        out << "      phases:";
        for (const json &l : s["phase_loops"]) {
          const int period = l.value("period", 0);
          if (l.value("by_value", false))
            out << " " << l.value("var", "?") << " = " << l.value("first", int64_t{0}) << ".." << l.value("first", int64_t{0}) + period - 1;
          else
            out << " " << l.value("var", "?") << " % " << period;
        }
        out << "; arithmetic/point " << s.value("arithmetic_per_point", int64_t{0}) << ", "
            << s.value("arithmetic_per_point_phases_known", 0.0) << " with the phases known\n";
      }
      if (s.contains("unrolled_jointly"))
        for (const auto &[var, u] : s["unrolled_jointly"].items())
          out << "      unrolled over " << var << " (" << u.value("copies", 0) << " copies): arithmetic/copy "
              << u.value("arithmetic_per_copy", 0.0) << "\n";
      for (const json &a : s["accesses"]) {
        out << "      reads " << a.value("producer", "?") << " x" << a.value("calls_per_point", 0)
            << (a.value("pointwise", false) ? " pointwise" : "") << " region/point [";
        bool first = true;
        for (const json &d : a["region_per_point"]) {
          out << (first ? "" : ", ") << d["min"].value("expr", "?") << " .. " << d["max"].value("expr", "?");
          first = false;
        }
        out << "]\n";
      }
    }
  }
  return out.str();
}

}  // namespace hlsched::server
