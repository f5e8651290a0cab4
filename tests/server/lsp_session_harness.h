// An in-process Session driven by a test: bytes go in through a memory transport, messages come
// out parsed; the analyzer is a fake (canned results chosen by markers in the text), the
// indexer optionally the real libclang one. Cheap enough to test every protocol path.
//
// Fake analyzer markers (anywhere in the document text):
//   FAKE_CRASH        -> Crashed ("the generator crashed with SIGSEGV ...")
//   FAKE_HANG         -> waits until cancelled, or TimedOut after 300 ms
//   #error            -> CompileError at that line
//   FAKE_SLOW         -> Ok after 300 ms (or Cancelled)
//   anything else     -> Ok with canned_blur_result()
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hlsched/protocol/framing.h"
#include "lsp/session.h"

namespace hlsched::server::testing {

/// The shape of a blur schedule result (numbers made up, Funcs real).
nlohmann::json canned_blur_result();

/// The fake analyzer described above.
lsp::DocumentAnalysis fake_analysis(const lsp::AnalysisJob &job);

class MemoryTransport : public lsp::Transport {
 public:
  void start(BytesHandler on_bytes, ClosedHandler on_closed) override;
  void write(std::string bytes) override;
  void close() override { closed_ = true; }
  std::string describe() const override { return "memory"; }

  void feed(std::string_view bytes) { if (on_bytes_) on_bytes_(bytes); }
  void hang_up() { if (on_closed_) on_closed_(); }
  std::optional<nlohmann::json> pop();  // the next message the server wrote
  bool closed() const { return closed_; }

 private:
  BytesHandler on_bytes_;
  ClosedHandler on_closed_;
  std::mutex mutex_;
  protocol::FrameDecoder decoder_;
  std::deque<nlohmann::json> messages_;
  bool closed_ = false;
};

class SessionHarness {
 public:
  struct Options {
    bool index = false;
    std::size_t max_message_bytes = 64u << 20;
    std::optional<std::string> token;
    std::string settings_json = R"({"debounce_ms": 20})";
  };
  explicit SessionHarness(Options options);
  ~SessionHarness();

  void send_raw(std::string_view bytes);
  void send(const nlohmann::json &message);
  /// The next message from the server, running the event loop up to `timeout`. Requests from the
  /// server (progress tokens, applyEdit) are answered and returned like any other message.
  std::optional<nlohmann::json> next(std::chrono::milliseconds timeout = std::chrono::milliseconds(60000));
  /// Runs the event loop for `time`.
  void run_for(std::chrono::milliseconds time);
  std::optional<int> exit_code() const { return exit_code_; }
  /// Edits applied through workspace/applyEdit, in order.
  std::vector<nlohmann::json> applied_edits;

 private:
  boost::asio::io_context io_;
  // Results come from pool threads: without work, run_for() would return at once.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> keep_running_{io_.get_executor()};
  boost::asio::thread_pool analysis_pool_{2}, index_pool_{1};
  std::shared_ptr<MemoryTransport> transport_ = std::make_shared<MemoryTransport>();
  std::shared_ptr<lsp::Session> session_;
  std::optional<int> exit_code_;
};

/// Replaces "@file:<relative path>" strings by that file's contents and "@uri:<relative path>"
/// by its file:// URI, recursively.
nlohmann::json expand_placeholders(nlohmann::json j);

/// True when `actual` contains everything in `expected`: objects by member (recursively),
/// arrays element by element with equal lengths, "@any" matches anything, "@contains:TEXT"
/// a string containing TEXT. `why` gets the first mismatch.
bool json_matches(const nlohmann::json &expected, const nlohmann::json &actual, std::string &why,
                  const std::string &path = "");

}  // namespace hlsched::server::testing
