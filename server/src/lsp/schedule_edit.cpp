#include "lsp/schedule_edit.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "lsp/document_ranges.h"
#include "lsp/orphaned_declarations.h"
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

// A piece of an edit against the indexed text (== the current text: edits are only made against
// a current index).
struct Piece {
  ByteRange range;
  std::string text;
};

// The pieces as LSP edits: in text order, touching pieces merged into one edit (editors differ in
// how they order two edits at one offset).
std::vector<plsp::TextEdit> to_text_edits(const Document &d, std::vector<Piece> pieces) {
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) { return a.range.begin < b.range.begin; });
  std::vector<Piece> merged;
  for (Piece &p : pieces) {
    if (!merged.empty() && merged.back().range.end == p.range.begin) {
      merged.back().range.end = p.range.end;
      merged.back().text += p.text;
    } else {
      merged.push_back(std::move(p));
    }
  }
  std::vector<plsp::TextEdit> edits;
  for (Piece &p : merged) edits.push_back(make_edit(d, p.range, std::move(p.text)));
  return edits;
}

bool overlaps(const std::vector<Piece> &pieces, ByteRange r) {
  return std::any_of(pieces.begin(), pieces.end(),
                     [&](const Piece &p) { return r.begin < p.range.end && p.range.begin < r.end; });
}

// Drops the Var/RVar declarations that only the `removed` statements used (orphaned_declarations.h).
void drop_orphaned_declarations(const std::string &text, const GeneratorClass &g, const std::vector<ByteRange> &removed,
                                std::vector<Piece> &pieces) {
  for (const DeclarationEdit &e : orphaned_declarations(text, g, removed)) {
    const ByteRange range = e.whole_statement ? statement_lines(text, e.range) : e.range;
    if (!overlaps(pieces, range)) pieces.push_back({range, e.text});
  }
}

// Whether the branch of `if (condition)` that runs for hlsched's suggestion is the then-branch:
// the generator's own schedule (auto_schedule off) for a GPU target. nullopt: a condition we
// cannot judge (a GeneratorParam, a size...).
std::optional<bool> condition_holds(std::string condition) {
  while (condition.size() > 2 && condition.front() == '(' && condition.back() == ')')
    condition = condition.substr(1, condition.size() - 2);
  if (!condition.empty() && condition.front() == '!') {
    std::optional<bool> inner = condition_holds(condition.substr(1));
    if (inner) return !*inner;
    return std::nullopt;
  }
  if (condition == "auto_schedule" || condition == "auto_schedule.value()" || condition == "using_autoscheduler()")
    return false;
  if (condition.size() >= 17 && condition.compare(condition.size() - 17, 17, "has_gpu_feature()") == 0) return true;
  if (condition.find("has_feature(Target::CUDA)") != std::string::npos &&
      condition.find_first_of("&|") == std::string::npos)
    return true;
  return std::nullopt;
}

bool sets_estimates(const std::vector<BodyStatement> &statements) {
  for (const BodyStatement &s : statements)
    if (s.kind == BodyStatement::Kind::Estimates ||
        (s.kind == BodyStatement::Kind::If && (sets_estimates(s.then_branch) || sets_estimates(s.else_branch))))
      return true;
  return false;
}

// What a "Replace schedule" removes when the schedule has branches: the statements to remove, and
// whether the cursor chose a branch.
struct BranchReplacement {
  std::vector<ByteRange> removed;
  bool cursor_chose = false;
};

// How the `if`s of a schedule are followed:
//  - an `if` on the target or the autoscheduler: the branch that runs for a GPU build without the
//    autoscheduler (the suggestion's case); the other branch (a CPU schedule, the autoscheduler's
//    estimates) stays;
//  - any other `if` (a GeneratorParam picks one of the user's schedules): the branch the cursor is
//    in, when it is in one ("the branch the user is in"); else, when `replace_unjudged_ifs` (in
//    schedule(), where an `if` without estimates only schedules) the whole `if`; else nothing:
//    which branch to replace is the user's call.
struct BranchRules {
  std::optional<std::size_t> cursor;
  bool replace_unjudged_ifs = false;
};

