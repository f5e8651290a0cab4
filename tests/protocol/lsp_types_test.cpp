#include "hlsched/protocol/lsp_types.h"

#include <catch2/catch.hpp>

using namespace hlsched::protocol;
using namespace hlsched::protocol::lsp;
using nlohmann::json;

namespace {

// The InvalidParams message produced when decoding `text` as T.
template <class T>
std::string decode_error(const std::string& text) {
  try {
    parse_params<T>(json::parse(text));
  } catch (const InvalidParamsError& e) {
    CHECK(e.code() == kInvalidParams);
    return e.message();
  }
  FAIL("decoding succeeded: " << text);
  return {};
}

template <class T>
void check_round_trip(const json& wire) {
  T value = parse_params<T>(wire);
  CHECK(json(value) == wire);
}

}  // namespace

TEST_CASE("didOpen decodes") {
  auto p = parse_params<DidOpenTextDocumentParams>(json::parse(
      R"({"textDocument":{"uri":"file:///x.cpp","languageId":"cpp","version":3,"text":"int x;\n"}})"));
  CHECK(p.textDocument.uri == "file:///x.cpp");
  CHECK(p.textDocument.languageId == "cpp");
  CHECK(p.textDocument.version == 3);
  CHECK(p.textDocument.text == "int x;\n");
}

TEST_CASE("didChange decodes incremental and full changes") {
  auto p = parse_params<DidChangeTextDocumentParams>(json::parse(R"({
    "textDocument":{"uri":"file:///x","version":4},
    "contentChanges":[
      {"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"rangeLength":1,"text":"y"},
      {"text":"whole"}]})"));
  REQUIRE(p.contentChanges.size() == 2);
  REQUIRE(p.contentChanges[0].range.has_value());
  CHECK(p.contentChanges[0].range->start == Position{0, 1});
  CHECK(p.contentChanges[0].text == "y");
  CHECK_FALSE(p.contentChanges[1].range.has_value());
  CHECK(p.textDocument.version == 4);
}

TEST_CASE("error messages name the field path") {
  CHECK(decode_error<DidChangeTextDocumentParams>(R"({
    "textDocument":{"uri":"file:///x","version":4},
    "contentChanges":[{"text":"a"},{"range":{"start":{"line":0,"character":-1},"end":{"line":0,"character":0}},"text":""}]})") ==
        "invalid params: contentChanges[1].range.start.character: expected non-negative integer, got out-of-range -1");
  CHECK(decode_error<DidOpenTextDocumentParams>(R"({"textDocument":{"uri":5}})") ==
        "invalid params: textDocument.uri: expected string, got number");
  CHECK(decode_error<DidOpenTextDocumentParams>(R"({"textDocument":{"uri":"u","languageId":"c","version":1}})") ==
        "invalid params: textDocument.text: missing required field");
  CHECK(decode_error<DidCloseTextDocumentParams>(R"([1])") == "invalid params: expected object, got array");
  CHECK(decode_error<HoverParams>(R"({"textDocument":{"uri":"u"},"position":{"line":1.5,"character":0}})") ==
        "invalid params: position.line: expected non-negative integer, got number");
  CHECK(decode_error<CodeActionParams>(R"({"textDocument":{"uri":"u"},
      "range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},
      "context":{"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},
                                 "message":"m","severity":9}]}})") ==
        "invalid params: context.diagnostics[0].severity: expected integer 1..4, got 9");
  CHECK(decode_error<VersionedTextDocumentIdentifier>(R"({"uri":"u","version":4294967296})") ==
        "invalid params: version: expected integer, got out-of-range 4294967296");
  CHECK(decode_error<CancelParams>(R"({"id":true})") == "invalid params: id: expected integer or string, got boolean");
  CHECK(decode_error<InitializeParams>(R"({"processId":"12"})") ==
        "invalid params: processId: expected integer, got string");
  CHECK(decode_error<InitializeParams>(R"({"capabilities":{"window":{"workDoneProgress":"yes"}}})") ==
        "invalid params: capabilities.window.workDoneProgress: expected boolean, got string");
  CHECK(decode_error<ExecuteCommandParams>(R"({"command":"c","arguments":{}})") ==
        "invalid params: arguments: expected array");
  CHECK(decode_error<WorkDoneProgressBegin>(R"({"kind":"end","title":"t"})") ==
        "invalid params: kind: expected \"begin\", got \"end\"");
  CHECK(decode_error<MarkupContent>(R"({"kind":"html","value":""})") ==
        "invalid params: kind: expected \"plaintext\" or \"markdown\", got \"html\"");
  CHECK(decode_error<WorkspaceEdit>(R"({"changes":{"file:///a":[{"range":{}, "newText":""}]}})") ==
        "invalid params: changes.file:///a[0].range.start: missing required field");
}

TEST_CASE("initialize params: the parts we use, nulls and absences") {
  auto p = parse_params<InitializeParams>(json::parse(R"({
    "processId": 1234, "rootUri": "file:///ws",
    "capabilities": {"window": {"workDoneProgress": true}, "textDocument": {"hover": {}}},
    "initializationOptions": {"target": "host-cuda"}, "trace": "off"})"));
  CHECK(p.processId == 1234);
  CHECK(p.rootUri == std::optional<std::string>("file:///ws"));
  CHECK(p.capabilities.windowWorkDoneProgress);
  CHECK(p.capabilities.raw.contains("textDocument"));
  CHECK(p.initializationOptions["target"] == "host-cuda");

  auto minimal = parse_params<InitializeParams>(json::parse(R"({"processId":null,"rootUri":null,"capabilities":{}})"));
  CHECK_FALSE(minimal.processId.has_value());
  CHECK_FALSE(minimal.rootUri.has_value());
  CHECK_FALSE(minimal.capabilities.windowWorkDoneProgress);
  CHECK(minimal.initializationOptions.is_null());
}

