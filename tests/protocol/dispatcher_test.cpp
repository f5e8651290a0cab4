#include "hlsched/protocol/dispatcher.h"
#include "hlsched/protocol/lsp_types.h"

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

using namespace hlsched::protocol;
using nlohmann::json;

namespace {

// A dispatcher wired to record late replies and log lines.
struct Fixture {
  std::vector<std::string> sent_later;
  std::vector<std::string> logs;
  std::mutex mutex;  // send_later may be called from another thread
  Dispatcher dispatcher{[this](std::string body) {
    std::lock_guard<std::mutex> lock(mutex);
    sent_later.push_back(std::move(body));
  }};

  Fixture() {
    dispatcher.set_logger([this](const std::string& line) { logs.push_back(line); });
    dispatcher.on_request("echo", [](const json& params) { return params; });
    dispatcher.on_request("sum", [](const json& params) {
      int total = 0;
      for (const auto& n : params) total += n.get<int>();
      return json(total);
    });
  }

  // Processes `body` and parses the immediate reply (null when there is none).
  json call(const std::string& body) {
    auto reply = dispatcher.process_body(body);
    return reply ? json::parse(*reply) : json(nullptr);
  }
};

int error_code(const json& reply) { return reply.at("error").at("code").get<int>(); }

}  // namespace

TEST_CASE("request gets its handler's result with the same id") {
  Fixture f;
  CHECK(f.call(R"({"jsonrpc":"2.0","id":"q","method":"echo","params":{"a":1}})") ==
        json::parse(R"({"jsonrpc":"2.0","id":"q","result":{"a":1}})"));
}

TEST_CASE("notifications never get a reply") {
  Fixture f;
  int calls = 0;
  f.dispatcher.on_notification("ping", [&](const json&) { ++calls; });
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"ping"})").has_value());
  CHECK(calls == 1);
  // Even a notification for an unknown method gets no reply, just a log line.
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"nobody"})").has_value());
  CHECK(f.logs.size() == 1);
  // "$/" notifications are optional in LSP: ignored silently.
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"$/setTrace","params":{}})").has_value());
  CHECK(f.logs.size() == 1);
}

TEST_CASE("spec batch example end to end") {
  Fixture f;
  f.dispatcher.on_request("subtract", [](const json& p) { return json(p[0].get<int>() - p[1].get<int>()); });
  f.dispatcher.on_request("get_data", [](const json&) { return json::array({"hello", 5}); });
  int hellos = 0;
  f.dispatcher.on_notification("notify_hello", [&](const json&) { ++hellos; });

  json reply = f.call(R"([
    {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
    {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
    {"foo": "boo"},
    {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
    {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
  ])");
  REQUIRE(reply.is_array());
  REQUIRE(reply.size() == 5);
  CHECK(reply[0] == json::parse(R"({"jsonrpc": "2.0", "result": 7, "id": "1"})"));
  CHECK(reply[1] == json::parse(R"({"jsonrpc": "2.0", "result": 19, "id": "2"})"));
  CHECK(error_code(reply[2]) == kInvalidRequest);
  CHECK(reply[2]["id"].is_null());
  CHECK(error_code(reply[3]) == kMethodNotFound);
  CHECK(reply[3]["id"] == "5");
  CHECK(reply[4] == json::parse(R"({"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"})"));
  CHECK(hellos == 1);
}

TEST_CASE("spec examples: batch error shapes") {
  Fixture f;
  json all_invalid = f.call("[1,2,3]");
  REQUIRE(all_invalid.size() == 3);
  for (const auto& element : all_invalid) {
    CHECK(element == json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be an object"}})"));
  }
  json empty = f.call("[]");
  CHECK(empty.is_object());
  CHECK(error_code(empty) == kInvalidRequest);
  CHECK(empty["id"].is_null());

  json bad_json = f.call(R"([{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method")");
  CHECK(bad_json.is_object());
  CHECK(error_code(bad_json) == kParseError);

  f.dispatcher.on_notification("notify_sum", [](const json&) {});
  f.dispatcher.on_notification("notify_hello", [](const json&) {});
  CHECK_FALSE(f.dispatcher
                  .process_body(R"([{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
                                    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}])")
                  .has_value());
}