// Appends the directives of `statements` that the rules select to `out`. False when an `if` that
// holds directives cannot be followed (no action then).
bool collect_running_directives(const std::vector<BodyStatement> &statements, const BranchRules &rules,
                                BranchReplacement &out) {
  for (const BodyStatement &s : statements) {
    if (s.kind == BodyStatement::Kind::Directive) out.removed.push_back(s.range);
    if (s.kind != BodyStatement::Kind::If) continue;
    std::optional<bool> then_runs = condition_holds(s.condition);
    if (!then_runs && rules.cursor) {
      if (s.then_range.contains(*rules.cursor)) then_runs = true;
      else if (s.else_range.contains(*rules.cursor)) then_runs = false;
      out.cursor_chose |= then_runs.has_value();
    }
    if (then_runs) {
      if (!collect_running_directives(*then_runs ? s.then_branch : s.else_branch, rules, out)) return false;
      continue;
    }
    if (!holds_directives(s.then_branch) && !holds_directives(s.else_branch)) continue;
    if (!rules.replace_unjudged_ifs || sets_estimates(s.then_branch) || sets_estimates(s.else_branch)) return false;
    out.removed.push_back(s.range);
  }
  return true;
}

// "Replace schedule" for a schedule with branches: the selected directives go, the Vars only they
// used go, and the block takes the place of the last of them (in its branch). nullopt: no action.
std::optional<ScheduleAction> replace_in_branches(const Document &d, const GeneratorClass &g, const MethodInfo &method,
                                                  const ScheduleSummary &summary, const BranchRules &rules) {
  const std::string &text = d.text.text();
  BranchReplacement replacement;
  if (!collect_running_directives(method.body_statements, rules, replacement) || replacement.removed.empty())
    return std::nullopt;
  std::vector<ByteRange> &removed = replacement.removed;
  std::sort(removed.begin(), removed.end(), [](ByteRange a, ByteRange b) { return a.begin < b.begin; });
  std::vector<Piece> pieces;
  for (std::size_t i = 0; i + 1 < removed.size(); i++) pieces.push_back({statement_lines(text, removed[i]), ""});
  const ByteRange last = removed.back(), last_lines = statement_lines(text, last);
  const std::string indent = indentation_of_line(text, last.begin);
  std::string block = suggestion_block(summary, indent, indent_step(g));
  if (last_lines == last) block = "\n" + block + indent;  // shares its line with other code
  pieces.push_back({last_lines, block});
  drop_orphaned_declarations(text, g, removed, pieces);
  const char *title = replacement.cursor_chose ? "Replace schedule in this branch" : "Replace schedule";
  return ScheduleAction{title, true, to_text_edits(d, std::move(pieces))};
}

// The suggestion's code for a place inside generate(): get_pipeline() only works once generate()
// has returned, so the Funcs are reached from the generator's Outputs instead. Empty when an
// Output cannot be named as a Func (an array of Outputs).
std::string code_for_generate(const GeneratorClass &g, const std::string &schedule_code) {
  static const std::string pipeline_outputs = "get_pipeline().outputs()";
  const std::size_t at = schedule_code.find(pipeline_outputs);
  if (at == std::string::npos) return schedule_code;
  std::string outputs;
  for (const DeclaredObject &o : g.objects) {
    if (o.kind != DeclaredObject::Kind::Output || !o.is_member) continue;
    if (o.identifier.empty()) return {};
    outputs += (outputs.empty() ? "" : ", ") + o.identifier;
  }
  if (outputs.empty()) return {};
  return schedule_code.substr(0, at) + "std::vector<Func>{" + outputs + "}" +
         schedule_code.substr(at + pipeline_outputs.size());
}

// Byte range of an earlier suggestion's block inside `body`, when there is one.
std::optional<ByteRange> earlier_block(const std::string &text, ByteRange body) {
  const std::size_t begin_marker = text.find(kBeginMarker, body.begin);
  const std::size_t end_marker = begin_marker == std::string::npos ? std::string::npos : text.find(kEndMarker, begin_marker);
  if (begin_marker == std::string::npos || end_marker == std::string::npos || end_marker >= body.end) return std::nullopt;
  return ByteRange{line_start(text, begin_marker), line_end_after(text, end_marker)};
}

