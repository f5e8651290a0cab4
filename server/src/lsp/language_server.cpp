// LanguageServer, part 1: the LSP lifecycle, document sync, the editor features, and what the
// server tells the client on its own (diagnostics, progress, refreshes). Part 2
// (language_server_tools.cpp) has the hlsched/* methods for tools.
#include "lsp/language_server.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <limits>
#include <sstream>

#include "lsp/code_lens.h"
#include "lsp/diagnostics.h"
#include "lsp/hover.h"
#include "lsp/schedule_edit.h"
#include "lsp/schedule_summary.h"
#include "result_json.h"

namespace hlsched::server::lsp {

namespace asio = boost::asio;
namespace plsp = protocol::lsp;
using nlohmann::json;
using protocol::ReplyHandle;
using protocol::ResponseError;
using protocol::RpcError;

namespace {

constexpr const char *kCodeActionKind = "refactor.rewrite";

std::string file_name_of(const Document &d) {
  return d.path.empty() ? d.uri : d.path.filename().string();
}

// Compares a presented token with the expected one in time that does not depend on where they
// differ (a remote client must not learn the token byte by byte from response times).
bool same_secret(const std::string &presented, const std::string &expected) {
  unsigned char difference = presented.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < presented.size(); i++)
    difference |= static_cast<unsigned char>(presented[i] ^ expected[i % std::max<std::size_t>(expected.size(), 1)]);
  return difference == 0 && !expected.empty();
}

// A boolean client capability at `path` (false when absent or of another type).
bool capability(const json &capabilities, std::initializer_list<const char *> path) {
  const json *at = &capabilities;
  for (const char *key : path) {
    if (!at->is_object() || !at->contains(key)) return false;
    at = &(*at)[key];
  }
  return at->is_boolean() && at->get<bool>();
}

}  // namespace

LanguageServer::LanguageServer(asio::any_io_executor io, ServerEnvironment environment,
                               protocol::Dispatcher &dispatcher, protocol::SendFunction send,
                               std::function<void(int)> end_session)
    : io_(io),
      environment_(std::move(environment)),
      dispatcher_(dispatcher),
      send_(std::move(send)),
      end_session_(std::move(end_session)),
      progress_(dispatcher, send_),
      cancellation_timer_(io),
      parent_timer_(io) {
  DocumentScheduler::Listener listener;
  listener.on_index = [this](const Document &d) { on_index(d); };
  listener.on_phase = [this](const Document &d, std::uint64_t serial, AnalysisPhase p) { on_phase(d, serial, p); };
  listener.on_analysis = [this](const Document &d, const std::shared_ptr<const DocumentAnalysis> &a, bool stored) {
    on_analysis(d, a, stored);
  };
  SchedulerResources resources;
  resources.io = io;
  resources.analysis_executor = environment_.analysis_executor;
  resources.index_executor = environment_.index_executor;
  resources.analyzer = environment_.analyzer;
  resources.indexer = environment_.indexer;
  resources.cache_dir = environment_.cache_dir;
  scheduler_ = DocumentScheduler::create(resources, environment_.settings, listener);

  using namespace protocol::lsp;
  auto &d = dispatcher_;
  d.set_gate([this](const std::string &method) { return gate(method); });
  d.set_logger([](const std::string &problem) { spdlog::warn("protocol: {}", problem); });
  d.on_request<InitializeParams>("initialize", [this](const InitializeParams &p) { return on_initialize(p); });
  d.on_notification("initialized", [this](const json &p) { on_initialized(p); });
  d.on_request("shutdown", [this](const json &p) { return on_shutdown(p); });
  d.on_notification("exit", [this](const json &p) { on_exit(p); });
  d.on_notification<DidOpenTextDocumentParams>("textDocument/didOpen", [this](const auto &p) { on_did_open(p); });
  d.on_notification<DidChangeTextDocumentParams>("textDocument/didChange", [this](const auto &p) { on_did_change(p); });
  d.on_notification<DidSaveTextDocumentParams>("textDocument/didSave", [this](const auto &p) { on_did_save(p); });
  d.on_notification<DidCloseTextDocumentParams>("textDocument/didClose", [this](const auto &p) { on_did_close(p); });
  d.on_notification<DidChangeConfigurationParams>("workspace/didChangeConfiguration",
                                                  [this](const auto &p) { on_did_change_configuration(p); });
  d.on_request<HoverParams>("textDocument/hover", [this](const HoverParams &p) { return on_hover(p); });
  d.on_request<CodeActionParams>("textDocument/codeAction", [this](const auto &p) { return on_code_action(p); });
  d.on_request<CodeLensParams>("textDocument/codeLens", [this](const auto &p) { return on_code_lens(p); });
  d.on_deferred_request<ExecuteCommandParams>("workspace/executeCommand", [this](const auto &p, ReplyHandle r) {
    on_execute_command(p, std::move(r));
  });
  d.on_deferred_request("hlsched/schedule", [this](const json &p, ReplyHandle r) { on_schedule(p, std::move(r)); });
  d.on_deferred_request("hlsched/stageCosts", [this](const json &p, ReplyHandle r) { on_stage_costs(p, std::move(r)); });
  d.on_deferred_request("hlsched/explain", [this](const json &p, ReplyHandle r) { on_explain(p, std::move(r)); });
  d.on_request("hlsched/documentStatus", [this](const json &p) { return on_document_status(p); });
}