TEST_CASE("initialize result serializes the advertised capabilities") {
  InitializeResult result;
  result.capabilities.hoverProvider = true;
  result.capabilities.codeActionProvider = true;
  result.capabilities.codeActionKinds = {"quickfix"};
  result.capabilities.codeLensProvider = true;
  result.capabilities.executeCommands = {"hlsched.apply"};
  result.serverInfo = ServerInfo{"hlsched", "0.1.0"};
  json wire = result;
  CHECK(wire == json::parse(R"({
    "capabilities": {
      "positionEncoding": "utf-16",
      "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
      "hoverProvider": true,
      "codeActionProvider": {"codeActionKinds": ["quickfix"]},
      "codeLensProvider": {"resolveProvider": false},
      "executeCommandProvider": {"commands": ["hlsched.apply"]}},
    "serverInfo": {"name": "hlsched", "version": "0.1.0"}})"));
  check_round_trip<InitializeResult>(wire);
}

TEST_CASE("server-to-client structures serialize as the spec shows") {
  Diagnostic d;
  d.range = Range{{1, 2}, {1, 5}};
  d.severity = DiagnosticSeverity::Warning;
  d.source = "hlsched";
  d.message = "loop not parallelised";
  PublishDiagnosticsParams publish{"file:///a", 7, {d}};
  CHECK(json(publish) == json::parse(R"({"uri":"file:///a","version":7,"diagnostics":[
    {"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}},
     "severity":2,"source":"hlsched","message":"loop not parallelised"}]})"));

  Hover hover{MarkupContent{MarkupKind::Markdown, "**f**"}, Range{{0, 0}, {0, 1}}};
  CHECK(json(hover) == json::parse(R"({"contents":{"kind":"markdown","value":"**f**"},
                                       "range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}})"));

  CodeAction action;
  action.title = "Apply schedule";
  action.kind = "quickfix";
  action.isPreferred = true;
  action.edit = WorkspaceEdit{{{"file:///a", {TextEdit{Range{{0, 0}, {0, 0}}, "x"}}}}};
  action.command = Command{"t", "hlsched.apply", json::array({1})};
  json wire = action;
  CHECK(wire["edit"]["changes"]["file:///a"][0]["newText"] == "x");
  CHECK(wire["command"]["arguments"] == json::array({1}));
  CHECK_FALSE(wire.contains("diagnostics"));
  check_round_trip<CodeAction>(wire);

  CodeLens lens{Range{{3, 0}, {3, 0}}, Command{"Autoschedule", "hlsched.autoschedule", std::nullopt}, json{{"k", 1}}};
  check_round_trip<CodeLens>(json(lens));

  CHECK(json(WorkDoneProgressBegin{"Scheduling", true, "start", 0}) ==
        json::parse(R"({"kind":"begin","title":"Scheduling","cancellable":true,"message":"start","percentage":0})"));
  CHECK(json(WorkDoneProgressReport{std::nullopt, "half", 50}) ==
        json::parse(R"({"kind":"report","message":"half","percentage":50})"));
  CHECK(json(WorkDoneProgressEnd{"done"}) == json::parse(R"({"kind":"end","message":"done"})"));
  CHECK(json(ProgressParams{ProgressToken("tok"), json(WorkDoneProgressEnd{})}) ==
        json::parse(R"({"token":"tok","value":{"kind":"end"}})"));
  CHECK(json(WorkDoneProgressCreateParams{ProgressToken(std::int64_t{5})}) == json::parse(R"({"token":5})"));
}

TEST_CASE("client-to-server structures round-trip") {
  check_round_trip<HoverParams>(json::parse(R"({"textDocument":{"uri":"u"},"position":{"line":1,"character":2}})"));
  check_round_trip<CodeLensParams>(json::parse(R"({"textDocument":{"uri":"u"}})"));
  check_round_trip<DidSaveTextDocumentParams>(json::parse(R"({"textDocument":{"uri":"u"},"text":"t"})"));
  check_round_trip<DidCloseTextDocumentParams>(json::parse(R"({"textDocument":{"uri":"u"}})"));
  check_round_trip<DidChangeConfigurationParams>(json::parse(R"({"settings":{"hlsched":{"target":"x"}}})"));
  check_round_trip<CancelParams>(json::parse(R"({"id":"abc"})"));
  check_round_trip<CancelParams>(json::parse(R"({"id":17})"));
  check_round_trip<ExecuteCommandParams>(json::parse(R"({"command":"c","arguments":[1,"a"]})"));
  check_round_trip<Location>(json::parse(R"({"uri":"u","range":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}}})"));
  check_round_trip<CodeActionParams>(json::parse(R"({"textDocument":{"uri":"u"},
      "range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},
      "context":{"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},
                                 "message":"m","code":"E1","data":{"fix":1}}],"only":["quickfix"]}})"));
}

TEST_CASE("unknown members are ignored") {
  auto p = parse_params<TextDocumentIdentifier>(json::parse(R"({"uri":"u","extra":[1,2]})"));
  CHECK(p.uri == "u");
}
