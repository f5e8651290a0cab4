#include "lsp_test_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "hlsched/protocol/framing.h"

extern char **environ;

namespace hlsched::server::testing {

using nlohmann::json;

// ---- Daemon ----------------------------------------------------------------------------------

Daemon::Daemon(const std::vector<std::string> &args, const std::string &log_path, const std::string &executable) {
  const std::string binary = executable.empty() ? std::string(HLSCHED_BINARY) : executable;
  int in[2], out[2];
  REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_strings = {binary, "--log-level", "debug", "serve"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (auto &a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int error = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  REQUIRE(error == 0);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
}

Daemon::~Daemon() {
  if (!exit_code_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait_exit(Timeout(10000));
  }
  close_stdin();
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

void Daemon::close_stdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

std::optional<int> Daemon::wait_exit(Timeout timeout) {
  if (exit_code_) return exit_code_;
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() > end) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int Daemon::read_listening_port(Timeout timeout) {
  const std::string prefix = "hlsched serve: listening on ";
  std::string line;
  const auto end = std::chrono::steady_clock::now() + timeout;
  char c;
  while (std::chrono::steady_clock::now() < end) {
    ssize_t n = ::read(stdout_fd_, &c, 1);
    if (n <= 0) break;
    if (c != '\n') {
      line += c;
      continue;
    }
    if (line.rfind(prefix, 0) == 0) return std::stoi(line.substr(line.rfind(':') + 1));
    line.clear();
  }
  FAIL("the daemon did not say where it listens; got '" << line << "'");
  return -1;
}

std::size_t Daemon::rss_bytes() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  return 0;
}

// ---- LspClient ----------------------------------------------------------------------------------

// The client works on its own copies of the pipes, so that the Daemon object and the client
// can end in any order.
LspClient::LspClient(Daemon &daemon) : read_fd_(::fcntl(daemon.stdout_fd(), F_DUPFD_CLOEXEC, 0)) {
  shared_->write_fd = ::fcntl(daemon.stdin_fd(), F_DUPFD_CLOEXEC, 0);
  shared_->owns_write_fd = true;
  start_reader();
}

LspClient::Shared::~Shared() {
  if (owns_write_fd && write_fd >= 0) ::close(write_fd);
}

void LspClient::close_output() {
  std::lock_guard<std::mutex> lock(shared_->write_mutex);
  if (own_socket_) {
    ::shutdown(shared_->write_fd, SHUT_WR);
  } else if (shared_->write_fd >= 0) {
    ::close(shared_->write_fd);
    shared_->write_fd = -1;
  }
}

LspClient::LspClient(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
  read_fd_ = shared_->write_fd = fd;
  own_socket_ = true;
  start_reader();
}

LspClient::~LspClient() {
  if (own_socket_) {
    ::shutdown(read_fd_, SHUT_RDWR);  // ends the reader's read()
    reader_.join();
    ::close(read_fd_);
  } else {
    reader_.detach();  // ends when the daemon closes its stdout; it only touches shared state
  }
}

void LspClient::start_reader() { reader_ = std::thread(read_loop, read_fd_, !own_socket_, shared_); }

void LspClient::read_loop(int read_fd, bool close_when_done, std::shared_ptr<Shared> shared) {
  protocol::FrameDecoder decoder;
  std::string buffer(65536, '\0');
  for (;;) {
    ssize_t n = ::read(read_fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    decoder.feed(std::string_view(buffer.data(), std::size_t(n)));
    while (auto frame = decoder.next()) {
      auto *body = std::get_if<std::string>(&*frame);
      if (!body) continue;  // a framing error from the server: the test notices missing messages
      json message = json::parse(*body);
      if (message.contains("method") && message.contains("id")) {  // a request from the server
        json result = nullptr;
        if (message["method"] == "workspace/applyEdit") {
          std::lock_guard<std::mutex> lock(shared->mutex);
          shared->applied_edits.push_back(message["params"]);
          result = json{{"applied", true}};
        }
        shared->write(protocol::encode_frame(json{{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", result}}.dump()));
      }
      std::lock_guard<std::mutex> lock(shared->mutex);
      shared->messages.push_back(std::move(message));
      shared->arrived.notify_all();
    }
  }
  if (close_when_done) ::close(read_fd);
  std::lock_guard<std::mutex> lock(shared->mutex);
  shared->eof = true;
  shared->arrived.notify_all();
}

void LspClient::Shared::write(const std::string &bytes) {
  std::lock_guard<std::mutex> lock(write_mutex);
  if (write_fd < 0) return;
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(write_fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(write_fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the server is gone
    done += std::size_t(n);
  }
}

void LspClient::send_raw(const std::string &bytes) { shared_->write(bytes); }

void LspClient::send(const json &message) { send_raw(protocol::encode_frame(message.dump())); }

int LspClient::send_request(const std::string &method, const json &params) {
  const int id = next_id_++;
  json message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = params;
  send(message);
  return id;
}

void LspClient::notify(const std::string &method, const json &params) {
  json message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = params;
  send(message);
}

std::optional<json> LspClient::wait_for(const std::function<bool(const json &)> &accept, Timeout timeout) {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  const auto end = std::chrono::steady_clock::now() + timeout;
  std::size_t checked = 0;
  for (;;) {
    auto &messages = shared_->messages;
    for (; checked < messages.size(); checked++) {
      if (accept(messages[checked])) {
        json m = std::move(messages[checked]);
        messages.erase(messages.begin() + long(checked));
        return m;
      }
    }
    if (shared_->eof) return std::nullopt;
    if (shared_->arrived.wait_until(lock, end) == std::cv_status::timeout && checked == messages.size())
      return std::nullopt;
  }
}

json LspClient::wait_response(int id, Timeout timeout) {
  auto m = wait_for([id](const json &m) { return m.contains("id") && !m.contains("method") && m["id"] == id; }, timeout);
  if (!m) FAIL("no response to request " << id);
  return *m;
}

json LspClient::request(const std::string &method, const json &params, Timeout timeout) {
  return wait_response(send_request(method, params), timeout);
}

json LspClient::wait_notification(const std::string &method, const std::function<bool(const json &)> &accept,
                                  Timeout timeout) {
  auto m = wait_for(
      [&](const json &m) { return !m.contains("id") && m.value("method", "") == method && accept(m["params"]); },
      timeout);
  if (!m) FAIL("no " << method << " notification came");
  return (*m)["params"];
}

bool LspClient::disconnected(Timeout timeout) {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  return shared_->arrived.wait_for(lock, timeout, [&] { return shared_->eof; });
}

json LspClient::initialize(const json &options, bool work_done_progress) {
  json params{{"processId", nullptr},
              {"rootUri", nullptr},
              {"capabilities", {{"window", {{"workDoneProgress", work_done_progress}}}}}};
  if (!options.is_null()) params["initializationOptions"] = options;
  json reply = request("initialize", params);
  REQUIRE(reply.contains("result"));
  notify("initialized", json::object());
  return reply["result"];
}

void LspClient::shutdown_and_exit() {
  json reply = request("shutdown", nullptr);
  CHECK(reply.contains("result"));
  notify("exit", nullptr);
}

std::vector<json> LspClient::applied_edits() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->applied_edits;
}

json wait_analysis(LspClient &client, const std::string &uri, int version, Timeout timeout) {
  return client.wait_notification(
      "hlsched/analysisFinished",
      [&](const json &p) { return p["uri"] == uri && p["version"] == version && p["status"] != "cancelled"; }, timeout);
}

void wait_index(LspClient &client, const std::string &uri, Timeout timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    json status = client.request("hlsched/documentStatus", {{"uri", uri}});
    if (status.contains("result") && status["result"]["index"].is_object() && status["result"]["index"]["current"] == true)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL("the index of " << uri << " did not catch up");
}

void open_file(LspClient &client, const std::string &uri, const std::string &text, int version) {
  client.notify("textDocument/didOpen",
                {{"textDocument", {{"uri", uri}, {"languageId", "cpp"}, {"version", version}, {"text", text}}}});
}

}  // namespace hlsched::server::testing