LanguageServer::~LanguageServer() {
  *alive_ = false;
  scheduler_->shutdown();
  cancellation_timer_.cancel();
  parent_timer_.cancel();
}

// ---- Lifecycle ------------------------------------------------------------------------------

std::optional<ResponseError> LanguageServer::gate(const std::string &method) const {
  if (method == "exit") return std::nullopt;
  if (!initialized_) {
    if (method == "initialize") return std::nullopt;
    return ResponseError::with_code(protocol::kServerNotInitialized,
                                    "the server is not initialized: send initialize first (got " + method + ")");
  }
  if (shutdown_requested_)
    return ResponseError::with_code(protocol::kInvalidRequest, "shutdown was requested; only exit is accepted now");
  return std::nullopt;
}

json LanguageServer::on_initialize(const plsp::InitializeParams &params) {
  if (initialized_) throw RpcError(protocol::kInvalidRequest, "initialize was already called");
  if (environment_.required_token) {
    const json &options = params.initializationOptions;
    const bool ok = options.is_object() && options.contains("token") && options["token"].is_string() &&
                    same_secret(options["token"].get<std::string>(), *environment_.required_token);
    if (!ok) {
      spdlog::warn("a client failed authentication (initializationOptions.token missing or wrong)");
      std::weak_ptr<bool> alive = alive_;
      asio::post(io_, [this, alive] {  // after the error reply is written
        if (auto a = alive.lock(); a && *a && !ended_) {
          ended_ = true;
          end_session_(1);
        }
      });
      throw RpcError(protocol::kRequestFailed, "authentication failed: initializationOptions.token is missing or wrong");
    }
  }
  ServerSettings settings = environment_.settings;
  json options = params.initializationOptions;
  if (options.is_object()) options.erase("token");
  for (const std::string &unknown : apply_settings(options, settings))  // throws InvalidParams: initialize fails
    spdlog::info("initializationOptions: ignoring unknown setting '{}'", unknown);
  scheduler_->set_settings(settings);
  progress_.set_client_support(params.capabilities.windowWorkDoneProgress);
  client_refreshes_code_lenses_ = capability(params.capabilities.raw, {"workspace", "codeLens", "refreshSupport"});
  initialized_ = true;
  if (params.processId && environment_.client_is_local) watch_parent(*params.processId);

  plsp::InitializeResult result;
  plsp::ServerCapabilities &caps = result.capabilities;
  caps.textDocumentSync = plsp::TextDocumentSyncKind::Incremental;
  caps.hoverProvider = true;
  caps.codeActionProvider = true;
  caps.codeActionKinds = {kCodeActionKind};
  caps.codeLensProvider = true;
  caps.executeCommands = {kExplainCommand, kApplyScheduleCommand};
  caps.experimental = json{{"hlsched",
                            {{"methods", {"hlsched/schedule", "hlsched/stageCosts", "hlsched/explain", "hlsched/documentStatus"}},
                             {"notifications", {"hlsched/analysisFinished"}},
                             {"settings", settings_to_json(settings)}}}};
  result.serverInfo = plsp::ServerInfo{"hlsched", std::string(HLSCHED_VERSION)};
  spdlog::info("initialized (work-done progress: {})", params.capabilities.windowWorkDoneProgress ? "yes" : "no");
  return json(result);
}

