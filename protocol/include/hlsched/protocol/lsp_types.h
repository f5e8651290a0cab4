#pragma once
// The subset of LSP 3.17 structures hlsched speaks, as plain structs with
// nlohmann from_json/to_json. Member names follow the specification's JSON
// names exactly, so the spec doubles as documentation:
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/
//
// Decoding is strict about types and lenient about absent optional members.
// Any problem throws InvalidParamsError whose message names the field path,
// e.g. "invalid params: contentChanges[0].range.start.line: expected
// non-negative integer, got string"; the Dispatcher answers it as -32602.
// Threading: plain value types.

#include "hlsched/protocol/jsonrpc.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hlsched::protocol::lsp {

using nlohmann::json;
using DocumentUri = std::string;
// A progress token has the same wire shape as a request id: integer | string.
using ProgressToken = RequestId;

// ---- Basic structures ------------------------------------------------------

// `character` counts UTF-16 code units (LSP's default position encoding).
struct Position {
  std::uint32_t line = 0;
  std::uint32_t character = 0;
  friend bool operator==(const Position& a, const Position& b) {
    return a.line == b.line && a.character == b.character;
  }
  friend bool operator!=(const Position& a, const Position& b) { return !(a == b); }
  friend bool operator<(const Position& a, const Position& b) {
    return a.line != b.line ? a.line < b.line : a.character < b.character;
  }
};

struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range& a, const Range& b) { return a.start == b.start && a.end == b.end; }
  friend bool operator!=(const Range& a, const Range& b) { return !(a == b); }
};

struct Location {
  DocumentUri uri;
  Range range;
};

struct TextDocumentIdentifier {
  DocumentUri uri;
};

struct VersionedTextDocumentIdentifier {
  DocumentUri uri;
  std::int32_t version = 0;
};

struct TextDocumentItem {
  DocumentUri uri;
  std::string languageId;
  std::int32_t version = 0;
  std::string text;
};

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};

struct TextEdit {
  Range range;
  std::string newText;
};

// Only the `changes` form (uri -> edits); documentChanges is not needed yet.
struct WorkspaceEdit {
  std::map<DocumentUri, std::vector<TextEdit>> changes;
};

struct Command {
  std::string title;
  std::string command;
  std::optional<json> arguments;  // an array when present
};

// ---- Document synchronisation ---------------------------------------------

// With `range`: replace that range by `text`. Without: `text` is the whole new
// document. (The deprecated `rangeLength` is ignored, as the spec allows.)
struct TextDocumentContentChangeEvent {
  std::optional<Range> range;
  std::string text;
};

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};

struct DidSaveTextDocumentParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> text;  // when the server asked for includeText
};

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};

struct DidChangeConfigurationParams {
  json settings;  // shape is ours to define; kept raw
};

// ---- Diagnostics -----------------------------------------------------------

enum class DiagnosticSeverity : int { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct Diagnostic {
  Range range;
  std::optional<DiagnosticSeverity> severity;
  std::optional<json> code;  // integer | string
  std::optional<std::string> source;
  std::string message;
  std::optional<json> data;  // round-tripped by clients into code actions
};

struct PublishDiagnosticsParams {
  DocumentUri uri;
  std::optional<std::int32_t> version;
  std::vector<Diagnostic> diagnostics;
};

// ---- Hover, code actions, code lenses, commands ----------------------------

struct HoverParams : TextDocumentPositionParams {};

enum class MarkupKind { PlainText, Markdown };  // "plaintext", "markdown"

struct MarkupContent {
  MarkupKind kind = MarkupKind::Markdown;
  std::string value;
};

struct Hover {
  MarkupContent contents;
  std::optional<Range> range;
};

struct CodeActionContext {
  std::vector<Diagnostic> diagnostics;
  std::optional<std::vector<std::string>> only;  // requested CodeActionKinds
};

struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  CodeActionContext context;
};

struct CodeAction {
  std::string title;
  std::optional<std::string> kind;  // e.g. "quickfix", "refactor.rewrite"
  std::optional<std::vector<Diagnostic>> diagnostics;
  std::optional<bool> isPreferred;
  std::optional<WorkspaceEdit> edit;
  std::optional<Command> command;
  std::optional<json> data;
};

struct CodeLensParams {
  TextDocumentIdentifier textDocument;
};

struct CodeLens {
  Range range;
  std::optional<Command> command;
  std::optional<json> data;
};

struct ExecuteCommandParams {
  std::string command;
  std::optional<json> arguments;  // an array when present
};

// ---- Lifecycle --------------------------------------------------------------

// The parts of ClientCapabilities we use, plus the raw object for the rest.
struct ClientCapabilities {
  bool windowWorkDoneProgress = false;  // capabilities.window.workDoneProgress
  json raw = json::object();
};

struct InitializeParams {
  std::optional<std::int64_t> processId;  // null: not started by another process
  std::optional<DocumentUri> rootUri;
  ClientCapabilities capabilities;
  json initializationOptions;  // null when absent
};