TEST_CASE("method not found, including unknown $/ requests") {
  Fixture f;
  CHECK(error_code(f.call(R"({"jsonrpc":"2.0","id":1,"method":"nope"})")) == kMethodNotFound);
  CHECK(error_code(f.call(R"({"jsonrpc":"2.0","id":2,"method":"$/unknown"})")) == kMethodNotFound);
}

TEST_CASE("typed params: a wrong field type is Invalid Params naming the field") {
  Fixture f;
  f.dispatcher.on_request<lsp::HoverParams>("textDocument/hover", [](const lsp::HoverParams& p) {
    return json(p.position.line);
  });
  json ok = f.call(R"({"jsonrpc":"2.0","id":1,"method":"textDocument/hover",
                       "params":{"textDocument":{"uri":"file:///a"},"position":{"line":3,"character":0}}})");
  CHECK(ok["result"] == 3);

  json bad = f.call(R"({"jsonrpc":"2.0","id":2,"method":"textDocument/hover",
                        "params":{"textDocument":{"uri":"file:///a"},"position":{"line":"3","character":0}}})");
  CHECK(error_code(bad) == kInvalidParams);
  CHECK(bad["error"]["message"] == "invalid params: position.line: expected non-negative integer, got string");

  json missing = f.call(R"({"jsonrpc":"2.0","id":3,"method":"textDocument/hover"})");
  CHECK(error_code(missing) == kInvalidParams);
  CHECK(missing["error"]["message"] == "invalid params: expected object, got null");
}

TEST_CASE("params null: optional params are absent, required ones are Invalid Params") {
  Fixture f;
  f.dispatcher.on_request("shutdown", [](const json& params) { return json(params.is_null()); });
  f.dispatcher.on_request<lsp::HoverParams>("textDocument/hover", [](const lsp::HoverParams&) { return json(0); });
  CHECK(f.call(R"({"jsonrpc":"2.0","id":1,"method":"shutdown","params":null})")["result"] == true);
  json required = f.call(R"({"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":null})");
  CHECK(error_code(required) == kInvalidParams);
  CHECK(required["id"] == 2);
}

TEST_CASE("handler errors map to error replies") {
  Fixture f;
  f.dispatcher.on_request("fails", [](const json& p) -> json {
    throw RpcError(p.at(0).get<int>(), "custom", json{{"detail", 1}});
  });
  f.dispatcher.on_request("throws", [](const json&) -> json { throw std::runtime_error("kaput"); });
  f.dispatcher.on_request("throws_int", [](const json&) -> json { throw 42; });

  for (int code : std::vector<int>{kRequestFailed, kServerCancelled, kContentModified, kRequestCancelled, kUnknownErrorCode,
                   kInternalError, kInvalidParams, 1234}) {
    json reply = f.call(R"({"jsonrpc":"2.0","id":1,"method":"fails","params":[)" + std::to_string(code) + "]}");
    CHECK(error_code(reply) == code);
    CHECK(reply["error"]["message"] == "custom");
    CHECK(reply["error"]["data"] == json{{"detail", 1}});
  }
  json internal = f.call(R"({"jsonrpc":"2.0","id":2,"method":"throws"})");
  CHECK(error_code(internal) == kInternalError);
  CHECK(internal["error"]["message"].get<std::string>().find("kaput") != std::string::npos);
  CHECK(error_code(f.call(R"({"jsonrpc":"2.0","id":3,"method":"throws_int"})")) == kInternalError);
}

TEST_CASE("parse error and invalid request are answered") {
  Fixture f;
  json parse = f.call("{oops");
  CHECK(error_code(parse) == kParseError);
  CHECK(parse["id"].is_null());
  json invalid = f.call(R"({"jsonrpc":"2.0","id":4,"method":7})");
  CHECK(error_code(invalid) == kInvalidRequest);
  CHECK(invalid["id"] == 4);
}

