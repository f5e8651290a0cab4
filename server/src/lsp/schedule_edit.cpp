#include "lsp/schedule_edit.h"

#include <sstream>

#include "lsp/document_ranges.h"
#include "lsp/schedule_summary.h"

namespace hlsched::server::lsp {

namespace plsp = protocol::lsp;

const GeneratorClass *analyzed_generator(const SourceIndex &index, const DocumentAnalysis &analysis) {
  std::string name = analysis.ok() ? analysis.outcome.result.value("generator", std::string()) : std::string();
  if (name.empty()) name = analysis.settings.generator;
  return index.find_generator(name);
}

namespace {

std::string indent_lines(const std::string &code, const std::string &indent) {
  std::istringstream in(code);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) out << (line.empty() ? "" : indent + line) << "\n";
  return out.str();
}

// The block, each line indented by `indent`, ending with a newline.
std::string suggestion_block(const ScheduleSummary &summary, const std::string &indent, const std::string &step) {
  std::ostringstream out;
  out << indent << kBeginMarker << " (predicted " << format_ms(summary.predicted_runtime_ms) << " on "
      << summary.gpu_profile << ")\n"
      << indent << "{\n"
      << indent_lines(summary.schedule_code, indent + step) << indent << "}\n"
      << indent << kEndMarker << "\n";
  return out.str();
}

std::size_t line_start(const std::string &text, std::size_t offset) {
  std::size_t nl = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  return nl == std::string::npos ? 0 : nl + 1;
}

std::size_t line_end_after(const std::string &text, std::size_t offset) {  // past the '\n'
  std::size_t nl = text.find('\n', offset);
  return nl == std::string::npos ? text.size() : nl + 1;
}

bool only_blanks(const std::string &text, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; i++)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') return false;
  return true;
}

// Whole lines when the statement has them to itself (so no blank line is left behind).
ByteRange statement_lines(const std::string &text, ByteRange s) {
  std::size_t begin = line_start(text, s.begin), end = line_end_after(text, s.end);
  std::size_t content_end = end > 0 && text[end - 1] == '\n' ? end - 1 : end;
  if (only_blanks(text, begin, s.begin) && only_blanks(text, s.end, content_end)) return {begin, end};
  return s;
}

std::string indentation_of_line(const std::string &text, std::size_t offset) {
  std::size_t begin = line_start(text, offset), end = begin;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) end++;
  return text.substr(begin, end - begin);
}

// One indentation step: the class's member indent when it is made of spaces or tabs, else 4.
std::string indent_step(const GeneratorClass &g) { return g.member_indent.empty() ? "    " : g.member_indent; }

plsp::TextEdit make_edit(const Document &d, ByteRange bytes, std::string text) {
  return {to_lsp_range(d.text, bytes), std::move(text)};
}

}  // namespace

std::vector<ScheduleAction> schedule_actions(const Document &d) {
  if (!d.index_is_current() || !d.analysis_is_current() || !d.analysis->ok()) return {};
  const GeneratorClass *g = analyzed_generator(*d.index, *d.analysis);
  if (!g) return {};
  const ScheduleSummary summary = summarize(d.analysis->outcome.result);
  if (summary.schedule_code.empty()) return {};
  const std::string &text = d.text.text();  // == d.index->text: the index is current
  const std::string step = indent_step(*g);
  std::vector<ScheduleAction> actions;

  // No schedule() (or only a declaration): a new method after generate().
  if (!g->schedule || !g->schedule->body) {
    if (g->schedule) return {};  // declared here, defined elsewhere: we cannot see its body
    const std::string body_indent = g->member_indent + step;
    std::string method = "\n" + g->member_indent + "void schedule() {\n" + suggestion_block(summary, body_indent, step) +
                         g->member_indent + "}\n";
    std::size_t at = g->new_method_offset;
    if (at == 0) {  // no generate() in the class: before its closing brace, in a public section
      at = g->definition.end > 0 ? g->definition.end - 1 : 0;
      method = "public:\n" + method.substr(1);
    } else {
      at = line_end_after(text, at);  // after the line that ends generate()
    }
    actions.push_back({"Insert suggested schedule (new schedule() method)", true, {make_edit(d, {at, at}, method)}});
    return actions;
  }

  const MethodInfo &schedule = *g->schedule;
  const ByteRange body = *schedule.body;  // "{ ... }"
  const std::size_t close_brace = body.end - 1;
  std::string body_indent = g->member_indent + step;
  if (!schedule.statements.empty()) body_indent = indentation_of_line(text, schedule.statements.front().begin);
  const std::string block = suggestion_block(summary, body_indent, step);
  // Insert before the line holding the closing brace (or right before the brace when the body is
  // on one line).
  const std::size_t brace_line = line_start(text, close_brace);
  const bool brace_on_own_line = only_blanks(text, brace_line, close_brace) && brace_line > body.begin;
  const ByteRange insert_at = brace_on_own_line ? ByteRange{brace_line, brace_line} : ByteRange{close_brace, close_brace};
  const std::string insert_text = brace_on_own_line ? block : "\n" + block + g->member_indent;

  // An earlier suggestion: replace it.
  const std::size_t begin_marker = text.find(kBeginMarker, body.begin);
  const std::size_t end_marker = begin_marker == std::string::npos ? std::string::npos : text.find(kEndMarker, begin_marker);
  if (begin_marker != std::string::npos && end_marker != std::string::npos && end_marker < body.end) {
    const ByteRange old_block{line_start(text, begin_marker), line_end_after(text, end_marker)};
    actions.push_back({"Replace suggested schedule", true, {make_edit(d, old_block, block)}});
    return actions;
  }

  std::vector<ByteRange> removable;
  for (std::size_t i = 0; i < schedule.statements.size(); i++)
    if (!schedule.statement_sets_estimates[i]) removable.push_back(statement_lines(text, schedule.statements[i]));

  ScheduleAction insert{"Insert suggested schedule", removable.empty(), {make_edit(d, insert_at, insert_text)}};
  if (!removable.empty()) {
    ScheduleAction replace{"Replace schedule", true, {}};
    for (const ByteRange &r : removable) replace.edits.push_back(make_edit(d, r, ""));
    // Edits must not touch each other: when the last removed statement ends where the block
    // goes, that one edit puts the block in its place.
    if (removable.back().end == insert_at.begin) replace.edits.back().newText = insert_text;
    else replace.edits.push_back(make_edit(d, insert_at, insert_text));
    actions.push_back(std::move(replace));
  }
  actions.push_back(std::move(insert));
  return actions;
}

}  // namespace hlsched::server::lsp
