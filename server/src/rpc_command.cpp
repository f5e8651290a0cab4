#include "rpc_command.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "hlsched/protocol/framing.h"
#include "lsp/uri.h"
#include "util/file_text.h"

namespace hlsched::server {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kExitErrorReply = 1;
constexpr int kExitUnreachable = 3;

// The server could not be reached, went away, or was too slow: exit status 3.
struct Unreachable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One LSP connection over a pair of file descriptors (a child's pipes, or one socket twice).
// Blocking I/O with a deadline: this is a one-request client, not an event loop.
class Connection {
 public:
  Connection(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  ~Connection() {
    if (read_fd_ >= 0) ::close(read_fd_);
    if (write_fd_ >= 0 && write_fd_ != read_fd_) ::close(write_fd_);
  }
  Connection(const Connection &) = delete;
  Connection &operator=(const Connection &) = delete;

  void send(const json &message) {
    const std::string frame = protocol::encode_frame(message.dump());
    std::size_t sent = 0;
    while (sent < frame.size()) {
      const ssize_t n = ::write(write_fd_, frame.data() + sent, frame.size() - sent);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Unreachable(std::string("the server closed the connection (") + std::strerror(errno) + ")");
      sent += std::size_t(n);
    }
  }

  /// The next message; throws Unreachable at end of stream or after `deadline`.
  json receive(Clock::time_point deadline) {
    for (;;) {
      while (auto frame = decoder_.next()) {
        if (auto *body = std::get_if<std::string>(&*frame)) {
          try {
            return json::parse(*body);
          } catch (const json::parse_error &) {
            continue;  // not ours to repair; the server never sends this
          }
        }
        if (!std::get<protocol::FramingError>(*frame).recoverable)
          throw Unreachable("the server sent a broken message: " + std::get<protocol::FramingError>(*frame).detail);
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) throw Unreachable("no answer within --timeout");
      pollfd p{read_fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
      if (ready < 0 && errno != EINTR) throw Unreachable(std::string("poll: ") + std::strerror(errno));
      if (ready <= 0) continue;
      char buffer[65536];
      const ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Unreachable("the server closed the connection");
      decoder_.feed(std::string_view(buffer, std::size_t(n)));
    }
  }

 private:
  int read_fd_, write_fd_;
  protocol::FrameDecoder decoder_;
};

// `hlsched serve` as a child speaking LSP on its stdio; stderr (its log) is shared with ours.
class ChildServer {
 public:
  explicit ChildServer(const std::vector<std::string> &serve_args) {
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
      throw Unreachable(std::string("pipe: ") + std::strerror(errno));
    std::vector<std::string> args = {"hlsched", "serve"};
    args.insert(args.end(), serve_args.begin(), serve_args.end());
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw Unreachable(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      ::dup2(to_child[0], STDIN_FILENO);
      ::dup2(from_child[1], STDOUT_FILENO);
      ::execv("/proc/self/exe", argv.data());
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    connection_ = std::make_unique<Connection>(from_child[0], to_child[1]);
  }
  ~ChildServer() {
    connection_.reset();  // the child sees end of input if it still reads
    if (pid_ <= 0) return;
    // After exit the server ends at once; give it a moment, then make sure.
    for (int i = 0; i < 100; i++) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Connection &connection() { return *connection_; }

 private:
  pid_t pid_ = -1;
  std::unique_ptr<Connection> connection_;
};

// Connects to "HOST:PORT" ("[::1]:PORT" for IPv6); returns the socket.
int connect_tcp(const std::string &address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) throw std::invalid_argument("--connect expects HOST:PORT, got '" + address + "'");
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw Unreachable("cannot resolve " + address + ": " + ::gai_strerror(rc));
  std::string last_error = "no address";
  for (addrinfo *a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  throw Unreachable("cannot connect to " + address + ": " + last_error);
}

// The LSP client side of one exchange: answers the server's own requests, skips notifications.
class RpcClient {
 public:
  RpcClient(Connection &connection, Clock::time_point deadline) : connection_(connection), deadline_(deadline) {}

  /// Sends a request and returns the response message (result or error).
  json request(const std::string &method, const json &params) {
    const int id = next_id_++;
    connection_.send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    for (;;) {
      json message = receive();
      if (message.contains("method")) continue;  // a notification
      if (message.value("id", json()) == id) return message;
    }
  }

  void notify(const std::string &method, const json &params) {
    connection_.send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }

  /// Waits for the notification `method` whose params satisfy `accept`.
  json wait_notification(const std::string &method, const std::function<bool(const json &)> &accept) {
    for (;;) {
      json message = receive();
      if (message.value("method", "") == method && !message.contains("id") && accept(message["params"]))
        return message["params"];
    }
  }

 private:
  // The next message that is not a request from the server (those are answered here).
  json receive() {
    for (;;) {
      json message = connection_.receive(deadline_);
      if (!(message.contains("method") && message.contains("id"))) return message;
      // workspace/applyEdit (from executeCommand) is declined: there is no editor to edit.
      const json result = message["method"] == "workspace/applyEdit" ? json{{"applied", false}} : json(nullptr);
      connection_.send({{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", result}});
    }
  }

  Connection &connection_;
  Clock::time_point deadline_;
  int next_id_ = 1;
};

json parse_json_argument(const std::string &text, const char *what) {
  try {
    return json::parse(text);
  } catch (const json::parse_error &e) {
    throw std::invalid_argument(std::string(what) + " is not JSON: " + e.what());
  }
}

std::string read_text_file(const std::filesystem::path &path) {
  std::optional<std::string> text = read_file_text(path);
  if (!text) throw std::invalid_argument("--open: no such file: " + path.string());
  return *text;
}

// Opens `path` in the server and waits until its first analysis and its source index are done,
// so that document requests (hover, codeAction, codeLens) see what an editor would.
void open_and_wait(RpcClient &client, const std::filesystem::path &path) {
  const std::string uri = lsp::uri_from_path(std::filesystem::absolute(path));
  client.notify("textDocument/didOpen",
                {{"textDocument", {{"uri", uri}, {"languageId", "cpp"}, {"version", 1}, {"text", read_text_file(path)}}}});
  client.wait_notification("hlsched/analysisFinished", [&](const json &p) {
    return p.value("uri", "") == uri && p.value("status", "") != "cancelled";
  });
  for (;;) {  // the index has no notification of its own: ask until it is current
    json status = client.request("hlsched/documentStatus", {{"uri", uri}});
    if (!status.contains("result")) return;
    const json &index = status["result"]["index"];
    if (index.is_object() && index.value("current", false)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

CLI::App *RpcCommand::add_to(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand("rpc", "Send one JSON-RPC request to the language server and print the result");
  cmd->add_option("method", method_, "Method, e.g. hlsched/schedule, hlsched/stageCosts, textDocument/hover");
  cmd->add_option("params", params_json_, "Params as JSON (default {})");
  cmd->add_option("--connect", connect_, "A running `hlsched serve --listen` at HOST:PORT (default: a one-shot server)");
  cmd->add_option("--token", token_, "Token for --connect (default $HLSCHED_TOKEN)");
  cmd->add_option("--settings", settings_json_, "Settings as JSON, sent as initializationOptions");
  cmd->add_option("--open", open_files_, "Open this file first and wait for its analysis (repeatable)");
  cmd->add_option("--cache-dir", cache_dir_, "Build cache of the one-shot server");
  cmd->add_option("--timeout", timeout_s_, "Seconds to wait for the answer")->check(CLI::PositiveNumber);
  cmd->add_flag("--relay", relay_, "With --connect: relay LSP between stdio and the daemon (for editors without TCP)");
  return cmd;
}

int RpcCommand::run() const {
  if (relay_) return run_relay();
  if (method_.empty()) throw std::invalid_argument("rpc: give a METHOD (or --relay)");
  const json params = params_json_.empty() ? json::object() : parse_json_argument(params_json_, "PARAMS_JSON");
  json options = settings_json_.empty() ? json::object() : parse_json_argument(settings_json_, "--settings");
  if (!options.is_object()) throw std::invalid_argument("--settings must be a JSON object");
  std::string token = token_;
  if (token.empty())
    if (const char *env = std::getenv("HLSCHED_TOKEN")) token = env;
  if (!token.empty()) options["token"] = token;

  std::signal(SIGPIPE, SIG_IGN);  // a server that went away is reported, not a silent death
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(timeout_s_ * 1000));
  try {
    std::unique_ptr<ChildServer> child;
    std::unique_ptr<Connection> socket;
    if (connect_.empty()) {
      std::vector<std::string> serve_args;
      if (!cache_dir_.empty()) serve_args = {"--cache-dir", cache_dir_};
      child = std::make_unique<ChildServer>(serve_args);
    } else {
      const int fd = connect_tcp(connect_);
      socket = std::make_unique<Connection>(fd, fd);
    }
    Connection &connection = child ? child->connection() : *socket;
    RpcClient client(connection, deadline);

    json init = client.request("initialize", {{"processId", ::getpid()},
                                              {"rootUri", nullptr},
                                              {"capabilities", json::object()},
                                              {"initializationOptions", options}});
    if (init.contains("error")) {
      std::cerr << "hlsched rpc: initialize failed: " << init["error"].value("message", "") << "\n";
      std::cout << json{{"error", init["error"]}}.dump(2) << "\n";
      return kExitErrorReply;
    }
    client.notify("initialized", json::object());
    for (const std::string &file : open_files_) open_and_wait(client, file);

    json reply = method_ == "initialize" ? init : client.request(method_, params);
    client.request("shutdown", nullptr);
    client.notify("exit", nullptr);

    if (reply.contains("error")) {
      std::cerr << "hlsched rpc: " << method_ << " failed: " << reply["error"].value("message", "") << "\n";
      std::cout << json{{"error", reply["error"]}}.dump(2) << "\n";
      return kExitErrorReply;
    }
    std::cout << reply["result"].dump(2) << "\n";
    return 0;
  } catch (const Unreachable &e) {
    std::cerr << "hlsched rpc: " << e.what() << "\n";
    return kExitUnreachable;
  }
}

// Copies bytes both ways between stdio and the daemon until either side closes. Neovim 0.7 can
// start a language server only as a process; this process is that server's stand-in.
int RpcCommand::run_relay() const {
  if (connect_.empty()) throw std::invalid_argument("--relay needs --connect HOST:PORT");
  std::signal(SIGPIPE, SIG_IGN);
  int fd;
  try {
    fd = connect_tcp(connect_);
  } catch (const Unreachable &e) {
    std::cerr << "hlsched rpc: " << e.what() << "\n";
    return kExitUnreachable;
  }
  auto copy = [](int from, int to) {
    char buffer[65536];
    const ssize_t n = ::read(from, buffer, sizeof buffer);
    if (n <= 0) return n < 0 && errno == EINTR;
    for (ssize_t sent = 0; sent < n;) {
      const ssize_t w = ::write(to, buffer + sent, std::size_t(n - sent));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      sent += w;
    }
    return true;
  };
  for (;;) {
    pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {fd, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !copy(STDIN_FILENO, fd)) break;
    if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !copy(fd, STDOUT_FILENO)) break;
  }
  ::close(fd);
  return 0;
}

}  // namespace hlsched::server
