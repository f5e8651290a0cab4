// A minimal LSP client for end-to-end tests: starts the real `hlsched serve` and talks to it over
// its stdio pipes or over TCP. Messages are read on a background thread; requests from the
// server are answered automatically (progress tokens: accepted; workspace/applyEdit: recorded
// and reported applied).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace hlsched::server::testing {

using Timeout = std::chrono::milliseconds;
inline constexpr Timeout kAnalysisTimeout{600000};  // a cold build of Halide.h's PCH included

/// The daemon process (`hlsched serve ...`).
class Daemon {
 public:
  /// Starts `hlsched --log-level debug serve ARGS` with its stderr in `log_path`, from
  /// `executable` (default: the hlsched of this build).
  Daemon(const std::vector<std::string> &args, const std::string &log_path, const std::string &executable = "");
  ~Daemon();  // kills it if it still runs

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  /// Waits for the process to end; its exit code (128+signal when killed), nullopt on timeout.
  std::optional<int> wait_exit(Timeout timeout);
  /// TCP mode: reads "hlsched serve: listening on HOST:PORT" from stdout; returns the port.
  int read_listening_port(Timeout timeout = Timeout(30000));
  /// VmRSS of the daemon in bytes (from /proc).
  std::size_t rss_bytes() const;
  void close_stdin();

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1, stdout_fd_ = -1;
  std::optional<int> exit_code_;
};

class LspClient {
 public:
  /// Speaks over the daemon's stdio.
  explicit LspClient(Daemon &daemon);
  /// Connects to 127.0.0.1:port.
  explicit LspClient(int port);
  ~LspClient();

  void send_raw(const std::string &bytes);
  void send(const nlohmann::json &message);
  int send_request(const std::string &method, const nlohmann::json &params);
  void notify(const std::string &method, const nlohmann::json &params);
  /// The response to request `id` (the whole message).
  nlohmann::json wait_response(int id, Timeout timeout = Timeout(30000));
  nlohmann::json request(const std::string &method, const nlohmann::json &params, Timeout timeout = Timeout(30000));
  /// The first message (after those already consumed) that satisfies `accept`; nullopt on timeout.
  std::optional<nlohmann::json> wait_for(const std::function<bool(const nlohmann::json &)> &accept, Timeout timeout);
  /// The next notification `method` whose params satisfy `accept`.
  nlohmann::json wait_notification(const std::string &method,
                                   const std::function<bool(const nlohmann::json &params)> &accept, Timeout timeout);
  /// Closes the client's sending side (the daemon sees end of input).
  void close_output();
  /// True once the server closed the connection (end of stream).
  bool disconnected(Timeout timeout);

  /// initialize (+ initialized) with the given initializationOptions; returns the result.
  nlohmann::json initialize(const nlohmann::json &options = nullptr, bool work_done_progress = true);
  /// shutdown, then exit.
  void shutdown_and_exit();

  std::vector<nlohmann::json> applied_edits() const;

 private:
  // Shared with the reader thread, which may outlive the client (a pipe stays open until the
  // daemon ends) and is then detached.
  struct Shared {
    ~Shared();
    int write_fd = -1;
    bool owns_write_fd = false;
    std::mutex mutex;
    std::condition_variable arrived;
    std::deque<nlohmann::json> messages;
    std::vector<nlohmann::json> applied_edits;
    bool eof = false;
    std::mutex write_mutex;
    void write(const std::string &bytes);
  };
  void start_reader();
  static void read_loop(int read_fd, bool close_when_done, std::shared_ptr<Shared> shared);

  int read_fd_ = -1;
  bool own_socket_ = false;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  int next_id_ = 1;
  std::thread reader_;
};

/// Waits for hlsched/analysisFinished of `uri` at `version` that is not a cancelled one.
nlohmann::json wait_analysis(LspClient &client, const std::string &uri, int version, Timeout timeout = kAnalysisTimeout);

/// Polls hlsched/documentStatus until the index of the current text is there.
void wait_index(LspClient &client, const std::string &uri, Timeout timeout = Timeout(120000));

/// didOpen of a file with its contents.
void open_file(LspClient &client, const std::string &uri, const std::string &text, int version = 1);

}  // namespace hlsched::server::testing
