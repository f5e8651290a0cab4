#include "lsp/schedule_summary.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace hlsched::server::lsp {

using nlohmann::json;

std::vector<const StageSummary *> ScheduleSummary::stages_of(const std::string &func) const {
  std::vector<const StageSummary *> out;
  for (const StageSummary &s : stages)
    if (s.func == func) out.push_back(&s);
  return out;
}

double ScheduleSummary::func_ms(const std::string &func) const {
  double ms = 0;
  for (const StageSummary *s : stages_of(func)) ms += s->predicted_ms;
  return ms;
}

bool ScheduleSummary::is_scheduled(const std::string &func) const {
  auto it = compute.find(func);
  return it != compute.end() && it->second != "inline";
}

ScheduleSummary summarize(const json &result) {
  ScheduleSummary out;
  if (!result.is_object()) return out;
  auto text = [&](const json &j, const char *key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(); };
  auto number = [&](const json &j, const char *key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0; };
  out.generator = text(result, "generator");
  out.gpu_profile = text(result, "gpu_profile");
  out.target = text(result, "target");
  out.schedule_code = text(result, "schedule_code");
  out.predicted_runtime_ms = number(result, "predicted_runtime_ms");
  if (result.contains("search")) out.search = result["search"];
  if (result.contains("stages") && result["stages"].is_array()) {
    for (const json &s : result["stages"]) {
      if (!s.is_object()) continue;
      StageSummary stage;
      stage.func = text(s, "func");
      stage.stage = s.contains("stage") && s["stage"].is_number_integer() ? s["stage"].get<int>() : 0;
      stage.placement = text(s, "placement");
      stage.predicted_ms = number(s, "predicted_ms");
      stage.bound = text(s, "bound");
      if (s.contains("terms") && s["terms"].is_object())
        for (const auto &[term, value] : s["terms"].items())
          if (value.is_number()) stage.terms.emplace_back(term, value.get<double>());
      std::stable_sort(stage.terms.begin(), stage.terms.end(),
                       [](const auto &a, const auto &b) { return a.second > b.second; });
      out.stages.push_back(std::move(stage));
    }
  }
  if (result.contains("funcs") && result["funcs"].is_array()) {
    for (const json &f : result["funcs"]) {
      if (!f.is_object()) continue;
      out.compute[text(f, "func")] = text(f, "compute");
      out.comment[text(f, "func")] = text(f, "comment");
    }
  }
  return out;
}