void LanguageServer::on_initialized(const json &) {}

json LanguageServer::on_shutdown(const json &) {
  shutdown_requested_ = true;
  scheduler_->shutdown();  // cancels running analyses: their workers are killed
  return nullptr;
}

void LanguageServer::on_exit(const json &) {
  if (ended_) return;
  ended_ = true;
  end_session_(shutdown_requested_ ? 0 : 1);
}

// ---- Documents --------------------------------------------------------------------------------

void LanguageServer::on_did_open(const plsp::DidOpenTextDocumentParams &p) {
  scheduler_->open(p.textDocument.uri, p.textDocument.text, p.textDocument.version);
}

void LanguageServer::on_did_change(const plsp::DidChangeTextDocumentParams &p) {
  try {
    scheduler_->change(p.textDocument.uri, p.contentChanges, p.textDocument.version);
  } catch (const RpcError &e) {
    // A notification cannot be answered; the editor and we now disagree about the text.
    show_message(plsp::DiagnosticSeverity::Error,
                 "hlsched could not apply an edit to " + p.textDocument.uri + " (" + e.message() +
                     "); close and reopen the file to resynchronize.");
    throw;
  }
}

void LanguageServer::on_did_save(const plsp::DidSaveTextDocumentParams &p) { scheduler_->save(p.textDocument.uri); }

void LanguageServer::on_did_close(const plsp::DidCloseTextDocumentParams &p) {
  scheduler_->close(p.textDocument.uri);
  progress_by_uri_.erase(p.textDocument.uri);
  notify("textDocument/publishDiagnostics", json(plsp::PublishDiagnosticsParams{p.textDocument.uri, std::nullopt, {}}));
}

void LanguageServer::on_did_change_configuration(const plsp::DidChangeConfigurationParams &p) {
  ServerSettings settings = scheduler_->settings();
  try {
    for (const std::string &unknown : apply_settings(p.settings, settings))
      log_message(plsp::DiagnosticSeverity::Warning, "hlsched: unknown setting '" + unknown + "' ignored");
  } catch (const RpcError &e) {
    show_message(plsp::DiagnosticSeverity::Error, "hlsched: configuration not applied: " + e.message());
    return;
  }
  spdlog::info("configuration: {}", settings_to_json(settings).dump());
  scheduler_->set_settings(settings);
}

const Document &LanguageServer::open_document(const std::string &uri) const {
  const Document *d = scheduler_->find(uri);
  if (!d) throw RpcError(protocol::kInvalidParams, "the document is not open: " + uri);
  return *d;
}

// ---- Features ---------------------------------------------------------------------------------

json LanguageServer::on_hover(const plsp::HoverParams &p) {
  const Document *d = scheduler_->find(p.textDocument.uri);
  if (!d) return nullptr;
  auto hover = hover_at(*d, p.position);
  return hover ? json(*hover) : json(nullptr);
}

