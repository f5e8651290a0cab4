#include "hlsched/protocol/jsonrpc.h"

#include <catch2/catch.hpp>

using namespace hlsched::protocol;
using nlohmann::json;

namespace {

InvalidMessage only_invalid(const ParsedBody& parsed) {
  REQUIRE(parsed.messages.size() == 1);
  REQUIRE(std::holds_alternative<InvalidMessage>(parsed.messages[0]));
  return std::get<InvalidMessage>(parsed.messages[0]);
}

int invalid_code(const std::string& body) { return only_invalid(parse_body(body)).reply_error.code; }

}  // namespace

TEST_CASE("request with params object, array and none") {
  auto parsed = parse_body(R"({"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]})");
  REQUIRE_FALSE(parsed.is_batch);
  REQUIRE(parsed.messages.size() == 1);
  const auto& request = std::get<Request>(parsed.messages[0]);
  CHECK(request.id == RequestId(1));
  CHECK(request.method == "subtract");
  CHECK(request.params == json::array({42, 23}));

  auto named = std::get<Request>(parse_body(R"({"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}})").messages[0]);
  CHECK(named.id == RequestId("a"));
  CHECK(named.params == json{{"x", 1}});

  auto bare = std::get<Request>(parse_body(R"({"jsonrpc":"2.0","id":0,"method":"shutdown"})").messages[0]);
  CHECK(bare.params.is_null());
}

TEST_CASE("params null is the same as no params") {
  // Many clients send "params": null for shutdown and exit; JSON-RPC 2.0 lets params be omitted.
  auto request = parse_body(R"({"jsonrpc":"2.0","id":2,"method":"shutdown","params":null})");
  REQUIRE(request.messages.size() == 1);
  REQUIRE(std::holds_alternative<Request>(request.messages[0]));
  CHECK(std::get<Request>(request.messages[0]).params.is_null());

  auto notification = parse_body(R"({"jsonrpc":"2.0","method":"exit","params":null})");
  REQUIRE(notification.messages.size() == 1);
  REQUIRE(std::holds_alternative<Notification>(notification.messages[0]));
  CHECK(std::get<Notification>(notification.messages[0]).params.is_null());

  // Serialized back, absent stays absent.
  CHECK_FALSE(json::parse(serialize(std::get<Request>(request.messages[0]))).contains("params"));
}

TEST_CASE("notification has no id") {
  auto parsed = parse_body(R"({"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]})");
  const auto& notification = std::get<Notification>(parsed.messages[0]);
  CHECK(notification.method == "update");
  CHECK(notification.params.size() == 5);
}

TEST_CASE("invalid JSON is a parse error with null id") {
  const auto& invalid = only_invalid(parse_body(R"({"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz])"));
  CHECK(invalid.reply_error.code == kParseError);
  CHECK_FALSE(invalid.id.has_value());
  CHECK(invalid.needs_reply);
  CHECK(invalid_code("") == kParseError);
  CHECK(invalid_code("{} trailing") == kParseError);
  CHECK(invalid_code("\xff\xfe") == kParseError);            // not UTF-8
  CHECK(invalid_code("\"\xed\xa0\x80\"") == kParseError);  // encoded surrogate
}

