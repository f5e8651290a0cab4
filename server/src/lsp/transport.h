// Byte channels between a client and the server: the editor's stdio pipes, or a TCP socket.
// A Transport only moves bytes; framing and JSON-RPC happen in Session (session.h).
//
// Threading: start() and close() on the I/O thread; the callbacks given to start() run on the
// I/O thread; write() may be called from any thread.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace hlsched::server::lsp {

class Transport {
 public:
  using BytesHandler = std::function<void(std::string_view bytes)>;
  using ClosedHandler = std::function<void()>;

  virtual ~Transport() = default;
  /// Starts reading. `on_bytes` gets each chunk as it arrives; `on_closed` runs once, at end of
  /// input or on a read error.
  virtual void start(BytesHandler on_bytes, ClosedHandler on_closed) = 0;
  /// Queues bytes for the peer. Never blocks on the peer (a slow reader only grows the queue).
  virtual void write(std::string bytes) = 0;
  /// Stops reading, writes what is queued (waiting at most a few seconds), then closes.
  virtual void close() = 0;
  /// For logs: "stdio" or the peer's address.
  virtual std::string describe() const = 0;
};

/// stdin/stdout. A reader thread blocks in read(2) (stdin may be a pipe, a tty or a regular
/// file, which epoll cannot watch) and posts chunks to the I/O thread; a writer thread drains the
/// write queue (waiting in poll(2) when the client is slow to read, and abandoned by close()
/// after 5 s if it stopped). `output_fd` is a private duplicate of the original stdout (see
/// make_stdio_transport()).
class StdioTransport : public Transport {
 public:
  StdioTransport(boost::asio::any_io_executor io, int input_fd, int output_fd);
  ~StdioTransport() override;
  void start(BytesHandler on_bytes, ClosedHandler on_closed) override;
  void write(std::string bytes) override;
  void close() override;
  std::string describe() const override { return "stdio"; }

 private:
  void write_loop();
  void write_all(const std::string &bytes);

  boost::asio::any_io_executor io_;
  int input_fd_, output_fd_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;
  bool closing_ = false;
  bool writer_idle_ = true;
  std::atomic<bool> abandoned_{false};  // close() gave up on a client that stopped reading
  std::thread writer_;
  std::shared_ptr<bool> reading_ = std::make_shared<bool>(true);  // false after close()
};

/// Takes over the process's stdio for the protocol: the protocol writes to a duplicate of fd 1,
/// and fd 1 itself is pointed at stderr, so that a stray printf anywhere in the process (or a
/// library) cannot corrupt the message stream.
std::shared_ptr<Transport> make_stdio_transport(boost::asio::any_io_executor io);

/// A connected TCP socket, read and written asynchronously on the I/O thread.
class TcpTransport : public Transport, public std::enable_shared_from_this<TcpTransport> {
 public:
  explicit TcpTransport(boost::asio::ip::tcp::socket socket);
  void start(BytesHandler on_bytes, ClosedHandler on_closed) override;
  void write(std::string bytes) override;
  void close() override;
  std::string describe() const override { return peer_; }

 private:
  void read_more();
  void write_next();  // I/O thread
  void finish_close();

  boost::asio::ip::tcp::socket socket_;
  std::string peer_;
  BytesHandler on_bytes_;
  ClosedHandler on_closed_;
  std::array<char, 64 * 1024> buffer_{};
  std::mutex mutex_;
  std::deque<std::string> queue_;
  bool writing_ = false;
  bool closing_ = false;
  bool closed_ = false;
};

}  // namespace hlsched::server::lsp