TEST_CASE("gate refuses requests and drops notifications") {
  Fixture f;
  bool initialized = false;
  int notified = 0;
  f.dispatcher.on_notification("didSomething", [&](const json&) { ++notified; });
  f.dispatcher.on_request("initialize", [&](const json&) {
    initialized = true;
    return json::object();
  });
  f.dispatcher.set_gate([&](const std::string& method) -> std::optional<ResponseError> {
    if (initialized || method == "initialize") return std::nullopt;
    return ResponseError::with_code(kServerNotInitialized);
  });
  json refused = f.call(R"({"jsonrpc":"2.0","id":1,"method":"echo","params":[]})");
  CHECK(error_code(refused) == kServerNotInitialized);
  CHECK(refused["error"]["message"] == "Server not initialized");
  f.call(R"({"jsonrpc":"2.0","method":"didSomething"})");
  CHECK(notified == 0);
  CHECK(f.call(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})")["result"] == json::object());
  CHECK(f.call(R"({"jsonrpc":"2.0","id":3,"method":"echo","params":[1]})")["result"] == json::array({1}));
  f.call(R"({"jsonrpc":"2.0","method":"didSomething"})");
  CHECK(notified == 1);
}

TEST_CASE("deferred request answered later goes through send_later") {
  Fixture f;
  std::vector<ReplyHandle> parked;
  f.dispatcher.on_deferred_request("slow", [&](const json&, ReplyHandle reply) { parked.push_back(reply); });

  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","id":9,"method":"slow"})").has_value());
  CHECK(f.dispatcher.pending_request_count() == 1);
  REQUIRE(parked.size() == 1);
  CHECK(parked[0].method() == "slow");
  CHECK(parked[0].id() == RequestId(9));
  parked[0].reply("done");
  parked[0].reply("ignored: second reply");
  parked[0].fail(ResponseError::with_code(kInternalError));
  REQUIRE(f.sent_later.size() == 1);
  CHECK(json::parse(f.sent_later[0]) == json::parse(R"({"jsonrpc":"2.0","id":9,"result":"done"})"));
  CHECK(f.dispatcher.pending_request_count() == 0);
  CHECK(parked[0].replied());
}

TEST_CASE("deferred handler that replies immediately answers synchronously") {
  Fixture f;
  f.dispatcher.on_deferred_request("quick", [](const json&, ReplyHandle reply) { reply.reply(1); });
  CHECK(f.call(R"({"jsonrpc":"2.0","id":1,"method":"quick"})")["result"] == 1);
  CHECK(f.sent_later.empty());
}

TEST_CASE("dropped reply handle answers InternalError") {
  Fixture f;
  f.dispatcher.on_deferred_request("forgetful", [](const json&, ReplyHandle) {});
  json reply = f.call(R"({"jsonrpc":"2.0","id":1,"method":"forgetful"})");
  CHECK(error_code(reply) == kInternalError);

  std::optional<ReplyHandle> kept;
  f.dispatcher.on_deferred_request("later_forgetful", [&](const json&, ReplyHandle r) { kept = r; });
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","id":2,"method":"later_forgetful"})").has_value());
  kept.reset();
  REQUIRE(f.sent_later.size() == 1);
  CHECK(error_code(json::parse(f.sent_later[0])) == kInternalError);
}

TEST_CASE("deferred handler throwing before replying answers with the error") {
  Fixture f;
  f.dispatcher.on_deferred_request("bad", [](const json&, ReplyHandle) { throw RpcError(kRequestFailed, "no"); });
  CHECK(error_code(f.call(R"({"jsonrpc":"2.0","id":1,"method":"bad"})")) == kRequestFailed);
}

TEST_CASE("batch with deferred requests is sent as one array when the last one completes") {
  Fixture f;
  std::vector<ReplyHandle> parked;
  f.dispatcher.on_deferred_request("slow", [&](const json& p, ReplyHandle reply) {
    parked.push_back(reply);
    (void)p;
  });
  auto immediate = f.dispatcher.process_body(R"([
    {"jsonrpc":"2.0","id":1,"method":"slow"},
    {"jsonrpc":"2.0","id":2,"method":"echo","params":[2]},
    {"jsonrpc":"2.0","id":3,"method":"slow"}])");
  CHECK_FALSE(immediate.has_value());
  REQUIRE(parked.size() == 2);
  parked[1].reply(3);
  CHECK(f.sent_later.empty());  // still waiting for id 1
  parked[0].reply(1);
  REQUIRE(f.sent_later.size() == 1);
  json batch = json::parse(f.sent_later[0]);
  REQUIRE(batch.is_array());
  CHECK(batch.size() == 3);
  CHECK(batch[0]["result"] == 1);
  CHECK(batch[1]["result"] == json::array({2}));
  CHECK(batch[2]["result"] == 3);
}