TEST_CASE("spec example: invalid JSON inside a batch is one parse error") {
  auto parsed = parse_body(R"([
    {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
    {"jsonrpc": "2.0", "method"
  ])");
  CHECK_FALSE(parsed.is_batch);
  CHECK(only_invalid(parsed).reply_error.code == kParseError);
}

TEST_CASE("nesting deeper than the limit is a parse error, not a stack overflow") {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(invalid_code(deep) == kParseError);
  std::string ok = R"({"jsonrpc":"2.0","method":"m","params":)" + std::string(100, '[') + std::string(100, ']') + "}";
  CHECK(std::holds_alternative<Notification>(parse_body(ok).messages[0]));
}

TEST_CASE("wrong shapes are Invalid Request") {
  // Spec example: method not a string, params not structured.
  CHECK(invalid_code(R"({"jsonrpc": "2.0", "method": 1, "params": "bar"})") == kInvalidRequest);
  CHECK(invalid_code(R"({"method":"m","id":1})") == kInvalidRequest);                   // no jsonrpc
  CHECK(invalid_code(R"({"jsonrpc":"1.0","method":"m","id":1})") == kInvalidRequest);   // wrong version
  CHECK(invalid_code(R"({"jsonrpc":2.0,"method":"m","id":1})") == kInvalidRequest);     // version not a string
  CHECK(invalid_code(R"({"jsonrpc":"2.0","id":1})") == kInvalidRequest);                // no method
  CHECK(invalid_code(R"({"jsonrpc":"2.0","method":null,"id":1})") == kInvalidRequest);
  CHECK(invalid_code(R"({"jsonrpc":"2.0","method":"m","params":3,"id":1})") == kInvalidRequest);
  CHECK(invalid_code(R"({"jsonrpc":"2.0","method":"m","params":"s"})") == kInvalidRequest);
  CHECK(invalid_code(R"({"jsonrpc":"2.0","method":"m","params":true,"id":1})") == kInvalidRequest);
  CHECK(invalid_code(R"("just a string")") == kInvalidRequest);
  CHECK(invalid_code("42") == kInvalidRequest);
  CHECK(invalid_code("null") == kInvalidRequest);
  CHECK(invalid_code(R"({"foo":"boo"})") == kInvalidRequest);
}

TEST_CASE("bad id types are Invalid Request with null id") {
  for (std::string id : {"null", "1.5", "true", "{}", "[]", "18446744073709551615"}) {
    INFO("id " << id);
    const auto& invalid = only_invalid(parse_body(R"({"jsonrpc":"2.0","method":"m","id":)" + id + "}"));
    CHECK(invalid.reply_error.code == kInvalidRequest);
    CHECK_FALSE(invalid.id.has_value());
  }
}

TEST_CASE("a readable id is echoed in the Invalid Request error") {
  const auto& invalid = only_invalid(parse_body(R"({"jsonrpc":"2.0","id":7,"method":["x"]})"));
  CHECK(invalid.reply_error.code == kInvalidRequest);
  REQUIRE(invalid.id.has_value());
  CHECK(*invalid.id == RequestId(7));
}

TEST_CASE("ids: negative, large and string ids round-trip") {
  for (std::string id : {"-5", "9223372036854775807", "\"\"", "\"x y\""}) {
    auto request = std::get<Request>(parse_body(R"({"jsonrpc":"2.0","method":"m","id":)" + id + "}").messages[0]);
    CHECK(json(request.id).dump() == id);
  }
}

TEST_CASE("empty batch is a single Invalid Request") {
  auto parsed = parse_body("[]");
  CHECK_FALSE(parsed.is_batch);
  CHECK(only_invalid(parsed).reply_error.code == kInvalidRequest);
}

TEST_CASE("spec example: invalid elements of a batch each get their own error") {
  auto parsed = parse_body("[1,2,3]");
  REQUIRE(parsed.is_batch);
  REQUIRE(parsed.messages.size() == 3);
  for (const auto& message : parsed.messages) {
    CHECK(std::get<InvalidMessage>(message).reply_error.code == kInvalidRequest);
  }
  CHECK(parse_body("[1]").is_batch);  // a one-element batch still is a batch
}

TEST_CASE("spec example: mixed batch") {
  auto parsed = parse_body(R"([
    {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
    {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
    {"foo": "boo"},
    {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
    {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
  ])");
  REQUIRE(parsed.is_batch);
  REQUIRE(parsed.messages.size() == 6);
  CHECK(std::holds_alternative<Request>(parsed.messages[0]));
  CHECK(std::holds_alternative<Notification>(parsed.messages[1]));
  CHECK(std::holds_alternative<Request>(parsed.messages[2]));
  CHECK(std::holds_alternative<InvalidMessage>(parsed.messages[3]));
  CHECK(std::holds_alternative<Request>(parsed.messages[4]));
  CHECK(std::holds_alternative<Request>(parsed.messages[5]));
}

TEST_CASE("responses from the client are parsed") {
  auto ok = std::get<Response>(parse_body(R"({"jsonrpc":"2.0","id":3,"result":null})").messages[0]);
  CHECK(ok.ok());
  CHECK(*ok.id == RequestId(3));
  CHECK(ok.result.is_null());

  auto failed = std::get<Response>(
      parse_body(R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"nope","data":[1]}})").messages[0]);
  REQUIRE(failed.error.has_value());
  CHECK(failed.error->code == kMethodNotFound);
  CHECK(failed.error->message == "nope");
  CHECK(failed.error->data == json::array({1}));

  auto anonymous = std::get<Response>(
      parse_body(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})").messages[0]);
  CHECK_FALSE(anonymous.id.has_value());
}

TEST_CASE("malformed responses are reported but never answered") {
  for (std::string body : {
           R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}})",
           R"({"jsonrpc":"2.0","result":1})",
           R"({"jsonrpc":"2.0","id":null,"result":1})",
           R"({"jsonrpc":"2.0","id":1.5,"result":1})",
           R"({"id":1,"result":1})",
           R"({"jsonrpc":"2.0","id":1,"error":"bad"})",
           R"({"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}})",
           R"({"jsonrpc":"2.0","id":1,"error":{"code":1}})",
       }) {
    INFO(body);
    const auto& invalid = only_invalid(parse_body(body));
    CHECK_FALSE(invalid.needs_reply);
  }
}