json LanguageServer::on_code_action(const plsp::CodeActionParams &p) {
  json actions = json::array();
  const Document *d = scheduler_->find(p.textDocument.uri);
  if (!d) return actions;
  if (p.context.only) {
    bool wanted = false;
    for (const std::string &kind : *p.context.only)
      wanted |= std::string(kCodeActionKind).rfind(kind, 0) == 0;  // "refactor" asks for refactor.*
    if (!wanted) return actions;
  }
  std::vector<plsp::Diagnostic> related;
  for (const plsp::Diagnostic &diagnostic : p.context.diagnostics)
    if (diagnostic.source == std::string(kDiagnosticSource)) related.push_back(diagnostic);
  for (ScheduleAction &a : schedule_actions(*d, d->text.offset_at(p.range.start))) {
    plsp::CodeAction action;
    action.title = a.title;
    action.kind = kCodeActionKind;
    action.isPreferred = a.preferred;
    plsp::WorkspaceEdit edit;
    edit.changes[d->uri] = std::move(a.edits);
    action.edit = std::move(edit);
    if (!related.empty()) action.diagnostics = related;
    actions.push_back(json(action));
  }
  return actions;
}

json LanguageServer::on_code_lens(const plsp::CodeLensParams &p) {
  json lenses = json::array();
  if (const Document *d = scheduler_->find(p.textDocument.uri))
    for (const plsp::CodeLens &lens : code_lenses(*d)) lenses.push_back(json(lens));
  return lenses;
}

void LanguageServer::on_execute_command(const plsp::ExecuteCommandParams &p, ReplyHandle reply) {
  const json args = p.arguments.value_or(json::array());
  if (p.command != kExplainCommand && p.command != kApplyScheduleCommand)
    throw RpcError(protocol::kInvalidParams, "unknown command: " + p.command);
  if (!args.is_array() || args.empty() || !args[0].is_string())
    throw protocol::InvalidParamsError("arguments", "expected [uri, ...]");
  const Document &d = open_document(args[0].get<std::string>());

  if (p.command == kExplainCommand) {
    if (!d.analysis || !d.analysis->ok()) throw RpcError(protocol::kRequestFailed, "no successful analysis of " + d.uri + " yet");
    const ScheduleSummary summary = summarize(d.analysis->outcome.result);
    json explanation = explain(summary);
    std::string text = explanation["summary"].get<std::string>();
    if (args.size() > 1 && args[1].is_string()) {
      const std::string func = args[1].get<std::string>();
      text.clear();
      for (const StageSummary *s : summary.stages_of(func)) text += explain_stage(*s, summary.predicted_runtime_ms) + " ";
      if (text.empty()) text = func + " is not a stage of the scheduled pipeline.";
    }
    show_message(plsp::DiagnosticSeverity::Information, text);
    reply.reply(explanation);
    return;
  }
  if (p.command == kApplyScheduleCommand) {
    std::vector<ScheduleAction> actions = schedule_actions(d);
    auto preferred = std::find_if(actions.begin(), actions.end(), [](const ScheduleAction &a) { return a.preferred; });
    if (preferred == actions.end())
      throw RpcError(protocol::kContentModified, "no suggestion for the current text yet (the analysis is running)");
    plsp::WorkspaceEdit edit;
    edit.changes[d.uri] = preferred->edits;
    json params{{"label", "hlsched: " + preferred->title}, {"edit", json(edit)}};
    send_(dispatcher_.make_request("workspace/applyEdit", params, [reply](const protocol::Response &response) {
      if (!response.ok()) {
        reply.fail(*response.error);
        return;
      }
      const bool applied = response.result.is_object() && response.result.value("applied", false);
      reply.reply({{"applied", applied}});
    }));
    return;
  }
}

