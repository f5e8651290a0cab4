// The LSP layer of `hlsched serve`: turns LSP/JSON-RPC messages into calls on the
// DocumentScheduler and the feature functions (hover.h, code_lens.h, schedule_edit.h,
// diagnostics.h, schedule_summary.h), and their results back into messages. One instance per
// client connection; it owns no I/O (a Session feeds it through its Dispatcher).
//
// Methods: the LSP lifecycle (initialize/initialized/shutdown/exit), text sync (incremental),
// hover, codeAction, codeLens, executeCommand, didChangeConfiguration; and for tools
// hlsched/schedule, hlsched/stageCosts, hlsched/explain and hlsched/documentStatus (what the server
// holds for a document: index and analysis versions). Notifications it sends:
// publishDiagnostics, $/progress, window/logMessage and showMessage, and hlsched/analysisFinished
// (after every analysis; editors may ignore it, tests and benchmarks wait for it).
//
// Threading: everything runs on the I/O thread that runs `io`, which must also be the thread
// that calls Dispatcher::process_body. `send` must be thread-safe (late replies of deferred
// requests may come from other threads).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hlsched/protocol/dispatcher.h"
#include "hlsched/protocol/lsp_types.h"
#include "lsp/document_scheduler.h"
#include "lsp/server_settings.h"
#include "lsp/work_done_progress.h"

namespace hlsched::server::lsp {

/// What a LanguageServer needs from the daemon around it (shared by all connections).
struct ServerEnvironment {
  /// Where analyses and source indexes run: the daemon passes its thread pools' executors (the
  /// fuzzer runs both on its own thread, to be fast and deterministic). No index executor: no index.
  boost::asio::any_io_executor analysis_executor;
  boost::asio::any_io_executor index_executor;
  Analyzer analyzer = run_document_analysis;
  Indexer indexer;  ///< empty: no source index (hover/code actions then know less)
  std::filesystem::path cache_dir;
  ServerSettings settings;  ///< before the client's initializationOptions
  /// When set, initialize must carry initializationOptions.token equal to it (TCP --allow-remote).
  std::optional<std::string> required_token;
  /// The client runs on this machine (stdio, loopback TCP): initialize's processId is then
  /// watched, and the session ends when that process is gone.
  bool client_is_local = true;
};

class LanguageServer {
 public:
  /// `end_session(code)` is called once the session must end: after `exit` (code 0 when shutdown
  /// came first, else 1) or after a client failed authentication (1).
  LanguageServer(boost::asio::any_io_executor io, ServerEnvironment environment, protocol::Dispatcher &dispatcher,
                 protocol::SendFunction send, std::function<void(int exit_code)> end_session);
  ~LanguageServer();
  LanguageServer(const LanguageServer &) = delete;
  LanguageServer &operator=(const LanguageServer &) = delete;

  bool shutdown_requested() const { return shutdown_requested_; }
  /// The document store (for tests and benchmarks).
  DocumentScheduler &documents() { return *scheduler_; }

 private:
  // Lifecycle
  nlohmann::json on_initialize(const protocol::lsp::InitializeParams &params);
  void on_initialized(const nlohmann::json &params);
  nlohmann::json on_shutdown(const nlohmann::json &params);
  void on_exit(const nlohmann::json &params);
  std::optional<protocol::ResponseError> gate(const std::string &method) const;
  // Documents
  void on_did_open(const protocol::lsp::DidOpenTextDocumentParams &params);
  void on_did_change(const protocol::lsp::DidChangeTextDocumentParams &params);
  void on_did_save(const protocol::lsp::DidSaveTextDocumentParams &params);
  void on_did_close(const protocol::lsp::DidCloseTextDocumentParams &params);
  void on_did_change_configuration(const protocol::lsp::DidChangeConfigurationParams &params);
  // Features
  nlohmann::json on_hover(const protocol::lsp::HoverParams &params);
  nlohmann::json on_code_action(const protocol::lsp::CodeActionParams &params);
  nlohmann::json on_code_lens(const protocol::lsp::CodeLensParams &params);
  void on_execute_command(const protocol::lsp::ExecuteCommandParams &params, protocol::ReplyHandle reply);
  // Tools
  void on_schedule(const nlohmann::json &params, protocol::ReplyHandle reply);
  void on_stage_costs(const nlohmann::json &params, protocol::ReplyHandle reply);
  void on_explain(const nlohmann::json &params, protocol::ReplyHandle reply);
  nlohmann::json on_document_status(const nlohmann::json &params);

  // Scheduler events
  void on_index(const Document &document);
  void on_phase(const Document &document, std::uint64_t serial, AnalysisPhase phase);
  void on_analysis(const Document &document, const std::shared_ptr<const DocumentAnalysis> &analysis, bool stored);
  void publish_diagnostics(const Document &document);
  void refresh_code_lenses();

  /// Finds the analysis a tool request asks for ({uri} of an open document, or {path}/{uri} of a
  /// file, with optional "settings" overrides and "allowStale") and calls `done` with it; fails
  /// `reply` when there is none.
  void with_analysis(const nlohmann::json &params, protocol::ReplyHandle reply,
                     std::function<nlohmann::json(const DocumentAnalysis &)> answer);
  void run_one_off(AnalysisJob job, protocol::ReplyHandle reply,
                   std::function<nlohmann::json(const DocumentAnalysis &)> answer);
  void watch_cancellation(protocol::ReplyHandle reply, std::shared_ptr<std::atomic<bool>> cancel);
  void poll_cancellations();
  void watch_parent(std::int64_t pid);

  void notify(const std::string &method, nlohmann::json params);
  void show_message(protocol::lsp::DiagnosticSeverity type, const std::string &message);
  void log_message(protocol::lsp::DiagnosticSeverity type, const std::string &message);
  const Document &open_document(const std::string &uri) const;  // throws RpcError

  boost::asio::any_io_executor io_;
  ServerEnvironment environment_;
  protocol::Dispatcher &dispatcher_;
  protocol::SendFunction send_;
  std::function<void(int)> end_session_;
  std::shared_ptr<DocumentScheduler> scheduler_;
  WorkDoneProgress progress_;

  bool initialized_ = false;  // initialize answered
  bool client_refreshes_code_lenses_ = false;  // workspace.codeLens.refreshSupport
  bool shutdown_requested_ = false;
  bool ended_ = false;

  struct AnalysisProgress {
    std::uint64_t serial;
    std::uint64_t progress_id;
  };
  std::map<std::string, AnalysisProgress> progress_by_uri_;

  struct Watched {
    protocol::ReplyHandle reply;
    std::shared_ptr<std::atomic<bool>> cancel;
  };
  std::vector<Watched> watched_;
  boost::asio::steady_timer cancellation_timer_;
  boost::asio::steady_timer parent_timer_;  // initialize's processId: end when it is gone
  bool cancellation_timer_armed_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace hlsched::server::lsp
