#include "lsp/language_server.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>
#include <xxhash.h>

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <limits>
#include <sstream>

#include "lsp/code_lens.h"
#include "lsp/diagnostics.h"
#include "lsp/hover.h"
#include "lsp/schedule_edit.h"
#include "lsp/schedule_summary.h"
#include "lsp/uri.h"
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
constexpr auto kCancellationPoll = std::chrono::milliseconds(50);

const char *status_name(AnalysisOutcome::Status status) {
  switch (status) {
    case AnalysisOutcome::Status::Ok: return "ok";
    case AnalysisOutcome::Status::CompileError: return "compile_error";
    case AnalysisOutcome::Status::Crashed: return "crashed";
    case AnalysisOutcome::Status::TimedOut: return "timed_out";
    case AnalysisOutcome::Status::Cancelled: return "cancelled";
    case AnalysisOutcome::Status::UserError: return "user_error";
    case AnalysisOutcome::Status::InternalError: return "internal_error";
  }
  return "?";
}

std::string hex_hash(const std::string &text) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
  return hex;
}

std::string file_name_of(const Document &d) {
  return d.path.empty() ? d.uri : d.path.filename().string();
}

// The error reply for an analysis that did not produce a schedule.
ResponseError failure_reply(const DocumentAnalysis &a) {
  json data{{"kind", a.outcome.error_kind}, {"status", status_name(a.outcome.status)}};
  if (!a.compile_diagnostics.empty()) {
    data["diagnostics"] = json::array();
    for (const SourceDiagnostic &d : a.compile_diagnostics)
      data["diagnostics"].push_back(
          {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
  }
  if (a.outcome.status == AnalysisOutcome::Status::Cancelled)
    return ResponseError::with_code(protocol::kRequestCancelled);
  ResponseError error = ResponseError::with_code(protocol::kRequestFailed, a.outcome.message);
  error.data = data;
  return error;
}

// Common members of the hlsched/* answers.
json provenance(const DocumentAnalysis &a, const Document *open) {
  const bool stale = open && open->journal.serial() != a.snapshot.edit_serial;
  return {{"uri", a.snapshot.uri}, {"version", a.snapshot.version}, {"stale", stale}};
}

std::string string_member(const json &params, const char *name) {
  if (!params.contains(name) || params[name].is_null()) return "";
  if (!params[name].is_string())
    throw protocol::InvalidParamsError(name, std::string("expected string, got ") + params[name].type_name());
  return params[name].get<std::string>();
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
  resources.analysis_pool = environment_.analysis_pool;
  resources.index_pool = environment_.index_pool;
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
                    options["token"].get<std::string>() == *environment_.required_token;
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
  for (ScheduleAction &a : schedule_actions(*d)) {
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
  throw RpcError(protocol::kInvalidParams, "unknown command: " + p.command);
}

// ---- Tools: hlsched/* ---------------------------------------------------------------------------

void LanguageServer::with_analysis(const json &params, ReplyHandle reply,
                                   std::function<json(const DocumentAnalysis &)> answer) {
  if (!params.is_object()) throw protocol::InvalidParamsError("", "expected an object with \"uri\" or \"path\"");
  std::string uri = string_member(params, "uri");
  const std::string path = string_member(params, "path");
  if (uri.empty() && path.empty()) throw protocol::InvalidParamsError("uri", "give \"uri\" or \"path\"");
  if (uri.empty()) uri = uri_from_path(std::filesystem::absolute(path));
  bool allow_stale = false;
  if (params.contains("allowStale")) {
    if (!params["allowStale"].is_boolean()) throw protocol::InvalidParamsError("allowStale", "expected boolean");
    allow_stale = params["allowStale"].get<bool>();
  }
  ServerSettings settings = scheduler_->settings();
  bool overridden = false;
  if (params.contains("settings")) {
    try {
      apply_settings(params["settings"], settings);
    } catch (protocol::InvalidParamsError &e) {
      e.prepend_field("settings");
      throw;
    }
    overridden = !(settings == scheduler_->settings());
  }

  const Document *open = scheduler_->find(uri);
  if (open && !overridden) {
    if (allow_stale && open->analysis) {
      const DocumentAnalysis &a = *open->analysis;
      if (a.ok()) reply.reply(answer(a));
      else reply.fail(failure_reply(a));
      return;
    }
    watch_cancellation(reply, nullptr);
    scheduler_->when_current(uri, [reply, answer](std::shared_ptr<const DocumentAnalysis> a,
                                                  std::optional<ResponseError> error) {
      if (reply.replied()) return;
      if (error) reply.fail(*error);
      else if (!a->ok()) reply.fail(failure_reply(*a));
      else reply.reply(answer(*a));
    });
    return;
  }

  // A file that is not open, or other settings: a one-off analysis.
  AnalysisJob job;
  if (open) {
    job.snapshot = open->snapshot();
  } else {
    std::optional<std::filesystem::path> file = path_from_uri(uri);
    std::ifstream in(file.value_or(""), std::ios::binary);
    if (!file || !in) throw RpcError(protocol::kInvalidParams, "no such file: " + (path.empty() ? uri : path));
    std::ostringstream text;
    text << in.rdbuf();
    job.snapshot.uri = uri;
    job.snapshot.path = *file;
    job.snapshot.text = text.str();
  }
  job.settings = settings;
  job.cache_dir = environment_.cache_dir;
  // A folder per text (so concurrent requests never share an unsaved copy); the build cache still
  // hits for a text seen before, since the path is then the same too.
  const std::filesystem::path tool_dir = environment_.cache_dir / "documents" / ("tool-" + hex_hash(uri));
  job.work_dir = tool_dir / hex_hash(job.snapshot.text);
  job.memo_path = tool_dir / "search.memo";
  run_one_off(std::move(job), std::move(reply), std::move(answer));
}

void LanguageServer::run_one_off(AnalysisJob job, ReplyHandle reply, std::function<json(const DocumentAnalysis &)> answer) {
  job.cancel = std::make_shared<std::atomic<bool>>(false);
  watch_cancellation(reply, job.cancel);
  std::weak_ptr<bool> alive = alive_;
  asio::any_io_executor io = io_;
  asio::post(*environment_.analysis_pool, [job = std::move(job), reply, answer, alive, io,
                                           analyzer = environment_.analyzer] {
    auto result = std::make_shared<const DocumentAnalysis>(analyzer(job));
    std::error_code ignored;
    std::filesystem::remove_all(job.work_dir, ignored);
    asio::post(io, [result, reply, answer, alive] {
      auto a = alive.lock();
      if (!a || !*a || reply.replied()) return;
      if (!result->ok()) reply.fail(failure_reply(*result));
      else reply.reply(answer(*result));
    });
  });
}

void LanguageServer::on_schedule(const json &params, ReplyHandle reply) {
  with_analysis(params, reply, [this](const DocumentAnalysis &a) {
    json out = a.outcome.result;  // the same object as `hlsched schedule --json`
    out["build"] = {{"seconds", a.outcome.build_seconds}, {"cache_hit", a.outcome.build_cache_hit}};
    out["worker_seconds"] = a.outcome.worker_seconds;
    out.update(provenance(a, scheduler_->find(a.snapshot.uri)));
    return out;
  });
}

void LanguageServer::on_stage_costs(const json &params, ReplyHandle reply) {
  with_analysis(params, reply, [this](const DocumentAnalysis &a) {
    const json &r = a.outcome.result;
    json out{{"generator", r.value("generator", "")},
             {"gpu_profile", r.value("gpu_profile", "")},
             {"predicted_runtime_ms", r.value("predicted_runtime_ms", 0.0)},
             {"stages", r.value("stages", json::array())}};
    out.update(provenance(a, scheduler_->find(a.snapshot.uri)));
    return out;
  });
}

void LanguageServer::on_explain(const json &params, ReplyHandle reply) {
  const std::string func = params.is_object() ? string_member(params, "func") : "";
  with_analysis(params, reply, [this, func](const DocumentAnalysis &a) {
    json out = explain(summarize(a.outcome.result));
    if (!func.empty()) {
      json only = json::array();
      for (const json &s : out["stages"])
        if (s["func"] == func) only.push_back(s);
      out["stages"] = only;
    }
    out.update(provenance(a, scheduler_->find(a.snapshot.uri)));
    return out;
  });
}

json LanguageServer::on_document_status(const json &params) {
  if (!params.is_object()) throw protocol::InvalidParamsError("uri", "missing required field");
  const Document &d = open_document(string_member(params, "uri"));
  json out{{"uri", d.uri}, {"version", d.text.version()}, {"index", nullptr}, {"analysis", nullptr}};
  if (d.index) {
    json generators = json::array();
    for (const GeneratorClass &g : d.index->generators) generators.push_back(g.class_name);
    out["index"] = {{"version", d.index->version},
                    {"current", d.index_is_current()},
                    {"generators", generators},
                    {"has_errors", d.index->has_errors},
                    {"parse_ms", d.index->parse_ms}};
  }
  if (d.analysis)
    out["analysis"] = {{"version", d.analysis->snapshot.version},
                       {"current", d.analysis_is_current()},
                       {"status", status_name(d.analysis->outcome.status)}};
  return out;
}

// ---- Cancellation of deferred requests ---------------------------------------------------------

void LanguageServer::watch_cancellation(ReplyHandle reply, std::shared_ptr<std::atomic<bool>> cancel) {
  watched_.push_back({std::move(reply), std::move(cancel)});
  if (cancellation_timer_armed_) return;
  cancellation_timer_armed_ = true;
  cancellation_timer_.expires_after(kCancellationPoll);
  std::weak_ptr<bool> alive = alive_;
  cancellation_timer_.async_wait([this, alive](const boost::system::error_code &ec) {
    auto a = alive.lock();
    if (ec || !a || !*a) return;
    cancellation_timer_armed_ = false;
    poll_cancellations();
  });
}

void LanguageServer::poll_cancellations() {
  std::vector<Watched> still;
  for (Watched &w : watched_) {
    if (w.reply.replied()) continue;
    if (w.reply.cancelled()) {
      if (w.cancel) w.cancel->store(true);  // kills the worker
      w.reply.fail(ResponseError::with_code(protocol::kRequestCancelled));
      continue;
    }
    still.push_back(std::move(w));
  }
  watched_.clear();
  for (Watched &w : still) watch_cancellation(std::move(w.reply), std::move(w.cancel));
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