std::string term_in_words(const std::string &term) {
  static const std::map<std::string, std::string> words = {
      {"compute", "arithmetic"},
      {"global_memory", "global memory traffic"},
      {"shared_memory", "shared memory traffic"},
      {"bank_conflicts", "shared memory bank conflicts"},
      {"local_memory", "register spills / local memory"},
      {"registers", "register traffic"},
      {"launch", "kernel launch overhead"},
      {"block_launch", "thread block dispatch"},
      {"wave_tail", "waiting on each wave's last warps"},
      {"fused_chain", "fused producers computed point by point"},
      {"reduction_chain", "serial reduction steps"},
      {"sync", "block synchronization"},
      {"block_sync", "block synchronization"},
      {"allocation", "allocations"},
      {"recompute", "redundant recompute"},
      {"occupancy", "low occupancy"},
      {"dram", "DRAM traffic"},
      {"l2", "L2 traffic"},
      {"l1", "L1 traffic"},
      {"latency", "exposed memory latency"},
      {"atomics", "atomic operations"},
  };
  auto it = words.find(term);
  if (it != words.end()) return it->second;
  std::string out = term;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string format_ms(double ms) {
  char buffer[32];
  if (ms >= 100) std::snprintf(buffer, sizeof buffer, "%.0f ms", ms);
  else if (ms >= 0.001 || ms == 0) std::snprintf(buffer, sizeof buffer, "%.3g ms", ms);
  else std::snprintf(buffer, sizeof buffer, "%.2g ms", ms);
  return buffer;
}

namespace {

std::string percent(double part, double whole) {
  if (whole <= 0) return "-";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.0f%%", 100.0 * part / whole);
  return buffer;
}

// The terms that together make up 90% of the stage's time (at least one).
std::vector<std::pair<std::string, double>> dominant_terms(const StageSummary &stage) {
  double total = 0;
  for (const auto &t : stage.terms) total += t.second;
  std::vector<std::pair<std::string, double>> out;
  double covered = 0;
  for (const auto &t : stage.terms) {
    if (!out.empty() && (covered >= 0.9 * total || t.second <= 0)) break;
    out.push_back(t);
    covered += t.second;
  }
  return out;
}

}  // namespace

std::string explain_stage(const StageSummary &stage, double total_ms) {
  std::ostringstream out;
  out << stage.func;
  if (stage.stage > 0) out << ".update(" << stage.stage - 1 << ")";
  if (!stage.placement.empty()) out << " (" << stage.placement << ")";
  out << ": " << format_ms(stage.predicted_ms) << ", " << percent(stage.predicted_ms, total_ms) << " of the pipeline";
  if (!stage.bound.empty()) out << ", " << stage.bound << "-bound";
  double sum = 0;
  for (const auto &t : stage.terms) sum += t.second;
  std::vector<std::pair<std::string, double>> dominant = dominant_terms(stage);
  if (!dominant.empty()) {
    out << ": ";
    for (std::size_t i = 0; i < dominant.size(); i++)
      out << (i ? ", " : "") << term_in_words(dominant[i].first) << " " << format_ms(dominant[i].second) << " ("
          << percent(dominant[i].second, sum) << ")";
  }
  out << ".";
  return out.str();
}

json explain(const ScheduleSummary &summary) {
  json stages = json::array();
  std::vector<const StageSummary *> by_cost;
  for (const StageSummary &s : summary.stages) by_cost.push_back(&s);
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [](const StageSummary *a, const StageSummary *b) { return a->predicted_ms > b->predicted_ms; });
  for (const StageSummary *s : by_cost) {
    double sum = 0;
    for (const auto &t : s->terms) sum += t.second;
    json dominant = json::array();
    for (const auto &[term, ms] : dominant_terms(*s))
      dominant.push_back({{"term", term}, {"words", term_in_words(term)}, {"ms", ms}, {"share", sum > 0 ? ms / sum : 0.0}});
    stages.push_back({{"func", s->func},
                      {"stage", s->stage},
                      {"placement", s->placement},
                      {"predicted_ms", s->predicted_ms},
                      {"share_of_pipeline", summary.predicted_runtime_ms > 0 ? s->predicted_ms / summary.predicted_runtime_ms : 0.0},
                      {"bound", s->bound},
                      {"dominant_terms", dominant},
                      {"text", explain_stage(*s, summary.predicted_runtime_ms)}});
  }
  std::ostringstream text;
  text << "Predicted " << format_ms(summary.predicted_runtime_ms) << " on " << summary.gpu_profile << ".";
  if (!by_cost.empty()) {
    std::map<std::string, double> by_bound;
    for (const StageSummary *s : by_cost) by_bound[s->bound.empty() ? "other" : s->bound] += s->predicted_ms;
    auto top = std::max_element(by_bound.begin(), by_bound.end(),
                                [](const auto &a, const auto &b) { return a.second < b.second; });
    text << " Most of the time (" << percent(top->second, summary.predicted_runtime_ms) << ") is in " << top->first
         << "-bound stages; the costliest is " << explain_stage(*by_cost.front(), summary.predicted_runtime_ms);
  }
  return {{"generator", summary.generator},
          {"gpu_profile", summary.gpu_profile},
          {"predicted_runtime_ms", summary.predicted_runtime_ms},
          {"summary", text.str()},
          {"stages", stages}};
}

std::string schedule_lines_for(const std::string &schedule_code, const std::string &func) {
  // emit_source.cpp prints each scheduled Func as a paragraph:
  //   // <comment>
  //   Func <id>(hlsched_funcs.at("<name>"));
  //   <id>.compute_root()
  //       .gpu_tile(...);
  const std::string lookup = "(hlsched_funcs.at(\"" + func + "\"));";
  std::istringstream in(schedule_code);
  std::vector<std::string> paragraph;
  std::string line;
  bool found = false;
  auto flush = [&]() -> bool {
    if (found) return true;
    paragraph.clear();
    return false;
  };
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (flush()) break;
      continue;
    }
    paragraph.push_back(line);
    if (line.rfind("Func ", 0) == 0 && line.size() >= lookup.size() &&
        line.compare(line.size() - lookup.size(), lookup.size(), lookup) == 0)
      found = true;
  }
  if (!found) return "";
  std::string out;
  for (const std::string &l : paragraph) out += l + "\n";
  return out;
}

}  // namespace hlsched::server::lsp
