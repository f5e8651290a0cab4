#include "lsp/code_lens.h"

#include "lsp/document_ranges.h"
#include "lsp/schedule_edit.h"
#include "lsp/schedule_summary.h"

namespace hlsched::server::lsp {

namespace plsp = protocol::lsp;

namespace {

plsp::Range start_of_line(const plsp::Range &r) { return {{r.start.line, 0}, {r.start.line, 0}}; }

std::string percent(double part, double whole) {
  return whole > 0 ? std::to_string(int(100.0 * part / whole + 0.5)) + "%" : "-";
}

}  // namespace

std::vector<plsp::CodeLens> code_lenses(const Document &d) {
  std::vector<plsp::CodeLens> lenses;
  if (!d.index || !d.analysis || !d.analysis->ok()) return lenses;
  const GeneratorClass *g = analyzed_generator(*d.index, *d.analysis);
  if (!g) return lenses;
  const ScheduleSummary summary = summarize(d.analysis->outcome.result);
  const std::string stale = d.analysis_is_current() ? "" : " (stale)";

  if (auto r = current_range(d, g->name, Mapping::Loose)) {
    plsp::CodeLens total;
    total.range = start_of_line(*r);
    total.command = plsp::Command{"hlsched: " + format_ms(summary.predicted_runtime_ms) + " predicted on " +
                                      summary.gpu_profile + stale,
                                  kExplainCommand, nlohmann::json::array({d.uri})};
    lenses.push_back(total);
    if (d.analysis_is_current()) {
      plsp::CodeLens apply;
      apply.range = start_of_line(*r);
      apply.command = plsp::Command{"Apply suggested schedule", kApplyScheduleCommand, nlohmann::json::array({d.uri})};
      lenses.push_back(apply);
    }
  }
  for (const auto &[func, compute] : summary.compute) {
    if (compute == "inline") continue;
    const DeclaredObject *o = g->find_func(func);
    if (!o) continue;
    auto r = current_range(d, o->name, Mapping::Loose);
    if (!r) continue;
    const double ms = summary.func_ms(func);
    std::string title;
    if (ms > 0) {
      std::string bound;
      for (const StageSummary *s : summary.stages_of(func))
        if (!s->bound.empty()) bound = s->bound;
      title = func + ": " + format_ms(ms) + " (" + percent(ms, summary.predicted_runtime_ms) + " of the pipeline" +
              (bound.empty() ? "" : ", " + bound + "-bound") + ")";
    } else {
      // Computed inside another Func's kernel: its time is part of that kernel's.
      auto comment = summary.comment.find(func);
      title = comment != summary.comment.end() && !comment->second.empty() ? comment->second : func + ": compute_" + compute;
    }
    plsp::CodeLens lens;
    lens.range = start_of_line(*r);
    lens.command = plsp::Command{title + stale, kExplainCommand, nlohmann::json::array({d.uri, func})};
    lenses.push_back(lens);
  }
  return lenses;
}

}  // namespace hlsched::server::lsp