enum class TextDocumentSyncKind : int { None = 0, Full = 1, Incremental = 2 };

struct ServerCapabilities {
  std::string positionEncoding = "utf-16";
  // Sent as TextDocumentSyncOptions {openClose: true, change, save: {includeText: false}}.
  TextDocumentSyncKind textDocumentSync = TextDocumentSyncKind::Incremental;
  bool hoverProvider = false;
  bool codeActionProvider = false;
  std::vector<std::string> codeActionKinds;  // advertised when non-empty
  bool codeLensProvider = false;             // sent as {resolveProvider: false}
  std::vector<std::string> executeCommands;  // executeCommandProvider.commands, when non-empty
  std::optional<json> experimental;
};

struct ServerInfo {
  std::string name;
  std::optional<std::string> version;
};

struct InitializeResult {
  ServerCapabilities capabilities;
  std::optional<ServerInfo> serverInfo;
};

// ---- Progress and cancellation ----------------------------------------------

struct CancelParams {
  RequestId id = std::int64_t{0};
};

struct WorkDoneProgressCreateParams {
  ProgressToken token = std::int64_t{0};
};

struct WorkDoneProgressBegin {  // kind: "begin"
  std::string title;
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<std::uint32_t> percentage;  // 0..100
};

struct WorkDoneProgressReport {  // kind: "report"
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<std::uint32_t> percentage;
};

struct WorkDoneProgressEnd {  // kind: "end"
  std::optional<std::string> message;
};

// `$/progress` params; `value` is one of the WorkDoneProgress* above as JSON.
struct ProgressParams {
  ProgressToken token = std::int64_t{0};
  json value;
};

// ---- JSON conversions (ADL hooks for nlohmann) -------------------------------

#define HLSCHED_LSP_JSON(Type)                \
  void to_json(json& j, const Type& value);   \
  void from_json(const json& j, Type& value);

HLSCHED_LSP_JSON(Position)
HLSCHED_LSP_JSON(Range)
HLSCHED_LSP_JSON(Location)
HLSCHED_LSP_JSON(TextDocumentIdentifier)
HLSCHED_LSP_JSON(VersionedTextDocumentIdentifier)
HLSCHED_LSP_JSON(TextDocumentItem)
HLSCHED_LSP_JSON(TextDocumentPositionParams)
HLSCHED_LSP_JSON(TextEdit)
HLSCHED_LSP_JSON(WorkspaceEdit)
HLSCHED_LSP_JSON(Command)
HLSCHED_LSP_JSON(TextDocumentContentChangeEvent)
HLSCHED_LSP_JSON(DidOpenTextDocumentParams)
HLSCHED_LSP_JSON(DidChangeTextDocumentParams)
HLSCHED_LSP_JSON(DidSaveTextDocumentParams)
HLSCHED_LSP_JSON(DidCloseTextDocumentParams)
HLSCHED_LSP_JSON(DidChangeConfigurationParams)
HLSCHED_LSP_JSON(DiagnosticSeverity)
HLSCHED_LSP_JSON(Diagnostic)
HLSCHED_LSP_JSON(PublishDiagnosticsParams)
HLSCHED_LSP_JSON(HoverParams)
HLSCHED_LSP_JSON(MarkupKind)
HLSCHED_LSP_JSON(MarkupContent)
HLSCHED_LSP_JSON(Hover)
HLSCHED_LSP_JSON(CodeActionContext)
HLSCHED_LSP_JSON(CodeActionParams)
HLSCHED_LSP_JSON(CodeAction)
HLSCHED_LSP_JSON(CodeLensParams)
HLSCHED_LSP_JSON(CodeLens)
HLSCHED_LSP_JSON(ExecuteCommandParams)
HLSCHED_LSP_JSON(ClientCapabilities)
HLSCHED_LSP_JSON(InitializeParams)
HLSCHED_LSP_JSON(TextDocumentSyncKind)
HLSCHED_LSP_JSON(ServerCapabilities)
HLSCHED_LSP_JSON(ServerInfo)
HLSCHED_LSP_JSON(InitializeResult)
HLSCHED_LSP_JSON(CancelParams)
HLSCHED_LSP_JSON(WorkDoneProgressCreateParams)
HLSCHED_LSP_JSON(WorkDoneProgressBegin)
HLSCHED_LSP_JSON(WorkDoneProgressReport)
HLSCHED_LSP_JSON(WorkDoneProgressEnd)
HLSCHED_LSP_JSON(ProgressParams)

#undef HLSCHED_LSP_JSON

// Decodes request/notification params, throwing InvalidParamsError (never a
// raw nlohmann exception) on any mismatch.
template <class T>
T parse_params(const json& params) {
  try {
    return params.get<T>();
  } catch (const json::exception& e) {
    throw InvalidParamsError("", e.what());
  }
}

}  // namespace hlsched::protocol::lsp
