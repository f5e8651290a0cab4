// LanguageServer, part 2: the methods for tools (hlsched/schedule, hlsched/stageCosts,
// hlsched/explain, hlsched/documentStatus) and the cancellation of their deferred replies.
// Part 1 (language_server.cpp) has the LSP lifecycle, documents and editor features.
#include <boost/asio/post.hpp>
#include <xxhash.h>

#include <fstream>
#include <sstream>

#include "lsp/language_server.h"
#include "lsp/schedule_summary.h"
#include "lsp/uri.h"
#include "util/file_text.h"

namespace hlsched::server::lsp {

namespace asio = boost::asio;
using nlohmann::json;
using protocol::ReplyHandle;
using protocol::ResponseError;
using protocol::RpcError;

namespace {

// How often deferred replies are checked for $/cancelRequest (ReplyHandle::cancelled() is polled).
constexpr auto kCancellationPoll = std::chrono::milliseconds(50);

std::string hex_hash(const std::string &text) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
  return hex;
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

}  // namespace

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
    if (!params["settings"].is_object())
      throw protocol::InvalidParamsError("settings", std::string("expected object, got ") + params["settings"].type_name());
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
    if (!file || !std::filesystem::exists(*file))
      throw RpcError(protocol::kInvalidParams, "no such file: " + (path.empty() ? uri : path));
    // A folder would read as nothing (an empty generator).
    if (!std::filesystem::is_regular_file(*file))
      throw RpcError(protocol::kInvalidParams, "not a file: " + (path.empty() ? uri : path));
    std::optional<std::string> text = read_file_text(*file);  // unreadable: as before, "no such file"
    if (!text) throw RpcError(protocol::kInvalidParams, "no such file: " + (path.empty() ? uri : path));
    job.snapshot.uri = uri;
    job.snapshot.path = *file;
    job.snapshot.text = std::move(*text);
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
  asio::post(environment_.analysis_executor, [job = std::move(job), reply, answer, alive, io,
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

}  // namespace hlsched::server::lsp
