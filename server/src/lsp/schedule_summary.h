// A typed view of a schedule result (the JSON of `hlsched schedule --json`, see result_json.h)
// and the words the editor shows for it: per-stage explanations, the suggested schedule lines of
// one Func.
// Threading: pure functions.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace hlsched::server::lsp {

struct StageSummary {
  std::string func;
  int stage = 0;
  std::string placement;  ///< "root kernel", "inline", ...
  double predicted_ms = 0;
  std::string bound;      ///< "memory", "compute", "launch", ...
  /// Cost terms, largest first: ("global_memory", 0.0021), ...
  std::vector<std::pair<std::string, double>> terms;
};

struct ScheduleSummary {
  std::string generator;
  std::string gpu_profile;
  std::string target;
  double predicted_runtime_ms = 0;
  std::string schedule_code;
  std::vector<StageSummary> stages;
  std::map<std::string, std::string> compute;  ///< func -> "inline", "root", "block", "thread"
  std::map<std::string, std::string> comment;  ///< func -> the search's one-line reason
  nlohmann::json search;                       ///< search statistics as reported

  /// The stages of `func` (several for update definitions).
  std::vector<const StageSummary *> stages_of(const std::string &func) const;
  double func_ms(const std::string &func) const;
  bool is_scheduled(const std::string &func) const;  ///< computed somewhere other than inline
};

/// Reads what it can; missing members keep defaults (never throws on a well-formed object).
ScheduleSummary summarize(const nlohmann::json &result);

/// "global_memory" -> "global memory traffic", "launch" -> "kernel launch overhead", ...
std::string term_in_words(const std::string &term);

/// One sentence per stage: "blur_x (root kernel): 0.0052 ms, 51% of the pipeline, launch-bound:
/// kernel launch overhead 0.0030 ms (58%), arithmetic 0.0022 ms (42%)."
std::string explain_stage(const StageSummary &stage, double total_ms);

/// hlsched/explain's answer: the pipeline's summary and one entry per stage with its dominant
/// terms (those that make up 90% of its time), as numbers and in words.
nlohmann::json explain(const ScheduleSummary &summary);

/// The lines of schedule_code that schedule `func` (its comment, the Func lookup and its
/// directives), or "" when it is inlined or absent.
std::string schedule_lines_for(const std::string &schedule_code, const std::string &func);

/// "0.0102 ms" with 3 significant digits (never "0 ms" for tiny values).
std::string format_ms(double ms);

}  // namespace hlsched::server::lsp
