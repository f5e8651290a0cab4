#include "lsp/session.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

namespace hlsched::server::lsp {

namespace asio = boost::asio;
using protocol::ResponseError;

Session::Session(asio::any_io_executor io, std::shared_ptr<Transport> transport, ServerEnvironment environment,
                 protocol::FrameLimits limits, std::function<void(int)> on_end)
    : io_(std::move(io)),
      transport_(std::move(transport)),
      environment_(std::move(environment)),
      decoder_(limits),
      on_end_(std::move(on_end)) {}

Session::~Session() = default;

void Session::start() {
  // Replies and notifications may be sent from any thread: the transport's write is thread-safe,
  // and it only holds a weak reference so that late replies after the end go nowhere.
  std::weak_ptr<Transport> weak_transport = transport_;
  auto send = [weak_transport](std::string body) {
    if (auto t = weak_transport.lock()) t->write(protocol::encode_frame(body));
  };
  dispatcher_ = std::make_unique<protocol::Dispatcher>(send);
  std::weak_ptr<Session> weak = weak_from_this();
  server_ = std::make_unique<LanguageServer>(io_, environment_, *dispatcher_, send, [weak, io = io_](int code) {
    // Called from inside a handler: end after process_body() has returned.
    asio::post(io, [weak, code] {
      if (auto self = weak.lock()) self->end(code);
    });
  });
  spdlog::info("session on {} started", transport_->describe());
  transport_->start([weak](std::string_view bytes) {
    if (auto self = weak.lock()) self->on_bytes(bytes);
  },
                    [weak] {
                      if (auto self = weak.lock()) {
                        spdlog::info("session on {}: the client closed the connection", self->transport_->describe());
                        self->end(self->server_ && self->server_->shutdown_requested() ? 0 : 1);
                      }
                    });
}

void Session::send_body(std::string body) { transport_->write(protocol::encode_frame(body)); }

void Session::on_bytes(std::string_view bytes) {
  if (ending_) return;
  decoder_.feed(bytes);
  while (!ending_) {
    std::optional<protocol::DecodedFrame> frame = decoder_.next();
    if (!frame) break;
    if (auto *body = std::get_if<std::string>(&*frame)) {
      if (std::optional<std::string> reply = dispatcher_->process_body(*body)) send_body(std::move(*reply));
      continue;
    }
    const protocol::FramingError &error = std::get<protocol::FramingError>(*frame);
    spdlog::warn("session on {}: {}: {}", transport_->describe(), protocol::to_string(error.kind), error.detail);
    // The message's id is unknown (its body was never parsed): the error reply has id null.
    const int code = error.kind == protocol::FramingErrorKind::kBodyTooLarge ? protocol::kInvalidRequest
                                                                            : protocol::kParseError;
    protocol::Response reply = protocol::Response::failure(std::nullopt, ResponseError::with_code(code, error.detail));
    send_body(protocol::serialize(reply));
    if (!error.recoverable) {
      end(1);
      return;
    }
  }
}

void Session::end(int exit_code) {
  if (ending_) return;
  ending_ = true;
  spdlog::info("session on {} ends (exit code {})", transport_->describe(), exit_code);
  server_.reset();  // cancels running analyses (their workers are killed)
  transport_->close();
  if (on_end_) {
    auto on_end = std::move(on_end_);
    on_end_ = nullptr;
    on_end(exit_code);
  }
}

}  // namespace hlsched::server::lsp
