#pragma once
// JSON-RPC 2.0 message model: typed messages, parsing a frame body into them
// (single message or batch) and serializing them back.
// https://www.jsonrpc.org/specification
//
// Threading: plain value types and pure functions; safe to use from any thread.

#include "hlsched/protocol/errors.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hlsched::protocol {

// A request id: integer or string (LSP's `integer | string`; null and
// fractional ids are rejected as Invalid Request).
class RequestId {
 public:
  RequestId() : value_(std::int64_t{0}) {}  // nlohmann's get<> needs a default
  RequestId(std::int64_t number) : value_(number) {}
  RequestId(std::string text) : value_(std::move(text)) {}
  RequestId(const char* text) : value_(std::string(text)) {}

  bool is_number() const { return std::holds_alternative<std::int64_t>(value_); }
  std::int64_t number() const { return std::get<std::int64_t>(value_); }
  const std::string& text() const { return std::get<std::string>(value_); }
  std::string to_string() const;  // for logs: 42 or "abc" (quoted)

  friend bool operator==(const RequestId& a, const RequestId& b) { return a.value_ == b.value_; }
  friend bool operator!=(const RequestId& a, const RequestId& b) { return a.value_ != b.value_; }
  friend bool operator<(const RequestId& a, const RequestId& b) { return a.value_ < b.value_; }

 private:
  std::variant<std::int64_t, std::string> value_;
};

void to_json(nlohmann::json& j, const RequestId& id);
// Throws InvalidParamsError for anything but an integer or a string.
void from_json(const nlohmann::json& j, RequestId& id);

// `params` is an object, an array, or null when the member was absent or null.
struct Request {
  RequestId id;
  std::string method;
  nlohmann::json params;
};

struct Notification {
  std::string method;
  nlohmann::json params;
};

struct ResponseError {
  int code = kInternalError;
  std::string message;
  nlohmann::json data;  // null when absent

  static ResponseError from(const RpcError& error);
  // Uses the spec's canonical message for the code when `message` is empty.
  static ResponseError with_code(int code, std::string message = {});
};

// A reply. `id` is nullopt (serialized as null) only for errors about a
// message whose id could not be determined (parse error, invalid request).
struct Response {
  std::optional<RequestId> id;
  nlohmann::json result;               // meaningful when !error
  std::optional<ResponseError> error;

  static Response success(RequestId id, nlohmann::json result);
  static Response failure(std::optional<RequestId> id, ResponseError error);
  bool ok() const { return !error.has_value(); }
};

// A message that broke the rules. For malformed requests/notifications the
// peer is owed `reply_error` (with `id` echoed when it was readable). Malformed
// *responses* are never answered (answering a response could loop forever), so
// `needs_reply` is false for them; they are only worth a log line.
struct InvalidMessage {
  std::optional<RequestId> id;
  ResponseError reply_error;
  bool needs_reply = true;

  Response reply() const { return Response::failure(id, reply_error); }
};

using Message = std::variant<Request, Notification, Response>;
using ParsedMessage = std::variant<Request, Notification, Response, InvalidMessage>;

// The outcome of parsing one frame body.
// - invalid JSON      -> is_batch=false, one InvalidMessage(ParseError)
// - empty array `[]`  -> is_batch=false, one InvalidMessage(InvalidRequest)
//   (the spec answers an empty batch with a single error, not an array)
// - non-empty array   -> is_batch=true, one entry per element, in order
// - anything else     -> is_batch=false, one entry
struct ParsedBody {
  bool is_batch = false;
  std::vector<ParsedMessage> messages;
};

// JSON nested deeper than this is refused as a parse error: nlohmann's
// serializer and copy are recursive, so unbounded depth could exhaust the stack.
inline constexpr int kMaxJsonDepth = 256;

ParsedBody parse_body(std::string_view body);
ParsedMessage parse_message(const nlohmann::json& message);

nlohmann::json message_to_json(const Message& message);
void to_json(nlohmann::json& j, const Request& request);
void to_json(nlohmann::json& j, const Notification& notification);
void to_json(nlohmann::json& j, const Response& response);
void to_json(nlohmann::json& j, const ResponseError& error);

// Compact JSON text. Invalid UTF-8 in strings is replaced with U+FFFD rather
// than throwing, so a handler returning odd bytes cannot kill the connection.
std::string serialize_json(const nlohmann::json& json);
std::string serialize(const Message& message);

}  // namespace hlsched::protocol
