#pragma once
// Routes incoming JSON-RPC messages to handlers registered by method name and
// assembles the replies, following the JSON-RPC 2.0 rules for batches.
//
// Handlers come in three flavours:
//   on_request         returns the result (or throws RpcError) before returning;
//   on_deferred_request gets a ReplyHandle and may answer later, from any thread
//                      (long jobs; cooperates with $/cancelRequest);
//   on_notification    no reply.
// Params are decoded into `Params` (any type with an nlohmann from_json, e.g. the
// LSP structs); a decoding failure is answered with InvalidParams naming the field.

#include "hlsched/protocol/jsonrpc.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace hlsched::protocol {

namespace detail {
struct PendingRequest;
class ReplySlots;
class InFlightRequests;
template <class T> struct Identity { using type = T; };
}  // namespace detail

// Keeps a template parameter out of argument deduction, so that
// `on_request("m", [](const json&) {...})` picks the default Params = json.
template <class T> using NonDeduced = typename detail::Identity<T>::type;

// Delivers a message body to the peer; the transport adds framing and writes it.
using SendFunction = std::function<void(std::string body)>;

// The right to answer one request, exactly once.
// Copies share state: the first reply()/fail() wins, later ones are ignored.
// If every copy is destroyed without an answer, the request is answered with
// InternalError, so the client is never left waiting.
// Threading: may be used and completed from any thread.
class ReplyHandle {
 public:
  explicit ReplyHandle(std::shared_ptr<detail::PendingRequest> state);

  const RequestId& id() const;
  const std::string& method() const;

  void reply(nlohmann::json result) const;
  void fail(ResponseError error) const;
  void fail(const RpcError& error) const { fail(ResponseError::from(error)); }

  bool replied() const;
  // True once the client sent $/cancelRequest for this id. Long work should poll
  // it and then fail(ResponseError::with_code(kRequestCancelled)).
  bool cancelled() const;

 private:
  std::shared_ptr<detail::PendingRequest> state_;
};

// See the file comment.
// Threading: registration and process_body() are meant for one thread (the
// connection's reader). ReplyHandles and make_request() may be used from any
// thread; replies that complete after process_body() returned go through the
// `send_later` function, which must therefore be thread-safe.
class Dispatcher {
 public:
  using RawRequestHandler = std::function<void(const nlohmann::json& params, ReplyHandle reply)>;
  using RawNotificationHandler = std::function<void(const nlohmann::json& params)>;
  using ResponseCallback = std::function<void(const Response& response)>;
  // Returns an error to refuse a method (e.g. ServerNotInitialized before
  // "initialize"); refused notifications are dropped silently.
  using Gate = std::function<std::optional<ResponseError>(const std::string& method)>;
  using Logger = std::function<void(const std::string& problem)>;

  explicit Dispatcher(SendFunction send_later);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  template <class Params = nlohmann::json>
  void on_request(std::string method, std::function<nlohmann::json(const NonDeduced<Params>&)> handler) {
    add_request_handler(std::move(method), [handler = std::move(handler)](const nlohmann::json& params,
                                                                           ReplyHandle reply) {
      reply.reply(handler(decode_params<Params>(params)));
    });
  }

  template <class Params = nlohmann::json>
  void on_deferred_request(std::string method,
                           std::function<void(const NonDeduced<Params>&, ReplyHandle)> handler) {
    add_request_handler(std::move(method), [handler = std::move(handler)](const nlohmann::json& params,
                                                                           ReplyHandle reply) {
      handler(decode_params<Params>(params), std::move(reply));
    });
  }

  template <class Params = nlohmann::json>
  void on_notification(std::string method, std::function<void(const NonDeduced<Params>&)> handler) {
    add_notification_handler(std::move(method), [handler = std::move(handler)](const nlohmann::json& params) {
      handler(decode_params<Params>(params));
    });
  }

  void set_gate(Gate gate) { gate_ = std::move(gate); }
  // Receives problems nobody can be told about over the wire: malformed or
  // unexpected responses, failing notification handlers, unknown notifications.
  void set_logger(Logger logger) { logger_ = std::move(logger); }

  // Handles one frame body. Returns the reply body to send now, or nullopt when
  // there is nothing to send yet (notifications only, or deferred requests
  // whose replies will go through `send_later`, as one array for a batch).
  std::optional<std::string> process_body(std::string_view body);

  // Builds a server->client request body with a fresh id; `on_response` runs
  // inside process_body() when the client's answer arrives.
  std::string make_request(const std::string& method, nlohmann::json params, ResponseCallback on_response);
  static std::string make_notification(const std::string& method, nlohmann::json params);

  // Requests received but not answered yet.
  std::size_t pending_request_count() const;

  // Turns `params` into Params; nlohmann's own type errors become InvalidParams.
  template <class Params>
  static Params decode_params(const nlohmann::json& params) {
    if constexpr (std::is_same_v<Params, nlohmann::json>) {
      return params;
    } else {
      try {
        return params.get<Params>();
      } catch (const nlohmann::json::exception& e) {
        throw InvalidParamsError("", e.what());
      }
    }
  }

 private:
  void add_request_handler(std::string method, RawRequestHandler handler);
  void add_notification_handler(std::string method, RawNotificationHandler handler);

  void handle(ParsedMessage message, const std::shared_ptr<detail::ReplySlots>& slots);
  void handle_request(Request request, const std::shared_ptr<detail::ReplySlots>& slots);
  void handle_notification(const Notification& notification);
  void handle_response(const Response& response);
  void log(const std::string& problem) const;

  std::map<std::string, RawRequestHandler, std::less<>> request_handlers_;
  std::map<std::string, RawNotificationHandler, std::less<>> notification_handlers_;
  Gate gate_;
  Logger logger_;
  SendFunction send_later_;
  std::shared_ptr<detail::InFlightRequests> in_flight_;

  mutable std::mutex outgoing_mutex_;  // make_request() may run on worker threads
  std::int64_t next_outgoing_id_ = 1;
  std::map<RequestId, ResponseCallback> outgoing_;
};

}  // namespace hlsched::protocol