TEST_CASE("serialization of requests, notifications and responses") {
  CHECK(json::parse(serialize(Request{RequestId(5), "window/workDoneProgress/create", json{{"token", "t"}}})) ==
        json::parse(R"({"jsonrpc":"2.0","id":5,"method":"window/workDoneProgress/create","params":{"token":"t"}})"));
  CHECK(json::parse(serialize(Notification{"exit", nullptr})) == json::parse(R"({"jsonrpc":"2.0","method":"exit"})"));
  CHECK(json::parse(serialize(Response::success(RequestId("a"), nullptr))) ==
        json::parse(R"({"jsonrpc":"2.0","id":"a","result":null})"));
  CHECK(json::parse(serialize(Response::failure(std::nullopt, ResponseError::with_code(kParseError)))) ==
        json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})"));
  ResponseError with_data{kRequestFailed, "boom", json{{"why", 1}}};
  CHECK(json::parse(serialize(Response::failure(RequestId(1), with_data)))["error"] ==
        json::parse(R"({"code":-32803,"message":"boom","data":{"why":1}})"));
}

TEST_CASE("serialized messages parse back to the same message") {
  Message original = Request{RequestId("id-1"), "textDocument/hover", json{{"a", json::array({1, "b"})}}};
  auto reparsed = std::get<Request>(parse_body(serialize(original)).messages[0]);
  CHECK(reparsed.id == RequestId("id-1"));
  CHECK(reparsed.params == std::get<Request>(original).params);
}

TEST_CASE("serialize replaces invalid UTF-8 instead of throwing") {
  std::string text = serialize(Response::success(RequestId(1), std::string("bad \xff byte")));
  CHECK(text.find("\xEF\xBF\xBD") != std::string::npos);  // U+FFFD
}

TEST_CASE("every error code has its canonical message") {
  CHECK(std::string(default_error_message(kParseError)) == "Parse error");
  CHECK(std::string(default_error_message(kInvalidRequest)) == "Invalid Request");
  CHECK(std::string(default_error_message(kMethodNotFound)) == "Method not found");
  CHECK(std::string(default_error_message(kInvalidParams)) == "Invalid params");
  CHECK(std::string(default_error_message(kInternalError)) == "Internal error");
  CHECK(std::string(default_error_message(kServerNotInitialized)) == "Server not initialized");
  CHECK(std::string(default_error_message(kUnknownErrorCode)) == "Unknown error");
  CHECK(std::string(default_error_message(kRequestFailed)) == "Request failed");
  CHECK(std::string(default_error_message(kServerCancelled)) == "Server cancelled");
  CHECK(std::string(default_error_message(kContentModified)) == "Content modified");
  CHECK(std::string(default_error_message(kRequestCancelled)) == "Request cancelled");
  CHECK(kServerNotInitialized == -32002);
  CHECK(kUnknownErrorCode == -32001);
  CHECK(kRequestFailed == -32803);
  CHECK(kServerCancelled == -32802);
  CHECK(kContentModified == -32801);
  CHECK(kRequestCancelled == -32800);
}