// LSP: "If the parent process is not alive then the server should exit". An editor that crashed
// may leave our stdin open (a child of its own holds it), so we look.
void LanguageServer::watch_parent(std::int64_t pid) {
  parent_timer_.expires_after(std::chrono::seconds(2));
  std::weak_ptr<bool> alive = alive_;
  parent_timer_.async_wait([this, alive, pid](const boost::system::error_code &ec) {
    auto a = alive.lock();
    if (ec || !a || !*a || ended_) return;
    const bool gone = pid <= 0 || pid > std::numeric_limits<pid_t>::max() ||
                      (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
    if (!gone) return watch_parent(pid);
    spdlog::warn("the client's process {} is gone; ending the session", pid);
    ended_ = true;
    end_session_(1);
  });
}

// ---- Scheduler events ------------------------------------------------------------------------------

void LanguageServer::on_index(const Document &d) {
  // Generator-level diagnostics and lenses are placed with the index; place them again now.
  if (d.analysis_is_current()) publish_diagnostics(d);
  if (d.analysis) refresh_code_lenses();
}

// Lenses change when an analysis or an index lands, not only when the text does; clients that
// can be told so (LSP 3.16 workspace/codeLens/refresh) ask for them again.
void LanguageServer::refresh_code_lenses() {
  if (!client_refreshes_code_lenses_ || shutdown_requested_) return;
  send_(dispatcher_.make_request("workspace/codeLens/refresh", nullptr, [](const protocol::Response &) {}));
}

void LanguageServer::on_phase(const Document &d, std::uint64_t serial, AnalysisPhase phase) {
  auto it = progress_by_uri_.find(d.uri);
  if (phase == AnalysisPhase::Building) {
    if (it != progress_by_uri_.end()) progress_.end(it->second.progress_id, "superseded by a newer edit");
    std::uint64_t id = progress_.begin("hlsched: " + file_name_of(d), "building the generator");
    progress_by_uri_[d.uri] = {serial, id};
  } else if (it != progress_by_uri_.end() && it->second.serial == serial) {
    progress_.report(it->second.progress_id, "searching for a schedule");
  }
}

void LanguageServer::on_analysis(const Document &d, const std::shared_ptr<const DocumentAnalysis> &a, bool stored) {
  auto it = progress_by_uri_.find(d.uri);
  if (it != progress_by_uri_.end() && it->second.serial == a->snapshot.edit_serial) {
    progress_.end(it->second.progress_id, a->ok() ? "predicted " + format_ms(a->predicted_runtime_ms())
                                                  : std::string(status_name(a->outcome.status)));
    progress_by_uri_.erase(it);
  }
  const bool current = a->snapshot.edit_serial == d.journal.serial();
  if (stored && current) {
    publish_diagnostics(d);
    refresh_code_lenses();
  }
  json info{{"uri", d.uri},
            {"version", a->snapshot.version},
            {"status", status_name(a->outcome.status)},
            {"error_kind", a->outcome.error_kind},
            {"current", current},
            {"stored", stored},
            {"predicted_runtime_ms", a->predicted_runtime_ms()},
            {"build_seconds", a->outcome.build_seconds},
            {"build_cache_hit", a->outcome.build_cache_hit},
            {"worker_seconds", a->outcome.worker_seconds},
            {"search_ms", a->search_ms()},
            {"total_seconds", a->seconds}};
  if (a->ok() && a->outcome.result.contains("search")) info["search"] = a->outcome.result["search"];
  if (!a->ok()) info["message"] = a->outcome.message;
  notify("hlsched/analysisFinished", info);
}

void LanguageServer::publish_diagnostics(const Document &d) {
  if (!d.analysis_is_current()) return;
  plsp::PublishDiagnosticsParams params;
  params.uri = d.uri;
  params.version = d.text.version();
  params.diagnostics = diagnostics_for(d, *d.analysis);
  notify("textDocument/publishDiagnostics", json(params));
}

// ---- Messages to the client ------------------------------------------------------------------------

void LanguageServer::notify(const std::string &method, json params) {
  send_(protocol::Dispatcher::make_notification(method, std::move(params)));
}

void LanguageServer::show_message(plsp::DiagnosticSeverity type, const std::string &message) {
  notify("window/showMessage", {{"type", int(type)}, {"message", message}});
}

void LanguageServer::log_message(plsp::DiagnosticSeverity type, const std::string &message) {
  notify("window/logMessage", {{"type", int(type)}, {"message", message}});
}

}  // namespace hlsched::server::lsp
