#pragma once
// Error codes and the exception type that request handlers throw to produce an
// error reply. Shared by the JSON-RPC layer and the LSP type decoders.

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace hlsched::protocol {

// JSON-RPC 2.0 error codes plus the ones LSP adds on top.
// A plain enum (not enum class) because the wire value is an arbitrary int:
// clients may send codes we do not list, and we must round-trip them.
enum ErrorCode : int {
  // JSON-RPC 2.0
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  // LSP (jsonrpcReservedErrorRange)
  kServerNotInitialized = -32002,
  kUnknownErrorCode = -32001,
  // LSP (lspReservedErrorRange)
  kRequestFailed = -32803,
  kServerCancelled = -32802,
  kContentModified = -32801,
  kRequestCancelled = -32800,
};

// The spec's canonical message for a code ("Parse error", "Invalid Request", ...),
// or "Unknown error" for codes outside the lists above.
const char* default_error_message(int code);

// Thrown by request handlers (and by LSP params decoding) to make the dispatcher
// reply with a JSON-RPC error instead of a result. Any other exception escaping a
// handler becomes an InternalError reply.
// Threading: an ordinary value type, no shared state.
class RpcError : public std::exception {
 public:
  RpcError(int code, std::string message, nlohmann::json data = nullptr);

  int code() const { return code_; }
  const std::string& message() const { return message_; }
  const nlohmann::json& data() const { return data_; }
  const char* what() const noexcept override { return message_.c_str(); }

 protected:
  int code_;
  std::string message_;
  nlohmann::json data_;
};

// InvalidParams (-32602) that names the offending field, e.g.
// "textDocument.uri: expected string, got number". Decoders throw it for the
// innermost field; each enclosing decoder prepends its own field name on the way
// out, so the final message carries the whole path.
class InvalidParamsError : public RpcError {
 public:
  InvalidParamsError(std::string field_path, std::string reason);

  const std::string& field_path() const { return field_path_; }
  const std::string& reason() const { return reason_; }

  // "range" + "start.line" -> "range.start.line"; array indices as "[3]".
  void prepend_field(std::string_view parent);

 private:
  void rebuild_message();

  std::string field_path_;
  std::string reason_;
};

}  // namespace hlsched::protocol