// A generator without schedule() whose generate() writes the schedule (at its end, or in the
// branch of an `if` that runs on GPU targets): "Replace schedule" removes the directives that run
// there and puts the suggestion where the last of them was, in the same branch. Estimates, the
// other branches and the algorithm stay.
std::vector<ScheduleAction> actions_in_generate(const Document &d, const GeneratorClass &g, const ScheduleSummary &summary,
                                                std::optional<std::size_t> cursor) {
  const std::string &text = d.text.text();
  if (!g.generate || !g.generate->body) return {};
  ScheduleSummary in_generate = summary;
  in_generate.schedule_code = code_for_generate(g, summary.schedule_code);
  if (in_generate.schedule_code.empty()) return {};

  if (std::optional<ByteRange> old_block = earlier_block(text, *g.generate->body)) {
    const std::string block = suggestion_block(in_generate, indentation_of_line(text, old_block->begin), indent_step(g));
    return {{"Replace suggested schedule", true, {make_edit(d, *old_block, block)}}};
  }
  // generate() also holds the algorithm: an `if` we cannot judge is never removed whole.
  std::optional<ScheduleAction> replace = replace_in_branches(d, g, *g.generate, in_generate, {cursor, false});
  if (!replace) return {};
  return {std::move(*replace)};
}

}  // namespace

std::vector<ScheduleAction> schedule_actions(const Document &d, std::optional<std::size_t> cursor) {
  if (!d.index_is_current() || !d.analysis_is_current() || !d.analysis->ok()) return {};
  const GeneratorClass *g = analyzed_generator(*d.index, *d.analysis);
  if (!g) return {};
  const ScheduleSummary summary = summarize(d.analysis->outcome.result);
  if (summary.schedule_code.empty()) return {};
  const std::string &text = d.text.text();  // == d.index->text: the index is current
  const std::string step = indent_step(*g);
  std::vector<ScheduleAction> actions;

  // No schedule() (or only a declaration): a new method after generate(), unless generate()
  // writes the schedule itself.
  if (!g->schedule || !g->schedule->body) {
    if (g->schedule) return {};  // declared here, defined elsewhere: we cannot see its body
    if (g->generate && g->generate->body &&
        (holds_directives(g->generate->body_statements) || earlier_block(text, *g->generate->body)))
      return actions_in_generate(d, *g, summary, cursor);
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
  if (std::optional<ByteRange> old_block = earlier_block(text, body)) {
    actions.push_back({"Replace suggested schedule", true, {make_edit(d, *old_block, block)}});
    return actions;
  }

  bool branches = false;
  for (const BodyStatement &s : schedule.body_statements)
    branches |= s.kind == BodyStatement::Kind::If && holds_directives({s});
  if (branches) {
    // Directives under `if`s: follow the branches (BranchRules). With the cursor in a branch of an
    // `if` on a GeneratorParam, replacing that branch comes first, replacing them all second.
    std::optional<ScheduleAction> in_branch = replace_in_branches(d, *g, schedule, summary, {cursor, true});
    std::optional<ScheduleAction> whole = replace_in_branches(d, *g, schedule, summary, {std::nullopt, true});
    if (in_branch && (!whole || in_branch->title != whole->title)) {
      actions.push_back(std::move(*in_branch));
      if (whole) whole->preferred = false;
    }
    if (whole) actions.push_back(std::move(*whole));
  } else {
    // Straight-line directives: every statement but the estimates goes.
    std::vector<ByteRange> removed;
    for (std::size_t i = 0; i < schedule.statements.size(); i++)
      if (!schedule.statement_sets_estimates[i]) removed.push_back(schedule.statements[i]);
    if (!removed.empty()) {
      std::vector<Piece> pieces;
      for (const ByteRange &r : removed) pieces.push_back({statement_lines(text, r), ""});
      pieces.push_back({insert_at, insert_text});
      drop_orphaned_declarations(text, *g, removed, pieces);
      actions.push_back({"Replace schedule", true, to_text_edits(d, std::move(pieces))});
    }
  }
  actions.push_back({"Insert suggested schedule", actions.empty(), {make_edit(d, insert_at, insert_text)}});
  return actions;
}

}  // namespace hlsched::server::lsp
