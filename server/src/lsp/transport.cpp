#include "lsp/transport.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace hlsched::server::lsp {

namespace asio = boost::asio;

// ---- stdio ------------------------------------------------------------------------------------

StdioTransport::StdioTransport(asio::any_io_executor io, int input_fd, int output_fd)
    : io_(std::move(io)), input_fd_(input_fd), output_fd_(output_fd) {
  writer_ = std::thread([this] { write_loop(); });
}

StdioTransport::~StdioTransport() {
  close();
  if (writer_.joinable()) writer_.join();
}

void StdioTransport::start(BytesHandler on_bytes, ClosedHandler on_closed) {
  // The reader thread is detached: it may stay blocked in read(2) until the process exits, so
  // it holds nothing but copies and a flag saying whether anyone still listens.
  std::thread([io = io_, fd = input_fd_, reading = reading_, on_bytes = std::move(on_bytes),
               on_closed = std::move(on_closed)] {
    std::string chunk(64 * 1024, '\0');
    for (;;) {
      ssize_t n = ::read(fd, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {  // someone made stdin non-blocking
        pollfd readable{fd, POLLIN, 0};
        ::poll(&readable, 1, -1);
        continue;
      }
      if (n <= 0) break;
      asio::post(io, [reading, on_bytes, bytes = chunk.substr(0, std::size_t(n))] {
        if (*reading) on_bytes(bytes);
      });
    }
    asio::post(io, [reading, on_closed] {
      if (*reading) on_closed();
    });
  }).detach();
}

void StdioTransport::write(std::string bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closing_) return;
  queue_.push_back(std::move(bytes));
  changed_.notify_all();
}

void StdioTransport::write_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return closing_ || !queue_.empty(); });
    if (queue_.empty() || abandoned_) break;  // closing and drained, or given up
    std::string bytes = std::move(queue_.front());
    queue_.pop_front();
    writer_idle_ = false;
    lock.unlock();
    write_all(bytes);
    lock.lock();
    writer_idle_ = true;
    changed_.notify_all();
  }
}

// The output is non-blocking (make_stdio_transport), so a client that stops reading cannot hold
// this thread in write(2) forever: it waits in poll(2) and gives up once close() abandons it.
void StdioTransport::write_all(const std::string &bytes) {
  std::size_t done = 0;
  while (done < bytes.size() && !abandoned_) {
    const ssize_t n = ::write(output_fd_, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += std::size_t(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd writable{output_fd_, POLLOUT, 0};
      ::poll(&writable, 1, 100);
    } else if (!(n < 0 && errno == EINTR)) {
      return;  // the client is gone; nothing more to do with this message
    }
  }
}

void StdioTransport::close() {
  *reading_ = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closing_) return;
    // Let the writer finish what is queued (the reply to shutdown, the last diagnostics), but
    // not forever: a client that stopped reading is abandoned after 5 s.
    changed_.wait_for(lock, std::chrono::seconds(5), [&] { return queue_.empty() && writer_idle_; });
    if (!queue_.empty() || !writer_idle_) abandoned_ = true;
    closing_ = true;
    changed_.notify_all();
  }
  if (writer_.joinable()) writer_.join();
}

std::shared_ptr<Transport> make_stdio_transport(asio::any_io_executor io) {
  // Close-on-exec: worker processes must not hold the editor's pipe open.
  const int protocol_out = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
  // Non-blocking only for pipes and sockets (what editors give us): a terminal's stdin and stdout
  // usually share one open file, which would make reads non-blocking too.
  struct stat info {};
  if (protocol_out >= 0 && ::fstat(protocol_out, &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode)))
    ::fcntl(protocol_out, F_SETFL, ::fcntl(protocol_out, F_GETFL) | O_NONBLOCK);
  if (protocol_out < 0) return std::make_shared<StdioTransport>(std::move(io), STDIN_FILENO, STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return std::make_shared<StdioTransport>(std::move(io), STDIN_FILENO, protocol_out);
}

// ---- TCP ----------------------------------------------------------------------------------------

TcpTransport::TcpTransport(asio::ip::tcp::socket socket) : socket_(std::move(socket)) {
  boost::system::error_code ec;
  auto endpoint = socket_.remote_endpoint(ec);
  peer_ = ec ? "tcp:?" : "tcp:" + endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);  // small replies (hover) must not wait
}

void TcpTransport::start(BytesHandler on_bytes, ClosedHandler on_closed) {
  on_bytes_ = std::move(on_bytes);
  on_closed_ = std::move(on_closed);
  read_more();
}

void TcpTransport::read_more() {
  auto self = shared_from_this();
  socket_.async_read_some(asio::buffer(buffer_), [self](const boost::system::error_code &ec, std::size_t n) {
    if (self->closed_) return;
    if (ec) {
      if (self->on_closed_) {
        ClosedHandler handler = std::move(self->on_closed_);
        self->on_closed_ = nullptr;
        handler();
      }
      return;
    }
    if (self->on_bytes_) self->on_bytes_(std::string_view(self->buffer_.data(), n));
    if (!self->closing_ && !self->closed_) self->read_more();
  });
}

void TcpTransport::write(std::string bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  queue_.push_back(std::move(bytes));
  if (!writing_) {
    writing_ = true;
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->write_next(); });
  }
}

void TcpTransport::write_next() {
  std::shared_ptr<std::string> bytes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty() || closed_) {
      writing_ = false;
      if (closing_) {
        asio::post(socket_.get_executor(), [self = shared_from_this()] { self->finish_close(); });
      }
      return;
    }
    bytes = std::make_shared<std::string>(std::move(queue_.front()));
    queue_.pop_front();
  }
  asio::async_write(socket_, asio::buffer(*bytes),
                    [self = shared_from_this(), bytes](const boost::system::error_code &ec, std::size_t) {
                      if (ec) {
                        std::lock_guard<std::mutex> lock(self->mutex_);
                        self->queue_.clear();
                      }
                      self->write_next();
                    });
}

void TcpTransport::close() {
  bool idle;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_ || closed_) return;
    closing_ = true;
    idle = !writing_;
  }
  on_bytes_ = nullptr;
  on_closed_ = nullptr;
  if (idle) {
    finish_close();
    return;
  }
  // A peer that stops reading must not keep the socket forever.
  auto timer = std::make_shared<asio::steady_timer>(socket_.get_executor(), std::chrono::seconds(5));
  timer->async_wait([self = shared_from_this(), timer](const boost::system::error_code &) { self->finish_close(); });
}

void TcpTransport::finish_close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return;
    closed_ = true;
    queue_.clear();
  }
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace hlsched::server::lsp
