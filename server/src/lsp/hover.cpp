#include "lsp/hover.h"

#include <sstream>

#include "lsp/document_ranges.h"
#include "lsp/schedule_summary.h"

namespace hlsched::server::lsp {

namespace plsp = protocol::lsp;

namespace {

// The generator whose (mapped) class definition or method bodies contain `offset`.
const GeneratorClass *generator_around(const Document &d, std::size_t offset) {
  if (!d.index) return nullptr;
  for (const GeneratorClass &g : d.index->generators) {
    for (std::optional<ByteRange> r : {std::optional<ByteRange>(g.definition),
                                       g.generate ? std::optional<ByteRange>(g.generate->declaration) : std::nullopt,
                                       g.schedule ? std::optional<ByteRange>(g.schedule->declaration) : std::nullopt}) {
      if (!r) continue;
      auto mapped = current_bytes(d, *r, Mapping::Loose);
      if (mapped && mapped->begin <= offset && offset <= mapped->end) return &g;
    }
  }
  return d.index->generators.size() == 1 ? &d.index->generators.front() : nullptr;
}

const DeclaredObject *object_named(const Document &d, const GeneratorClass &g, const std::string &word,
                                   std::size_t offset) {
  const DeclaredObject *member = nullptr, *any_local = nullptr;
  for (const DeclaredObject &o : g.objects) {
    if (o.identifier != word) continue;
    if (!o.is_member) {
      auto scope = current_bytes(d, o.scope, Mapping::Loose);
      if (scope && scope->begin <= offset && offset <= scope->end) return &o;
      if (!any_local) any_local = &o;
    } else if (!member) {
      member = &o;
    }
  }
  return member ? member : any_local;
}

std::string status_line(const Document &d) {
  if (!d.analysis) return "_hlsched: analyzing…_";
  std::ostringstream out;
  if (!d.analysis_is_current())
    out << "_hlsched: from version " << d.analysis->snapshot.version << " of this file; re-analyzing…_\n\n";
  return out.str();
}

std::string failure_text(const DocumentAnalysis &a) {
  std::string first_line = a.outcome.message.substr(0, a.outcome.message.find('\n'));
  return "**hlsched:** the last analysis failed (" + a.outcome.error_kind + "): " + first_line;
}

std::string func_markdown(const ScheduleSummary &summary, const std::string &func) {
  std::ostringstream out;
  std::vector<const StageSummary *> stages = summary.stages_of(func);
  auto compute = summary.compute.find(func);
  out << "**" << func << "**";
  double own_ms = summary.func_ms(func);
  if (!stages.empty() && own_ms > 0) {
    out << " — predicted **" << format_ms(summary.func_ms(func)) << "** of " << format_ms(summary.predicted_runtime_ms)
        << " on " << summary.gpu_profile << "\n\n";
    out << "| stage | placement | time | bound | terms |\n|---|---|---|---|---|\n";
    for (const StageSummary *s : stages) {
      out << "| " << (s->stage == 0 ? std::string("pure") : "update " + std::to_string(s->stage - 1)) << " | "
          << s->placement << " | " << format_ms(s->predicted_ms) << " | " << s->bound << " | ";
      bool first = true;
      for (const auto &[term, ms] : s->terms) {
        if (ms <= 0) continue;
        out << (first ? "" : ", ") << term_in_words(term) << " " << format_ms(ms);
        first = false;
      }
      out << " |\n";
    }
  } else if (compute != summary.compute.end()) {
    out << " — " << (compute->second == "inline" ? "inlined" : "compute_" + compute->second)
        << " (its time is part of the kernel that computes it)\n";
  } else {
    out << " — not in the scheduled pipeline (unused, or named differently: give it a name, e.g. Func f{\"f\"})\n";
    return out.str();
  }
  auto comment = summary.comment.find(func);
  if (comment != summary.comment.end() && !comment->second.empty()) out << "\n" << comment->second << "\n";
  std::string lines = schedule_lines_for(summary.schedule_code, func);
  if (!lines.empty()) out << "\nSuggested schedule:\n```cpp\n" << lines << "```\n";
  return out.str();
}

std::string generator_markdown(const ScheduleSummary &summary, const GeneratorClass *g) {
  std::ostringstream out;
  out << "**" << (g ? g->class_name : summary.generator) << "**";
  if (!summary.generator.empty()) out << " (`" << summary.generator << "`)";
  out << " — predicted **" << format_ms(summary.predicted_runtime_ms) << "** on " << summary.gpu_profile
      << " with the suggested schedule\n\n";
  out << "| Func | stage | placement | time | bound |\n|---|---|---|---|---|\n";
  for (const StageSummary &s : summary.stages)
    out << "| " << s.func << " | " << s.stage << " | " << s.placement << " | " << format_ms(s.predicted_ms) << " | "
        << s.bound << " |\n";
  if (summary.search.is_object()) {
    out << "\nSearch: " << summary.search.value("strategy", std::string("?")) << ", "
        << summary.search.value("states_evaluated", 0) << " states, "
        << format_ms(summary.search.value("time_ms", 0.0)) << "\n";
  }
  return out.str();
}

}  // namespace

std::optional<plsp::Hover> hover_at(const Document &d, plsp::Position position) {
  const std::string &text = d.text.text();
  const std::size_t offset = d.text.offset_at(position);
  ByteRange word_range;
  const std::string word = identifier_at(text, offset, &word_range);
  if (word.empty()) return std::nullopt;

  const GeneratorClass *g = generator_around(d, offset);
  const DeclaredObject *object = g ? object_named(d, *g, word, offset) : nullptr;
  const bool on_class = g && (word == g->class_name);
  ScheduleSummary summary;
  const bool have_result = d.analysis && d.analysis->ok();
  if (have_result) summary = summarize(d.analysis->outcome.result);

  // Without an index yet, a word that names a Func of the result still gets its hover.
  std::string func;
  if (object && (object->kind == DeclaredObject::Kind::Func || object->kind == DeclaredObject::Kind::Output))
    func = object->pipeline_name();
  else if (!object && have_result && summary.compute.count(word))
    func = word;
  if (func.empty() && !on_class) return std::nullopt;

  std::string body = status_line(d);
  if (!d.analysis) {
    // status_line says "analyzing".
  } else if (!have_result) {
    body += failure_text(*d.analysis);
  } else if (on_class) {
    body += generator_markdown(summary, g);
  } else {
    body += func_markdown(summary, func);
  }
  plsp::Hover hover;
  hover.contents = {plsp::MarkupKind::Markdown, body};
  hover.range = to_lsp_range(d.text, word_range);
  return hover;
}

}  // namespace hlsched::server::lsp