TEST_CASE("replies may come from another thread") {
  Fixture f;
  std::vector<std::thread> workers;
  f.dispatcher.on_deferred_request("work", [&](const json& p, ReplyHandle reply) {
    workers.emplace_back([reply, p] { reply.reply(p); });
  });
  std::size_t immediate = 0;  // a fast worker may finish before process_body returns
  for (int i = 0; i < 20; ++i) {
    immediate += f.dispatcher
                     .process_body(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) + R"(,"method":"work","params":[)" +
                                   std::to_string(i) + "]}")
                     .has_value();
  }
  for (auto& worker : workers) worker.join();
  CHECK(immediate + f.sent_later.size() == 20);
  CHECK(f.dispatcher.pending_request_count() == 0);
}

TEST_CASE("$/cancelRequest marks the pending request cancelled") {
  Fixture f;
  std::optional<ReplyHandle> parked;
  f.dispatcher.on_deferred_request("long", [&](const json&, ReplyHandle reply) { parked = reply; });
  f.dispatcher.process_body(R"({"jsonrpc":"2.0","id":"job","method":"long"})");
  REQUIRE(parked.has_value());
  CHECK_FALSE(parked->cancelled());

  f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"other"}})");
  CHECK_FALSE(parked->cancelled());
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"job"}})")
                  .has_value());
  CHECK(parked->cancelled());

  parked->fail(ResponseError::with_code(kRequestCancelled));
  REQUIRE(f.sent_later.size() == 1);
  CHECK(error_code(json::parse(f.sent_later[0])) == kRequestCancelled);

  // Malformed cancel params are logged, not answered.
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[1]}})")
                  .has_value());
  CHECK_FALSE(f.logs.empty());
}

TEST_CASE("server-to-client requests route the client's response to a callback") {
  Fixture f;
  std::optional<Response> got;
  std::string body = f.dispatcher.make_request("window/workDoneProgress/create", json{{"token", "p1"}},
                                               [&](const Response& r) { got = r; });
  json request = json::parse(body);
  CHECK(request["method"] == "window/workDoneProgress/create");
  CHECK(request["params"] == json{{"token", "p1"}});
  REQUIRE(request["id"].is_number_integer());

  json response = {{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", nullptr}};
  CHECK_FALSE(f.dispatcher.process_body(response.dump()).has_value());
  REQUIRE(got.has_value());
  CHECK(got->ok());

  // A second response for the same id, or an unknown id, is only logged.
  got.reset();
  f.dispatcher.process_body(response.dump());
  CHECK_FALSE(got.has_value());
  CHECK_FALSE(f.logs.empty());

  // Ids are unique across requests.
  std::string second = f.dispatcher.make_request("x", nullptr, [](const Response&) {});
  CHECK(json::parse(second)["id"] != request["id"]);
  CHECK(json::parse(second).count("params") == 0);
}

TEST_CASE("error response from the client reaches the callback") {
  Fixture f;
  std::optional<Response> got;
  json request = json::parse(f.dispatcher.make_request("m", json::object(), [&](const Response& r) { got = r; }));
  json response = {{"jsonrpc", "2.0"}, {"id", request["id"]}, {"error", {{"code", kRequestFailed}, {"message", "no"}}}};
  f.dispatcher.process_body(response.dump());
  REQUIRE(got.has_value());
  REQUIRE(got->error.has_value());
  CHECK(got->error->code == kRequestFailed);
}

TEST_CASE("make_notification builds a notification body") {
  CHECK(json::parse(Dispatcher::make_notification("$/progress", json{{"token", 1}, {"value", {{"kind", "end"}}}})) ==
        json::parse(R"({"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":{"kind":"end"}}})"));
}

TEST_CASE("throwing notification handlers are logged, never answered") {
  Fixture f;
  f.dispatcher.on_notification<lsp::DidOpenTextDocumentParams>(
      "textDocument/didOpen", [](const lsp::DidOpenTextDocumentParams&) {});
  CHECK_FALSE(f.dispatcher.process_body(R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}})").has_value());
  REQUIRE(f.logs.size() == 1);
  CHECK(f.logs[0].find("textDocument: missing required field") != std::string::npos);
}
