#include "hlsched/protocol/dispatcher.h"

#include <atomic>
#include <utility>
#include <vector>

namespace hlsched::protocol {

using nlohmann::json;

namespace detail {

// Collects the replies owed for one frame body. A single message owes at most
// one reply; a batch owes one array holding every reply, which can only be sent
// once the last deferred request is answered. Slots are added while the body is
// being dispatched; seal() then says whether everything is already answered.
// Threading: fill() may run on any thread; add()/seal() on the dispatching thread.
class ReplySlots {
 public:
  ReplySlots(bool is_batch, SendFunction send_later)
      : is_batch_(is_batch), send_later_(std::move(send_later)) {}

  std::size_t add() {
    std::lock_guard<std::mutex> lock(mutex_);
    replies_.emplace_back();
    ++unfilled_;
    return replies_.size() - 1;
  }

  void fill(std::size_t slot, json reply) {
    std::optional<std::string> late_body;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      replies_[slot] = std::move(reply);
      --unfilled_;
      if (sealed_ && unfilled_ == 0) late_body = render();
    }
    if (late_body && send_later_) send_later_(std::move(*late_body));
  }

  std::optional<std::string> seal() {
    std::lock_guard<std::mutex> lock(mutex_);
    sealed_ = true;
    if (replies_.empty() || unfilled_ > 0) return std::nullopt;
    return render();
  }

 private:
  std::string render() const {
    return serialize_json(is_batch_ ? json(replies_) : replies_.front());
  }

  std::mutex mutex_;
  std::vector<json> replies_;
  std::size_t unfilled_ = 0;
  bool sealed_ = false;
  const bool is_batch_;
  const SendFunction send_later_;
};

// Requests not yet answered, by id, so $/cancelRequest can reach them.
// Entries are removed by PendingRequest::complete(), which always runs before a
// PendingRequest dies, so the raw pointers here never dangle.
// Threading: all members are mutex-protected.
class InFlightRequests {
 public:
  void add(const RequestId& id, PendingRequest* request) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_[id] = request;  // a reused id shadows the older request
  }
  void remove(const RequestId& id, PendingRequest* request) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = requests_.find(id);
    if (it != requests_.end() && it->second == request) requests_.erase(it);
  }
  bool cancel(const RequestId& id);
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<RequestId, PendingRequest*> requests_;
};

// Shared state behind the copies of one ReplyHandle.
struct PendingRequest {
  PendingRequest(RequestId id_in, std::string method_in, std::shared_ptr<ReplySlots> slots_in,
                 std::shared_ptr<InFlightRequests> in_flight_in)
      : id(std::move(id_in)),
        method(std::move(method_in)),
        slots(std::move(slots_in)),
        slot(slots->add()),
        in_flight(std::move(in_flight_in)) {
    in_flight->add(id, this);
  }

  ~PendingRequest() {
    if (replied) return;
    try {
      complete(Response::failure(id, ResponseError::with_code(
                                         kInternalError, "request '" + method + "' was dropped without a reply")));
    } catch (...) {
      // A destructor must not throw; the transport is presumably gone.
    }
  }

  void complete(const Response& response) {
    if (replied.exchange(true)) return;
    in_flight->remove(id, this);
    slots->fill(slot, json(response));
  }

  const RequestId id;
  const std::string method;
  const std::shared_ptr<ReplySlots> slots;
  const std::size_t slot;
  const std::shared_ptr<InFlightRequests> in_flight;
  std::atomic<bool> replied{false};
  std::atomic<bool> cancelled{false};
};

bool InFlightRequests::cancel(const RequestId& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = requests_.find(id);
  if (it == requests_.end()) return false;
  it->second->cancelled = true;
  return true;
}

}  // namespace detail

// ---------------------------------------------------------------------------

ReplyHandle::ReplyHandle(std::shared_ptr<detail::PendingRequest> state) : state_(std::move(state)) {}

const RequestId& ReplyHandle::id() const { return state_->id; }
const std::string& ReplyHandle::method() const { return state_->method; }
bool ReplyHandle::replied() const { return state_->replied; }
bool ReplyHandle::cancelled() const { return state_->cancelled; }

void ReplyHandle::reply(json result) const {
  state_->complete(Response::success(state_->id, std::move(result)));
}

void ReplyHandle::fail(ResponseError error) const {
  state_->complete(Response::failure(state_->id, std::move(error)));
}

// ---------------------------------------------------------------------------

Dispatcher::Dispatcher(SendFunction send_later)
    : send_later_(std::move(send_later)), in_flight_(std::make_shared<detail::InFlightRequests>()) {}

Dispatcher::~Dispatcher() = default;

void Dispatcher::add_request_handler(std::string method, RawRequestHandler handler) {
  request_handlers_[std::move(method)] = std::move(handler);
}

