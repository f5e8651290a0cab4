#include "lsp/diagnostics.h"

#include <cctype>
#include <regex>
#include <sstream>

#include "lsp/document_ranges.h"
#include "lsp/schedule_edit.h"
#include "lsp/schedule_summary.h"

namespace hlsched::server::lsp {

namespace plsp = protocol::lsp;
using Severity = plsp::DiagnosticSeverity;

namespace {

plsp::Diagnostic make(plsp::Range range, Severity severity, std::string code, std::string message) {
  plsp::Diagnostic d;
  d.range = range;
  d.severity = severity;
  d.code = std::move(code);
  d.source = kDiagnosticSource;
  d.message = std::move(message);
  return d;
}

// Line `line` (1-based) and byte column `column` (1-based) of the current text, widened to the
// identifier there (or one character).
plsp::Range range_at(const protocol::TextDocument &text, int line, int column) {
  if (line <= 0) return {{0, 0}, {0, 0}};
  const std::size_t start_of_line = text.offset_at({std::uint32_t(line - 1), 0});
  const std::string_view line_text = text.line_text(std::uint32_t(line - 1));
  std::size_t offset = start_of_line + std::min<std::size_t>(column > 0 ? column - 1 : 0, line_text.size());
  ByteRange word;
  if (!identifier_at(text.text(), offset, &word).empty() && word.begin == offset) return to_lsp_range(text, word);
  std::size_t end = std::min(offset + 1, start_of_line + line_text.size());
  return to_lsp_range(text, {offset, end});
}

Severity severity_of(const std::string &compiler_severity) {
  if (compiler_severity == "warning") return Severity::Warning;
  if (compiler_severity == "note") return Severity::Information;
  return Severity::Error;
}

// Where a problem about the generator as a whole goes: its class name, else the first line.
plsp::Range generator_range(const Document &d, const GeneratorClass *g) {
  if (g) {
    if (auto r = current_range(d, g->name, Mapping::Loose)) return *r;
  }
  return {{0, 0}, {0, 0}};
}

// The #include line naming `file` (a header the compiler complained about), else line 0.
plsp::Range include_line_for(const protocol::TextDocument &text, const std::string &file) {
  const std::string name = std::filesystem::path(file).filename().string();
  for (std::uint32_t line = 0; line < text.line_count(); line++) {
    std::string_view l = text.line_text(line);
    if (l.find("#include") != std::string_view::npos && l.find(name) != std::string_view::npos)
      return {{line, 0}, {line, std::uint32_t(protocol::utf16_length(l))}};
  }
  return {{0, 0}, {0, 0}};
}

void add_compile_diagnostics(const Document &d, const DocumentAnalysis &a, std::vector<plsp::Diagnostic> &out) {
  for (const SourceDiagnostic &s : a.compile_diagnostics) {
    if (s.severity == "note" && !out.empty()) {
      // Notes explain the diagnostic before them ("candidate is ...", "in instantiation of ...").
      std::ostringstream note;
      note << "\nnote: ";
      if (!s.in_document) note << std::filesystem::path(s.file).filename().string() << ":" << s.line << ": ";
      else note << "line " << s.line << ": ";
      note << s.message;
      if (out.back().message.size() < 4000) out.back().message += note.str();
      continue;
    }
    if (s.in_document) {
      out.push_back(make(range_at(d.text, s.line, s.column), severity_of(s.severity), "compile_error", s.message));
    } else {
      std::ostringstream message;
      message << std::filesystem::path(s.file).filename().string();
      if (s.line) message << ":" << s.line << ":" << s.column;
      message << ": " << s.message;
      out.push_back(make(include_line_for(d.text, s.file), severity_of(s.severity), "compile_error", message.str()));
    }
  }
  if (out.empty()) {  // the compiler failed without a located diagnostic (e.g. a link error)
    const GeneratorClass *g = d.index ? analyzed_generator(*d.index, a) : nullptr;
    out.push_back(make(generator_range(d, g), Severity::Error, "compile_error", a.outcome.message));
  }
}

void add_missing_estimates(const Document &d, const GeneratorClass *g, const DocumentAnalysis &a,
                           std::vector<plsp::Diagnostic> &out) {
  // "missing estimates on input 'input', output 'output'. Add them ..."
  static const std::regex named(R"((input|output) '([^']+)')");
  const std::string &message = a.outcome.message;
  const std::string advice = message.find(". ") != std::string::npos ? message.substr(message.find(". ") + 2) : "";
  bool placed = false;
  for (auto it = std::sregex_iterator(message.begin(), message.end(), named); g && it != std::sregex_iterator(); ++it) {
    const DeclaredObject *o = g->find_func((*it)[2].str());
    if (!o) continue;
    if (auto r = current_range(d, o->name, Mapping::Loose)) {
      out.push_back(make(*r, Severity::Error, "missing_estimates",
                         (*it)[1].str() + " '" + (*it)[2].str() + "' has no estimates. " + advice));
      placed = true;
    }
  }
  if (!placed) out.push_back(make(generator_range(d, g), Severity::Error, "missing_estimates", message));
}

// Halide's errors name the Func they are about ("Func blur_x cannot be ..."): put the
// diagnostic on its declaration (the first declared Func the message names), else on the class.
plsp::Range failure_range(const Document &d, const GeneratorClass *g, const DocumentAnalysis &a) {
  if (g && a.outcome.error_kind.rfind("halide", 0) == 0) {
    const std::string &message = a.outcome.message;
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::size_t best = std::string::npos;
    const DeclaredObject *named = nullptr;
    for (const DeclaredObject &o : g->objects) {
      if (o.kind != DeclaredObject::Kind::Func && o.kind != DeclaredObject::Kind::Output) continue;
      const std::string &name = o.pipeline_name();
      for (std::size_t at = message.find(name); at != std::string::npos && at < best; at = message.find(name, at + 1)) {
        const bool starts = at == 0 || !is_word(message[at - 1]);
        const bool ends = at + name.size() == message.size() || !is_word(message[at + name.size()]);
        if (starts && ends) {
          best = at;
          named = &o;
          break;
        }
      }
    }
    if (named)
      if (auto r = current_range(d, named->name, Mapping::Loose)) return *r;
  }
  return generator_range(d, g);
}

// The worker's message, with what it means when the user can act on it.
std::string failure_message(const DocumentAnalysis &a) {
  std::string message = a.outcome.message;
  if (message.find("bad_alloc") != std::string::npos && a.settings.memory_limit_mb > 0)
    message += " (out of memory: the generator and the search may use " + std::to_string(a.settings.memory_limit_mb) +
               " MB of address space; raise \"memory_limit_mb\" if it needs more)";
  return message;
}

// Statements in schedule() other than estimates: the user scheduled something themselves.
bool has_own_schedule(const GeneratorClass &g) {
  // Many generators schedule at the end of generate().
  if (g.generate && holds_directives(g.generate->body_statements)) return true;
  if (!g.schedule || !g.schedule->body) return false;
  for (bool estimates : g.schedule->statement_sets_estimates)
    if (!estimates) return true;
  return false;
}

void add_schedule_warnings(const Document &d, const GeneratorClass *g, const DocumentAnalysis &a,
                           std::vector<plsp::Diagnostic> &out) {
  const ScheduleSummary summary = summarize(a.outcome.result);
  const plsp::Range at_class = generator_range(d, g);
  if (g && d.index_is_current() && !has_own_schedule(*g)) {
    out.push_back(make(at_class, Severity::Information, "no_schedule",
                       "no GPU schedule: schedule() only sets estimates, so every Func would be computed inline on "
                       "the host. hlsched suggests one, predicted " + format_ms(summary.predicted_runtime_ms) +
                           " on " + summary.gpu_profile + " (code action \"Insert suggested schedule\")."));
  }
  // A stage that takes more than half of the predicted time is where tuning pays.
  for (const StageSummary &s : summary.stages) {
    if (summary.predicted_runtime_ms <= 0 || s.predicted_ms < 0.5 * summary.predicted_runtime_ms) continue;
    if (summary.stages.size() < 2) break;
    // On the Func's declaration; a Func the source does not name (a helper's) gets none.
    const DeclaredObject *o = g ? g->find_func(s.func) : nullptr;
    std::optional<plsp::Range> r = o ? current_range(d, o->name, Mapping::Loose) : std::nullopt;
    if (r)
      out.push_back(make(*r, Severity::Information, "dominant_stage", explain_stage(s, summary.predicted_runtime_ms)));
  }
  if (summary.search.is_object() && summary.search.value("time_limit_reached", false)) {
    out.push_back(make(at_class, Severity::Warning, "search_budget",
                       "the schedule search stopped at its time limit (" +
                           std::to_string(a.settings.search.time_budget_s).substr(0, 4) +
                           " s) before its work was done: on a busy machine it may choose another schedule; a larger "
                           "\"time_budget_s\" lets it finish."));
  } else if (summary.search.is_object() && summary.search.value("budget_exhausted", false)) {
    out.push_back(make(at_class, Severity::Warning, "search_budget",
                       "the schedule search used up its work budget (" +
                           std::to_string(a.settings.search.work_budget).substr(0, 4) +
                           "); a larger \"work_budget\" may find a faster schedule."));
  }
}

}  // namespace

std::vector<plsp::Diagnostic> diagnostics_for(const Document &d, const DocumentAnalysis &a) {
  std::vector<plsp::Diagnostic> out;
  const GeneratorClass *g = d.index ? analyzed_generator(*d.index, a) : nullptr;
  using Status = AnalysisOutcome::Status;
  switch (a.outcome.status) {
    case Status::Ok: add_schedule_warnings(d, g, a, out); break;
    case Status::CompileError: add_compile_diagnostics(d, a, out); break;
    case Status::Cancelled: break;
    case Status::UserError:
      if (a.outcome.error_kind == "missing_estimates") {
        add_missing_estimates(d, g, a, out);
        break;
      }
      [[fallthrough]];
    case Status::Crashed:
    case Status::TimedOut:
    case Status::InternalError:
      out.push_back(make(failure_range(d, g, a), Severity::Error, a.outcome.error_kind, failure_message(a)));
      break;
  }
  if (out.size() > kMaxDiagnostics) out.resize(kMaxDiagnostics);
  return out;
}

}  // namespace hlsched::server::lsp
