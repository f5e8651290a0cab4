// libFuzzer target: raw bytes -> FrameDecoder -> Dispatcher::process_body, with
// a handful of handlers that exercise typed LSP params, errors, deferred
// replies, cancellation and TextDocument edits. Besides "no crash, leak or UB"
// it checks a few invariants and aborts when one breaks.
//
// Input layout: byte 0 picks the chunk size the stream is fed in, byte 1 the
// decoder limits; the rest is the byte stream from the "client".

#include "hlsched/protocol/dispatcher.h"
#include "hlsched/protocol/framing.h"
#include "hlsched/protocol/lsp_types.h"
#include "hlsched/protocol/text_document.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace hlsched::protocol;
using nlohmann::json;

void check(bool condition) {
  if (!condition) std::abort();
}

// Every reply must be valid JSON that survives framing.
void check_reply(const std::string& body) {
  json parsed = json::parse(body);  // throws (and so crashes the fuzzer) if invalid
  check(parsed.is_object() || (parsed.is_array() && !parsed.empty()));
  FrameDecoder decoder;
  decoder.feed(encode_frame(body));
  auto frame = decoder.next();
  check(frame && std::get<std::string>(*frame) == body);
}

void check_position_round_trip(const TextDocument& doc, lsp::Position p) {
  std::size_t offset = doc.offset_at(p);
  check(offset <= doc.text().size());
  check(doc.offset_at(doc.position_at(offset)) == offset);
}

struct Harness {
  std::vector<ReplyHandle> parked;
  std::map<std::string, TextDocument> documents;
  Dispatcher dispatcher{[](std::string body) { check_reply(body); }};

  Harness() {
    dispatcher.on_request("echo", [](const json& params) { return params; });
    dispatcher.on_request("fail", [](const json&) -> json { throw RpcError(kRequestFailed, "failed"); });
    dispatcher.on_request("throw", [](const json&) -> json { throw std::runtime_error("boom"); });
    dispatcher.on_request<lsp::HoverParams>("textDocument/hover", [this](const lsp::HoverParams& p) -> json {
      auto doc = documents.find(p.textDocument.uri);
      if (doc == documents.end()) throw RpcError(kInvalidParams, "unknown document");
      check_position_round_trip(doc->second, p.position);
      return lsp::Hover{{lsp::MarkupKind::PlainText, std::string(doc->second.line_text(p.position.line))}, {}};
    });
    dispatcher.on_request<lsp::InitializeParams>("initialize", [](const lsp::InitializeParams&) {
      return json(lsp::InitializeResult{});
    });
    dispatcher.on_request<lsp::CodeActionParams>("textDocument/codeAction", [](const lsp::CodeActionParams& p) {
      return json(std::vector<lsp::CodeAction>{{"fix", "quickfix", p.context.diagnostics, true, {}, {}, {}}});
    });
    dispatcher.on_deferred_request("defer", [this](const json&, ReplyHandle reply) {
      if (parked.size() < 8) parked.push_back(std::move(reply));  // else dropped: InternalError reply
    });
    dispatcher.on_notification("flush", [this](const json& params) {
      // Complete parked requests in a fuzzer-chosen way: reply, fail or drop.
      for (auto& reply : parked) {
        if (params.is_array() && !params.empty() && params[0].is_number_integer()) {
          reply.fail(ResponseError::with_code(kRequestCancelled));
        } else if (reply.cancelled()) {
          reply.fail(ResponseError::with_code(kRequestCancelled));
        } else {
          reply.reply(params);
        }
      }
      parked.clear();
    });
    dispatcher.on_notification<lsp::DidOpenTextDocumentParams>(
        "textDocument/didOpen", [this](const lsp::DidOpenTextDocumentParams& p) {
          if (documents.size() < 4) documents.insert_or_assign(p.textDocument.uri, TextDocument(p.textDocument.text));
        });
    dispatcher.on_notification<lsp::DidChangeTextDocumentParams>(
        "textDocument/didChange", [this](const lsp::DidChangeTextDocumentParams& p) {
          auto doc = documents.find(p.textDocument.uri);
          if (doc == documents.end()) return;
          for (const auto& change : p.contentChanges) {
            if (change.range) {
              check_position_round_trip(doc->second, change.range->start);
              check_position_round_trip(doc->second, change.range->end);
            }
          }
          doc->second.apply_changes(p.contentChanges, p.textDocument.version);  // may throw InvalidParams
          check(doc->second.text().size() < (1u << 24));
        });
    dispatcher.on_notification<lsp::DidCloseTextDocumentParams>(
        "textDocument/didClose", [this](const lsp::DidCloseTextDocumentParams& p) { documents.erase(p.textDocument.uri); });
    // An outstanding server->client request, so responses with id 1 have a taker.
    dispatcher.make_request("window/workDoneProgress/create", json{{"token", 1}}, [](const Response&) {});
  }

  void handle_body(const std::string& body) {
    if (auto reply = dispatcher.process_body(body)) check_reply(*reply);
    // Parsed messages must serialize to something that parses back the same way.
    ParsedBody parsed = parse_body(body);
    for (const auto& message : parsed.messages) {
      if (const auto* request = std::get_if<Request>(&message)) {
        ParsedBody again = parse_body(serialize(*request));
        check(again.messages.size() == 1 && std::get<Request>(again.messages[0]).id == request->id);
      }
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::size_t chunk = data[0] == 0 ? size : data[0] % 64 + 1;
  FrameLimits limits;
  if (data[1] & 1) limits.max_body_bytes = data[1] >> 1;  // tiny limits exercise skipping
  if (data[1] & 2) limits.max_header_bytes = 16 + data[1];
  std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);

  Harness harness;
  FrameDecoder decoder(limits);
  for (std::size_t at = 0; at < stream.size() && decoder.healthy(); at += chunk) {
    decoder.feed(stream.substr(at, chunk));
    while (auto frame = decoder.next()) {
      if (const auto* body = std::get_if<std::string>(&*frame)) {
        check(body->size() <= limits.max_body_bytes);
        harness.handle_body(*body);
      } else {
        const auto& error = std::get<FramingError>(*frame);
        check(error.recoverable == decoder.healthy());
        check(to_string(error.kind) != nullptr);
      }
    }
  }
  return 0;  // parked replies are dropped here and answered with InternalError
}
