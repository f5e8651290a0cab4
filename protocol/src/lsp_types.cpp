#include "hlsched/protocol/lsp_types.h"

#include "json_fields.h"

namespace hlsched::protocol::lsp {

using fields::read;
using fields::read_optional;
using fields::read_or;
using fields::require_object;
using fields::write_optional;

// ---- Basic structures ------------------------------------------------------

void to_json(json& j, const Position& v) { j = json{{"line", v.line}, {"character", v.character}}; }
void from_json(const json& j, Position& v) {
  require_object(j);
  read(j, "line", v.line);
  read(j, "character", v.character);
}

void to_json(json& j, const Range& v) { j = json{{"start", v.start}, {"end", v.end}}; }
void from_json(const json& j, Range& v) {
  require_object(j);
  read(j, "start", v.start);
  read(j, "end", v.end);
}

void to_json(json& j, const Location& v) { j = json{{"uri", v.uri}, {"range", v.range}}; }
void from_json(const json& j, Location& v) {
  require_object(j);
  read(j, "uri", v.uri);
  read(j, "range", v.range);
}

void to_json(json& j, const TextDocumentIdentifier& v) { j = json{{"uri", v.uri}}; }
void from_json(const json& j, TextDocumentIdentifier& v) {
  require_object(j);
  read(j, "uri", v.uri);
}

void to_json(json& j, const VersionedTextDocumentIdentifier& v) {
  j = json{{"uri", v.uri}, {"version", v.version}};
}
void from_json(const json& j, VersionedTextDocumentIdentifier& v) {
  require_object(j);
  read(j, "uri", v.uri);
  read(j, "version", v.version);
}

void to_json(json& j, const TextDocumentItem& v) {
  j = json{{"uri", v.uri}, {"languageId", v.languageId}, {"version", v.version}, {"text", v.text}};
}
void from_json(const json& j, TextDocumentItem& v) {
  require_object(j);
  read(j, "uri", v.uri);
  read(j, "languageId", v.languageId);
  read(j, "version", v.version);
  read(j, "text", v.text);
}

void to_json(json& j, const TextDocumentPositionParams& v) {
  j = json{{"textDocument", v.textDocument}, {"position", v.position}};
}
void from_json(const json& j, TextDocumentPositionParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
  read(j, "position", v.position);
}

void to_json(json& j, const TextEdit& v) { j = json{{"range", v.range}, {"newText", v.newText}}; }
void from_json(const json& j, TextEdit& v) {
  require_object(j);
  read(j, "range", v.range);
  read(j, "newText", v.newText);
}

void to_json(json& j, const WorkspaceEdit& v) { j = json{{"changes", v.changes}}; }
void from_json(const json& j, WorkspaceEdit& v) {
  require_object(j);
  read_or(j, "changes", v.changes, {});
}

void to_json(json& j, const Command& v) {
  j = json{{"title", v.title}, {"command", v.command}};
  write_optional(j, "arguments", v.arguments);
}
void from_json(const json& j, Command& v) {
  require_object(j);
  read(j, "title", v.title);
  read(j, "command", v.command);
  read_optional(j, "arguments", v.arguments);
  if (v.arguments && !v.arguments->is_array()) throw InvalidParamsError("arguments", "expected array");
}

// ---- Document synchronisation ---------------------------------------------

void to_json(json& j, const TextDocumentContentChangeEvent& v) {
  j = json{{"text", v.text}};
  write_optional(j, "range", v.range);
}
void from_json(const json& j, TextDocumentContentChangeEvent& v) {
  require_object(j);
  read_optional(j, "range", v.range);
  read(j, "text", v.text);
}

void to_json(json& j, const DidOpenTextDocumentParams& v) { j = json{{"textDocument", v.textDocument}}; }
void from_json(const json& j, DidOpenTextDocumentParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
}

void to_json(json& j, const DidChangeTextDocumentParams& v) {
  j = json{{"textDocument", v.textDocument}, {"contentChanges", v.contentChanges}};
}
void from_json(const json& j, DidChangeTextDocumentParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
  read(j, "contentChanges", v.contentChanges);
}

void to_json(json& j, const DidSaveTextDocumentParams& v) {
  j = json{{"textDocument", v.textDocument}};
  write_optional(j, "text", v.text);
}
void from_json(const json& j, DidSaveTextDocumentParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
  read_optional(j, "text", v.text);
}

void to_json(json& j, const DidCloseTextDocumentParams& v) { j = json{{"textDocument", v.textDocument}}; }
void from_json(const json& j, DidCloseTextDocumentParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
}

void to_json(json& j, const DidChangeConfigurationParams& v) { j = json{{"settings", v.settings}}; }
void from_json(const json& j, DidChangeConfigurationParams& v) {
  require_object(j);
  read_or(j, "settings", v.settings, json(nullptr));
}

// ---- Diagnostics -----------------------------------------------------------

void to_json(json& j, const DiagnosticSeverity& v) { j = static_cast<int>(v); }
void from_json(const json& j, DiagnosticSeverity& v) {
  auto n = fields::read_integer<std::int32_t>(j, "integer 1..4");
  if (n < 1 || n > 4) throw InvalidParamsError("", "expected integer 1..4, got " + std::to_string(n));
  v = static_cast<DiagnosticSeverity>(n);
}

void to_json(json& j, const Diagnostic& v) {
  j = json{{"range", v.range}, {"message", v.message}};
  write_optional(j, "severity", v.severity);
  write_optional(j, "code", v.code);
  write_optional(j, "source", v.source);
  write_optional(j, "data", v.data);
}
void from_json(const json& j, Diagnostic& v) {
  require_object(j);
  read(j, "range", v.range);
  read_optional(j, "severity", v.severity);
  read_optional(j, "code", v.code);
  if (v.code && !v.code->is_string() && !v.code->is_number_integer()) {
    throw InvalidParamsError("code", std::string("expected integer or string, got ") + v.code->type_name());
  }
  read_optional(j, "source", v.source);
  read(j, "message", v.message);
  read_optional(j, "data", v.data);
}

void to_json(json& j, const PublishDiagnosticsParams& v) {
  j = json{{"uri", v.uri}, {"diagnostics", v.diagnostics}};
  write_optional(j, "version", v.version);
}
void from_json(const json& j, PublishDiagnosticsParams& v) {
  require_object(j);
  read(j, "uri", v.uri);
  read_optional(j, "version", v.version);
  read(j, "diagnostics", v.diagnostics);
}

// ---- Hover, code actions, code lenses, commands ----------------------------

void to_json(json& j, const HoverParams& v) { to_json(j, static_cast<const TextDocumentPositionParams&>(v)); }
void from_json(const json& j, HoverParams& v) { from_json(j, static_cast<TextDocumentPositionParams&>(v)); }

void to_json(json& j, const MarkupKind& v) { j = v == MarkupKind::Markdown ? "markdown" : "plaintext"; }
void from_json(const json& j, MarkupKind& v) {
  std::string text;
  fields::read_value(j, text);
  if (text == "markdown") v = MarkupKind::Markdown;
  else if (text == "plaintext") v = MarkupKind::PlainText;
  else throw InvalidParamsError("", "expected \"plaintext\" or \"markdown\", got \"" + text + "\"");
}

void to_json(json& j, const MarkupContent& v) { j = json{{"kind", v.kind}, {"value", v.value}}; }
void from_json(const json& j, MarkupContent& v) {
  require_object(j);
  read(j, "kind", v.kind);
  read(j, "value", v.value);
}

void to_json(json& j, const Hover& v) {
  j = json{{"contents", v.contents}};
  write_optional(j, "range", v.range);
}
void from_json(const json& j, Hover& v) {
  require_object(j);
  read(j, "contents", v.contents);
  read_optional(j, "range", v.range);
}

void to_json(json& j, const CodeActionContext& v) {
  j = json{{"diagnostics", v.diagnostics}};
  write_optional(j, "only", v.only);
}
void from_json(const json& j, CodeActionContext& v) {
  require_object(j);
  read(j, "diagnostics", v.diagnostics);
  read_optional(j, "only", v.only);
}

void to_json(json& j, const CodeActionParams& v) {
  j = json{{"textDocument", v.textDocument}, {"range", v.range}, {"context", v.context}};
}
void from_json(const json& j, CodeActionParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
  read(j, "range", v.range);
  read(j, "context", v.context);
}

void to_json(json& j, const CodeAction& v) {
  j = json{{"title", v.title}};
  write_optional(j, "kind", v.kind);
  write_optional(j, "diagnostics", v.diagnostics);
  write_optional(j, "isPreferred", v.isPreferred);
  write_optional(j, "edit", v.edit);
  write_optional(j, "command", v.command);
  write_optional(j, "data", v.data);
}
void from_json(const json& j, CodeAction& v) {
  require_object(j);
  read(j, "title", v.title);
  read_optional(j, "kind", v.kind);
  read_optional(j, "diagnostics", v.diagnostics);
  read_optional(j, "isPreferred", v.isPreferred);
  read_optional(j, "edit", v.edit);
  read_optional(j, "command", v.command);
  read_optional(j, "data", v.data);
}

void to_json(json& j, const CodeLensParams& v) { j = json{{"textDocument", v.textDocument}}; }
void from_json(const json& j, CodeLensParams& v) {
  require_object(j);
  read(j, "textDocument", v.textDocument);
}

void to_json(json& j, const CodeLens& v) {
  j = json{{"range", v.range}};
  write_optional(j, "command", v.command);
  write_optional(j, "data", v.data);
}
void from_json(const json& j, CodeLens& v) {
  require_object(j);
  read(j, "range", v.range);
  read_optional(j, "command", v.command);
  read_optional(j, "data", v.data);
}

void to_json(json& j, const ExecuteCommandParams& v) {
  j = json{{"command", v.command}};
  write_optional(j, "arguments", v.arguments);
}
void from_json(const json& j, ExecuteCommandParams& v) {
  require_object(j);
  read(j, "command", v.command);
  read_optional(j, "arguments", v.arguments);
  if (v.arguments && !v.arguments->is_array()) throw InvalidParamsError("arguments", "expected array");
}

// ---- Lifecycle --------------------------------------------------------------

void to_json(json& j, const ClientCapabilities& v) {
  j = v.raw.is_object() ? v.raw : json::object();
  j["window"]["workDoneProgress"] = v.windowWorkDoneProgress;
}
void from_json(const json& j, ClientCapabilities& v) {
  require_object(j);
  v.raw = j;
  v.windowWorkDoneProgress = false;
  if (auto window = j.find("window"); window != j.end() && !window->is_null()) {
    try {
      require_object(*window);
      read_or(*window, "workDoneProgress", v.windowWorkDoneProgress, false);
    } catch (InvalidParamsError& e) {
      e.prepend_field("window");
      throw;
    }
  }
}

void to_json(json& j, const InitializeParams& v) {
  j = json{{"processId", v.processId ? json(*v.processId) : json(nullptr)},
           {"rootUri", v.rootUri ? json(*v.rootUri) : json(nullptr)},
           {"capabilities", v.capabilities}};
  if (!v.initializationOptions.is_null()) j["initializationOptions"] = v.initializationOptions;
}
void from_json(const json& j, InitializeParams& v) {
  require_object(j);
  read_optional(j, "processId", v.processId);
  read_optional(j, "rootUri", v.rootUri);
  read_or(j, "capabilities", v.capabilities, {});
  read_or(j, "initializationOptions", v.initializationOptions, json(nullptr));
}

void to_json(json& j, const TextDocumentSyncKind& v) { j = static_cast<int>(v); }
void from_json(const json& j, TextDocumentSyncKind& v) {
  auto n = fields::read_integer<std::int32_t>(j, "integer 0..2");
  if (n < 0 || n > 2) throw InvalidParamsError("", "expected integer 0..2, got " + std::to_string(n));
  v = static_cast<TextDocumentSyncKind>(n);
}

void to_json(json& j, const ServerCapabilities& v) {
  j = json{{"positionEncoding", v.positionEncoding},
           {"textDocumentSync",
            {{"openClose", true}, {"change", v.textDocumentSync}, {"save", {{"includeText", false}}}}},
           {"hoverProvider", v.hoverProvider}};
  if (v.codeActionProvider && !v.codeActionKinds.empty()) {
    j["codeActionProvider"] = {{"codeActionKinds", v.codeActionKinds}};
  } else {
    j["codeActionProvider"] = v.codeActionProvider;
  }
  if (v.codeLensProvider) j["codeLensProvider"] = {{"resolveProvider", false}};
  if (!v.executeCommands.empty()) j["executeCommandProvider"] = {{"commands", v.executeCommands}};
  write_optional(j, "experimental", v.experimental);
}
// Reads back exactly the shapes to_json writes (for tests and test clients).
void from_json(const json& j, ServerCapabilities& v) {
  require_object(j);
  v = ServerCapabilities{};
  read_or(j, "positionEncoding", v.positionEncoding, std::string("utf-16"));
  if (auto sync = j.find("textDocumentSync"); sync != j.end()) {
    try {
      require_object(*sync);
      read(*sync, "change", v.textDocumentSync);
    } catch (InvalidParamsError& e) {
      e.prepend_field("textDocumentSync");
      throw;
    }
  }
  read_or(j, "hoverProvider", v.hoverProvider, false);
  if (auto actions = j.find("codeActionProvider"); actions != j.end()) {
    v.codeActionProvider = !actions->is_boolean() || actions->get<bool>();
    if (actions->is_object()) read_or(*actions, "codeActionKinds", v.codeActionKinds, {});
  }
  v.codeLensProvider = j.contains("codeLensProvider");
  if (auto commands = j.find("executeCommandProvider"); commands != j.end() && commands->is_object()) {
    read_or(*commands, "commands", v.executeCommands, {});
  }
  read_optional(j, "experimental", v.experimental);
}

void to_json(json& j, const ServerInfo& v) {
  j = json{{"name", v.name}};
  write_optional(j, "version", v.version);
}
void from_json(const json& j, ServerInfo& v) {
  require_object(j);
  read(j, "name", v.name);
  read_optional(j, "version", v.version);
}

void to_json(json& j, const InitializeResult& v) {
  j = json{{"capabilities", v.capabilities}};
  write_optional(j, "serverInfo", v.serverInfo);
}
void from_json(const json& j, InitializeResult& v) {
  require_object(j);
  read(j, "capabilities", v.capabilities);
  read_optional(j, "serverInfo", v.serverInfo);
}

// ---- Progress and cancellation ----------------------------------------------

void to_json(json& j, const CancelParams& v) { j = json{{"id", v.id}}; }
void from_json(const json& j, CancelParams& v) {
  require_object(j);
  read(j, "id", v.id);
}

void to_json(json& j, const WorkDoneProgressCreateParams& v) { j = json{{"token", v.token}}; }
void from_json(const json& j, WorkDoneProgressCreateParams& v) {
  require_object(j);
  read(j, "token", v.token);
}

namespace {
void require_kind(const json& j, const char* expected) {
  std::string kind;
  read(j, "kind", kind);
  if (kind != expected) throw InvalidParamsError("kind", std::string("expected \"") + expected + "\", got \"" + kind + "\"");
}
}  // namespace

void to_json(json& j, const WorkDoneProgressBegin& v) {
  j = json{{"kind", "begin"}, {"title", v.title}};
  write_optional(j, "cancellable", v.cancellable);
  write_optional(j, "message", v.message);
  write_optional(j, "percentage", v.percentage);
}
void from_json(const json& j, WorkDoneProgressBegin& v) {
  require_object(j);
  require_kind(j, "begin");
  read(j, "title", v.title);
  read_optional(j, "cancellable", v.cancellable);
  read_optional(j, "message", v.message);
  read_optional(j, "percentage", v.percentage);
}

void to_json(json& j, const WorkDoneProgressReport& v) {
  j = json{{"kind", "report"}};
  write_optional(j, "cancellable", v.cancellable);
  write_optional(j, "message", v.message);
  write_optional(j, "percentage", v.percentage);
}
void from_json(const json& j, WorkDoneProgressReport& v) {
  require_object(j);
  require_kind(j, "report");
  read_optional(j, "cancellable", v.cancellable);
  read_optional(j, "message", v.message);
  read_optional(j, "percentage", v.percentage);
}

void to_json(json& j, const WorkDoneProgressEnd& v) {
  j = json{{"kind", "end"}};
  write_optional(j, "message", v.message);
}
void from_json(const json& j, WorkDoneProgressEnd& v) {
  require_object(j);
  require_kind(j, "end");
  read_optional(j, "message", v.message);
}

void to_json(json& j, const ProgressParams& v) { j = json{{"token", v.token}, {"value", v.value}}; }
void from_json(const json& j, ProgressParams& v) {
  require_object(j);
  read(j, "token", v.token);
  read(j, "value", v.value);
}

}  // namespace hlsched::protocol::lsp
