#include "hlsched/protocol/jsonrpc.h"

#include <limits>
#include <utility>

namespace hlsched::protocol {
namespace {

using nlohmann::json;

// Thrown from the parser callback to abort parsing of over-deep input.
struct TooDeep {};

std::optional<RequestId> read_id(const json& value) {
  if (value.is_number_unsigned()) {
    auto n = value.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return RequestId(static_cast<std::int64_t>(n));
  }
  if (value.is_number_integer()) return RequestId(value.get<std::int64_t>());
  if (value.is_string()) return RequestId(value.get<std::string>());
  return std::nullopt;
}

bool has_jsonrpc_2(const json& message) {
  auto it = message.find("jsonrpc");
  return it != message.end() && it->is_string() && it->get_ref<const std::string&>() == "2.0";
}

InvalidMessage invalid_request(std::optional<RequestId> id, const std::string& why) {
  return InvalidMessage{std::move(id), ResponseError::with_code(kInvalidRequest, "Invalid Request: " + why),
                        true};
}

// A response from the peer (to a request we sent). Malformed ones get no reply.
ParsedMessage parse_response(const json& message) {
  auto ignored = [](std::optional<RequestId> id, const std::string& why) {
    return InvalidMessage{std::move(id), ResponseError::with_code(kInvalidRequest, "Invalid Response: " + why),
                          false};
  };
  auto id_it = message.find("id");
  std::optional<RequestId> id = id_it == message.end() ? std::nullopt : read_id(*id_it);
  if (!has_jsonrpc_2(message)) return ignored(id, "\"jsonrpc\" must be \"2.0\"");
  if (id_it == message.end()) return ignored(id, "missing \"id\"");
  if (!id && !id_it->is_null()) return ignored(id, "\"id\" must be an integer, a string or null");

  bool has_result = message.contains("result");
  auto error_it = message.find("error");
  if (has_result == (error_it != message.end())) {
    return ignored(id, "exactly one of \"result\" and \"error\" is required");
  }
  if (has_result) {
    if (!id) return ignored(id, "a successful response needs an id");
    return Response::success(*id, message.at("result"));
  }
  const json& error = *error_it;
  if (!error.is_object()) return ignored(id, "\"error\" must be an object");
  auto code = error.find("code");
  auto text = error.find("message");
  if (code == error.end() || !code->is_number_integer()) return ignored(id, "\"error.code\" must be an integer");
  if (text == error.end() || !text->is_string()) return ignored(id, "\"error.message\" must be a string");
  ResponseError decoded;
  // Codes are int32 on the wire; clamp wild values rather than overflow.
  auto wide = code->get<std::int64_t>();
  decoded.code = wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()
                     ? kUnknownErrorCode
                     : static_cast<int>(wide);
  decoded.message = text->get<std::string>();
  if (auto data = error.find("data"); data != error.end()) decoded.data = *data;
  return Response::failure(id, std::move(decoded));
}

}  // namespace

std::string RequestId::to_string() const {
  return is_number() ? std::to_string(number()) : json(text()).dump();
}

void to_json(json& j, const RequestId& id) {
  if (id.is_number()) j = id.number();
  else j = id.text();
}

void from_json(const json& j, RequestId& id) {
  auto parsed = read_id(j);
  if (!parsed) throw InvalidParamsError("", std::string("expected integer or string, got ") + j.type_name());
  id = std::move(*parsed);
}

ResponseError ResponseError::from(const RpcError& error) {
  return ResponseError{error.code(), error.message(), error.data()};
}

ResponseError ResponseError::with_code(int code, std::string message) {
  if (message.empty()) message = default_error_message(code);
  return ResponseError{code, std::move(message), nullptr};
}

Response Response::success(RequestId id, json result) {
  return Response{std::move(id), std::move(result), std::nullopt};
}

Response Response::failure(std::optional<RequestId> id, ResponseError error) {
  return Response{std::move(id), nullptr, std::move(error)};
}

ParsedMessage parse_message(const json& message) {
  if (!message.is_object()) return invalid_request(std::nullopt, "a message must be an object");

  bool looks_like_response = !message.contains("method") &&
                             (message.contains("result") || message.contains("error"));
  if (looks_like_response) return parse_response(message);

  auto id_it = message.find("id");
  std::optional<RequestId> id = id_it == message.end() ? std::nullopt : read_id(*id_it);

  if (!has_jsonrpc_2(message)) return invalid_request(id, "\"jsonrpc\" must be \"2.0\"");
  if (id_it != message.end() && !id) return invalid_request(id, "\"id\" must be an integer or a string");
  auto method = message.find("method");
  if (method == message.end() || !method->is_string()) {
    return invalid_request(id, "\"method\" must be a string");
  }
  // JSON-RPC 2.0 lets "params" be omitted; many clients send null instead ("shutdown", "exit"),
  // so null means absent. Handlers that need params reject it as Invalid Params.
  json params = nullptr;
  if (auto it = message.find("params"); it != message.end() && !it->is_null()) {
    if (!it->is_object() && !it->is_array()) return invalid_request(id, "\"params\" must be an object or an array");
    params = *it;
  }
  std::string name = method->get<std::string>();
  if (id) return Request{std::move(*id), std::move(name), std::move(params)};
  return Notification{std::move(name), std::move(params)};
}

ParsedBody parse_body(std::string_view body) {
  auto parse_error = [](const std::string& why) {
    ParsedBody result;
    result.messages.push_back(
        InvalidMessage{std::nullopt, ResponseError::with_code(kParseError, "Parse error: " + why), true});
    return result;
  };

  json document;
  try {
    document = json::parse(body.begin(), body.end(), [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxJsonDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return parse_error("nesting deeper than " + std::to_string(kMaxJsonDepth));
  } catch (const json::exception& e) {
    return parse_error(e.what());
  }

  ParsedBody result;
  if (!document.is_array()) {
    result.messages.push_back(parse_message(document));
    return result;
  }
  if (document.empty()) {
    result.messages.push_back(invalid_request(std::nullopt, "empty batch"));
    return result;
  }
  result.is_batch = true;
  for (const json& element : document) result.messages.push_back(parse_message(element));
  return result;
}

void to_json(json& j, const ResponseError& error) {
  j = json{{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) j["data"] = error.data;
}

void to_json(json& j, const Request& request) {
  j = json{{"jsonrpc", "2.0"}, {"id", request.id}, {"method", request.method}};
  if (!request.params.is_null()) j["params"] = request.params;
}

void to_json(json& j, const Notification& notification) {
  j = json{{"jsonrpc", "2.0"}, {"method", notification.method}};
  if (!notification.params.is_null()) j["params"] = notification.params;
}

void to_json(json& j, const Response& response) {
  j = json{{"jsonrpc", "2.0"}};
  j["id"] = response.id ? json(*response.id) : json(nullptr);
  if (response.error) j["error"] = *response.error;
  else j["result"] = response.result;  // null is a valid result (e.g. "shutdown")
}

json message_to_json(const Message& message) {
  return std::visit([](const auto& m) { return json(m); }, message);
}

std::string serialize_json(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string serialize(const Message& message) { return serialize_json(message_to_json(message)); }

}  // namespace hlsched::protocol
