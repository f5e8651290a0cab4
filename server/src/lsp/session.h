// One client connection: bytes from a Transport are cut into frames (FrameDecoder), dispatched
// as JSON-RPC (Dispatcher) to a LanguageServer, and replies go back framed.
//
// Framing errors: an oversized message is refused with an error reply (id null) and skipped
// without being buffered; a malformed header makes the stream untrustworthy, so the session
// answers with a parse error and ends (exit code 1).
//
// Threading: lives on the I/O thread; create it with std::make_shared and call start().
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <memory>

#include "hlsched/protocol/dispatcher.h"
#include "hlsched/protocol/framing.h"
#include "lsp/language_server.h"
#include "lsp/transport.h"

namespace hlsched::server::lsp {

class Session : public std::enable_shared_from_this<Session> {
 public:
  /// `on_end(exit_code)` runs once when the session is over (exit, connection lost, framing
  /// failure): 0 after shutdown + exit, else 1.
  Session(boost::asio::any_io_executor io, std::shared_ptr<Transport> transport, ServerEnvironment environment,
          protocol::FrameLimits limits, std::function<void(int exit_code)> on_end);
  ~Session();

  void start();
  /// Ends the session now (daemon shutting down).
  void stop() { end(1); }

  LanguageServer *server() { return server_.get(); }

 private:
  void on_bytes(std::string_view bytes);
  void send_body(std::string body);
  void end(int exit_code);

  boost::asio::any_io_executor io_;
  std::shared_ptr<Transport> transport_;
  ServerEnvironment environment_;
  protocol::FrameDecoder decoder_;
  std::function<void(int)> on_end_;
  std::unique_ptr<protocol::Dispatcher> dispatcher_;
  std::unique_ptr<LanguageServer> server_;
  bool ending_ = false;
};

}  // namespace hlsched::server::lsp