void Dispatcher::add_notification_handler(std::string method, RawNotificationHandler handler) {
  notification_handlers_[std::move(method)] = std::move(handler);
}

std::optional<std::string> Dispatcher::process_body(std::string_view body) {
  ParsedBody parsed = parse_body(body);
  auto slots = std::make_shared<detail::ReplySlots>(parsed.is_batch, send_later_);
  for (ParsedMessage& message : parsed.messages) handle(std::move(message), slots);
  return slots->seal();
}

void Dispatcher::handle(ParsedMessage message, const std::shared_ptr<detail::ReplySlots>& slots) {
  if (auto* request = std::get_if<Request>(&message)) {
    handle_request(std::move(*request), slots);
  } else if (auto* notification = std::get_if<Notification>(&message)) {
    handle_notification(*notification);
  } else if (auto* response = std::get_if<Response>(&message)) {
    handle_response(*response);
  } else {
    const auto& invalid = std::get<InvalidMessage>(message);
    if (invalid.needs_reply) {
      slots->fill(slots->add(), json(invalid.reply()));
    } else {
      log("ignored malformed message: " + invalid.reply_error.message);
    }
  }
}

void Dispatcher::handle_request(Request request, const std::shared_ptr<detail::ReplySlots>& slots) {
  auto refuse = [&](ResponseError error) {
    slots->fill(slots->add(), json(Response::failure(request.id, std::move(error))));
  };
  if (gate_) {
    if (std::optional<ResponseError> refusal = gate_(request.method)) return refuse(std::move(*refusal));
  }
  auto handler = request_handlers_.find(request.method);
  if (handler == request_handlers_.end()) {
    return refuse(ResponseError::with_code(kMethodNotFound, "Method not found: " + request.method));
  }

  ReplyHandle reply(std::make_shared<detail::PendingRequest>(request.id, request.method, slots, in_flight_));
  // Whatever escapes the handler becomes the reply, unless it already replied.
  try {
    handler->second(request.params, reply);
  } catch (const RpcError& e) {
    reply.fail(e);
  } catch (const std::exception& e) {
    reply.fail(ResponseError::with_code(kInternalError, std::string("Internal error: ") + e.what()));
  } catch (...) {
    reply.fail(ResponseError::with_code(kInternalError));
  }
}

void Dispatcher::handle_notification(const Notification& notification) {
  if (notification.method == "$/cancelRequest") {
    // Built in: marks the request cancelled; its handler decides how to react.
    auto id = notification.params.is_object() ? notification.params.find("id") : notification.params.end();
    try {
      if (id == notification.params.end()) throw InvalidParamsError("id", "missing required field");
      in_flight_->cancel(id->get<RequestId>());
    } catch (const RpcError& e) {
      log("$/cancelRequest: " + e.message());
    }
    return;
  }
  if (gate_ && gate_(notification.method)) return;
  auto handler = notification_handlers_.find(notification.method);
  if (handler == notification_handlers_.end()) {
    // LSP: notifications starting with "$/" are optional and may be ignored quietly.
    if (notification.method.rfind("$/", 0) != 0) log("no handler for notification " + notification.method);
    return;
  }
  try {
    handler->second(notification.params);
  } catch (const std::exception& e) {
    log("notification " + notification.method + " failed: " + e.what());
  } catch (...) {
    log("notification " + notification.method + " failed");
  }
}

void Dispatcher::handle_response(const Response& response) {
  if (!response.id) {
    log("client reported an error without id: " + (response.error ? response.error->message : "?"));
    return;
  }
  ResponseCallback callback;
  {
    std::lock_guard<std::mutex> lock(outgoing_mutex_);
    auto it = outgoing_.find(*response.id);
    if (it != outgoing_.end()) {
      callback = std::move(it->second);
      outgoing_.erase(it);
    }
  }
  if (!callback) {
    log("response to unknown request id " + response.id->to_string());
    return;
  }
  try {
    callback(response);
  } catch (const std::exception& e) {
    log("response callback for id " + response.id->to_string() + " failed: " + e.what());
  } catch (...) {
    log("response callback for id " + response.id->to_string() + " failed");
  }
}

std::string Dispatcher::make_request(const std::string& method, json params, ResponseCallback on_response) {
  RequestId id(std::int64_t{0});
  {
    std::lock_guard<std::mutex> lock(outgoing_mutex_);
    id = RequestId(next_outgoing_id_++);
    outgoing_.emplace(id, std::move(on_response));
  }
  return serialize(Request{id, method, std::move(params)});
}

std::string Dispatcher::make_notification(const std::string& method, json params) {
  return serialize(Notification{method, std::move(params)});
}

std::size_t Dispatcher::pending_request_count() const { return in_flight_->size(); }

void Dispatcher::log(const std::string& problem) const {
  if (logger_) logger_(problem);
}

}  // namespace hlsched::protocol
