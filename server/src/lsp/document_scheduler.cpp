// How open documents get analyzed
// ===============================
//
// The moving parts, per document ("slot"):
//
//   didChange ──▶ text + journal updated, running analysis cancelled, debounce timer (re)armed
//                     │ (DebouncePolicy::delay of quiet; didOpen/didSave: no wait)
//                     ▼
//                analysis_due ──▶ index job   (index pool: libclang, ~0.5 s)
//                             └─▶ analysis job (analysis pool: build + worker process, seconds)
//
// Rules:
//  - At most one analysis per document runs at a time. A newer text cancels the running one
//    (its cancel flag kills the compiler or worker within milliseconds); the next analysis
//    starts when the cancelled one has returned ("wanted" flag), so two analyses of one document
//    never write its unsaved copy or its memo file at once.
//  - Likewise at most one index job per document; a newer text re-runs it when it returns.
//  - Results are tagged with the journal serial of the text they were made from. An index or an
//    analysis is "current" when that serial is the document's; otherwise it is stale but still
//    served (hover says so; code actions need current ones).
//  - An index of a broken text that found no generator class does not replace a good index: the
//    last good one keeps being served, marked stale (its ranges mapped through the journal).
//  - Waiters (hlsched/schedule and friends) want the analysis of the text as it was when they
//    asked: an edit fails them with ContentModified, a close with RequestFailed.
//  - Jobs hold a weak_ptr to the scheduler and the slot's id: results for a closed (or closed
//    and reopened) document, or after shutdown(), are dropped.
//
// Everything here runs on the I/O thread except the two job bodies, which only touch their own
// copies (snapshot, settings) and the thread-safe analyzer/indexer.
#include "lsp/document_scheduler.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>
#include <xxhash.h>

#include <cstdio>

#include "lsp/uri.h"

namespace hlsched::server::lsp {

namespace asio = boost::asio;
using protocol::ResponseError;

DocumentSnapshot Document::snapshot() const {
  DocumentSnapshot s;
  s.uri = uri;
  s.path = path;
  s.text = text.text();
  s.version = text.version();
  s.edit_serial = journal.serial();
  return s;
}

struct DocumentScheduler::Slot {
  explicit Slot(const asio::any_io_executor &io) : debounce(io) {}

  std::uint64_t id = 0;
  Document document;
  asio::steady_timer debounce;
  bool analysis_pending = false;  // the debounce timer is armed

  bool analysis_running = false;
  bool analysis_wanted = false;   // run again when the running one returns
  std::shared_ptr<std::atomic<bool>> running_cancel;

  bool index_running = false;
  bool index_wanted = false;

  struct Waiter {
    std::uint64_t serial;
    AnalysisCallback done;
  };
  std::vector<Waiter> waiters;
};

namespace {

std::filesystem::path work_dir_for(const std::filesystem::path &cache_dir, const std::string &uri) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(uri.data(), uri.size())));
  return cache_dir / "documents" / hex;
}

std::vector<std::string> include_dirs_of(const ServerSettings &settings) {
  std::vector<std::string> dirs;
  for (std::size_t i = 0; i < settings.compile_flags.size(); i++) {
    const std::string &flag = settings.compile_flags[i];
    if (flag == "-I" && i + 1 < settings.compile_flags.size()) dirs.push_back(settings.compile_flags[++i]);
    else if (flag.rfind("-I", 0) == 0) dirs.push_back(flag.substr(2));
  }
  return dirs;
}

}  // namespace

std::shared_ptr<DocumentScheduler> DocumentScheduler::create(SchedulerResources resources, ServerSettings settings,
                                                             Listener listener) {
  return std::shared_ptr<DocumentScheduler>(
      new DocumentScheduler(std::move(resources), std::move(settings), std::move(listener)));
}

DocumentScheduler::DocumentScheduler(SchedulerResources resources, ServerSettings settings, Listener listener)
    : resources_(std::move(resources)), settings_(std::move(settings)), listener_(std::move(listener)) {}

DocumentScheduler::~DocumentScheduler() { shutdown(); }

DocumentScheduler::Slot *DocumentScheduler::slot(const std::string &uri) {
  auto it = slots_.find(uri);
  return it == slots_.end() ? nullptr : it->second.get();
}

const Document *DocumentScheduler::find(const std::string &uri) const {
  auto it = slots_.find(uri);
  return it == slots_.end() ? nullptr : &it->second->document;
}

std::vector<std::string> DocumentScheduler::open_uris() const {
  std::vector<std::string> uris;
  for (const auto &entry : slots_) uris.push_back(entry.first);
  return uris;
}

std::size_t DocumentScheduler::running_analyses() const {
  std::size_t n = 0;
  for (const auto &entry : slots_) n += entry.second->analysis_running;
  return n;
}

void DocumentScheduler::open(const std::string &uri, std::string text, std::int32_t version) {
  if (shut_down_) return;
  close(uri);  // a second didOpen replaces the document
  auto s = std::make_unique<Slot>(resources_.io);
  s->id = next_slot_id_++;
  s->document.uri = uri;
  s->document.path = path_from_uri(uri).value_or(std::filesystem::path());
  s->document.text = protocol::TextDocument(std::move(text), version);
  s->document.work_dir = work_dir_for(resources_.cache_dir, uri);
  Slot &ref = *s;
  slots_[uri] = std::move(s);
  schedule_analysis(ref, std::chrono::milliseconds(0));
}

void DocumentScheduler::change(const std::string &uri,
                               const std::vector<protocol::lsp::TextDocumentContentChangeEvent> &changes,
                               std::int32_t version) {
  Slot *s = slot(uri);
  if (!s) throw protocol::RpcError(protocol::kInvalidParams, "didChange for a document that is not open: " + uri);
  apply_and_record(s->document.text, s->document.journal, changes, version);
  if (s->running_cancel) s->running_cancel->store(true);
  fail_waiters(*s, ResponseError::with_code(protocol::kContentModified, "the document changed"),
               s->document.journal.serial());
  schedule_analysis(*s, settings_.debounce.delay);
}

void DocumentScheduler::save(const std::string &uri) {
  if (Slot *s = slot(uri)) {
    // Saving does not change the text, but it is the user saying "now": skip the debounce.
    if (s->analysis_pending || !s->document.analysis_is_current()) schedule_analysis(*s, std::chrono::milliseconds(0));
  }
}

void DocumentScheduler::close(const std::string &uri) {
  auto it = slots_.find(uri);
  if (it == slots_.end()) return;
  Slot &s = *it->second;
  if (s.running_cancel) s.running_cancel->store(true);
  s.debounce.cancel();
  fail_waiters(s, ResponseError::with_code(protocol::kRequestFailed, "the document was closed"), UINT64_MAX);
  slots_.erase(it);
}

void DocumentScheduler::set_settings(const ServerSettings &settings) {
  if (settings == settings_) return;
  settings_ = settings;
  for (auto &entry : slots_) {
    Slot &s = *entry.second;
    if (s.running_cancel) s.running_cancel->store(true);
    schedule_analysis(s, std::chrono::milliseconds(0));
  }
}

void DocumentScheduler::when_current(const std::string &uri, AnalysisCallback done) {
  Slot *s = slot(uri);
  if (!s) {
    done(nullptr, ResponseError::with_code(protocol::kRequestFailed, "the document is not open: " + uri));
    return;
  }
  const Document &d = s->document;
  // Current, and computed with the settings in force (a settings change re-analyzes).
  if (d.analysis_is_current() && d.analysis->settings == settings_ && !s->analysis_running && !s->analysis_pending) {
    done(d.analysis, std::nullopt);
    return;
  }
  s->waiters.push_back({d.journal.serial(), std::move(done)});
  if (!s->analysis_pending && !s->analysis_running) schedule_analysis(*s, std::chrono::milliseconds(0));
}

void DocumentScheduler::shutdown() {
  shut_down_ = true;
  for (auto &entry : slots_) {
    Slot &s = *entry.second;
    if (s.running_cancel) s.running_cancel->store(true);
    s.debounce.cancel();
    fail_waiters(s, ResponseError::with_code(protocol::kRequestFailed, "the server is shutting down"), UINT64_MAX);
  }
  slots_.clear();
}

void DocumentScheduler::fail_waiters(Slot &s, const ResponseError &error, std::uint64_t before_serial) {
  std::vector<Slot::Waiter> keep, failed;
  for (auto &w : s.waiters) (w.serial < before_serial ? failed : keep).push_back(std::move(w));
  s.waiters = std::move(keep);
  for (auto &w : failed) w.done(nullptr, error);
}

// ---- Scheduling -------------------------------------------------------------------------------

void DocumentScheduler::schedule_analysis(Slot &s, std::chrono::milliseconds delay) {
  s.analysis_pending = true;
  s.debounce.expires_after(delay);
  std::weak_ptr<DocumentScheduler> weak = weak_from_this();
  const std::string uri = s.document.uri;
  const std::uint64_t id = s.id;
  s.debounce.async_wait([weak, uri, id](const boost::system::error_code &ec) {
    if (ec) return;  // re-armed or cancelled
    auto self = weak.lock();
    if (!self || self->shut_down_) return;
    Slot *s = self->slot(uri);
    if (s && s->id == id) self->analysis_due(*s);
  });
}

void DocumentScheduler::analysis_due(Slot &s) {
  s.analysis_pending = false;
  if (s.index_running) s.index_wanted = true;
  else start_index(s);
  if (s.analysis_running) s.analysis_wanted = true;  // it was cancelled; start when it returns
  else start_analysis(s);
}

void DocumentScheduler::start_analysis(Slot &s) {
  s.analysis_running = true;
  s.analysis_wanted = false;
  s.running_cancel = std::make_shared<std::atomic<bool>>(false);

  AnalysisJob job;
  job.snapshot = s.document.snapshot();
  job.settings = settings_;
  job.cache_dir = resources_.cache_dir;
  job.work_dir = s.document.work_dir;
  job.memo_path = s.document.work_dir / "search.memo";
  job.cancel = s.running_cancel;

  std::weak_ptr<DocumentScheduler> weak = weak_from_this();
  asio::any_io_executor io = resources_.io;
  const std::string uri = s.document.uri;
  const std::uint64_t id = s.id, serial = job.snapshot.edit_serial;
  job.on_phase = [weak, io, uri, id, serial, cancel = s.running_cancel](AnalysisPhase phase) {
    if (cancel->load()) return;
    asio::post(io, [weak, uri, id, serial, phase] {
      auto self = weak.lock();
      if (!self || self->shut_down_) return;
      Slot *s = self->slot(uri);
      if (s && s->id == id && self->listener_.on_phase) self->listener_.on_phase(s->document, serial, phase);
    });
  };
  spdlog::debug("analysis of {} (version {}) starts", uri, job.snapshot.version);
  asio::post(resources_.analysis_executor, [weak, io, uri, id, analyzer = resources_.analyzer, job = std::move(job)] {
    std::shared_ptr<const DocumentAnalysis> result;
    try {
      result = std::make_shared<const DocumentAnalysis>(analyzer(job));
    } catch (const std::exception &e) {  // the analyzer should not throw; never lose the slot if it does
      DocumentAnalysis failed;
      failed.snapshot = job.snapshot;
      failed.settings = job.settings;
      failed.outcome.status = AnalysisOutcome::Status::InternalError;
      failed.outcome.error_kind = "internal";
      failed.outcome.message = std::string("internal error: ") + e.what();
      result = std::make_shared<const DocumentAnalysis>(std::move(failed));
    }
    asio::post(io, [weak, uri, id, result] {
      if (auto self = weak.lock()) self->analysis_done(uri, id, result);
    });
  });
}

void DocumentScheduler::analysis_done(const std::string &uri, std::uint64_t id,
                                      std::shared_ptr<const DocumentAnalysis> result) {
  if (shut_down_) return;
  Slot *s = slot(uri);
  if (!s || s->id != id) return;
  s->analysis_running = false;
  s->running_cancel.reset();
  const bool cancelled = result->outcome.status == AnalysisOutcome::Status::Cancelled;
  Document &d = s->document;
  const bool stored = !cancelled && (!d.analysis || d.analysis->snapshot.edit_serial <= result->snapshot.edit_serial);
  if (stored) d.analysis = result;
  spdlog::debug("analysis of {} (version {}) {}: {}", uri, result->snapshot.version,
                cancelled ? "cancelled" : "done", result->outcome.message);
  if (listener_.on_analysis) listener_.on_analysis(d, result, stored);

  if (stored && result->snapshot.edit_serial == d.journal.serial() && result->settings == settings_) {
    std::vector<Slot::Waiter> waiters = std::move(s->waiters);
    s->waiters.clear();
    for (auto &w : waiters) w.done(result, std::nullopt);
  }
  // Listeners may have closed the document.
  s = slot(uri);
  if (s && s->id == id && s->analysis_wanted) start_analysis(*s);
}

void DocumentScheduler::start_index(Slot &s) {
  if (!resources_.indexer || !resources_.index_executor) return;
  s.index_running = true;
  s.index_wanted = false;
  IndexJob job{s.document.snapshot(), include_dirs_of(settings_)};
  std::weak_ptr<DocumentScheduler> weak = weak_from_this();
  asio::any_io_executor io = resources_.io;
  const std::string uri = s.document.uri;
  const std::uint64_t id = s.id;
  asio::post(resources_.index_executor, [weak, io, uri, id, indexer = resources_.indexer, job = std::move(job)] {
    std::shared_ptr<const SourceIndex> index;
    try {
      index = std::make_shared<const SourceIndex>(indexer(job));
    } catch (const std::exception &e) {
      spdlog::error("index of {} failed: {}", uri, e.what());
    }
    asio::post(io, [weak, uri, id, index] {
      if (auto self = weak.lock()) self->index_done(uri, id, index);
    });
  });
}

void DocumentScheduler::index_done(const std::string &uri, std::uint64_t id, std::shared_ptr<const SourceIndex> index) {
  if (shut_down_) return;
  Slot *s = slot(uri);
  if (!s || s->id != id) return;
  s->index_running = false;
  Document &d = s->document;
  const bool newer = index && (!d.index || d.index->edit_serial <= index->edit_serial);
  if (newer && (!index->generators.empty() || !d.index || d.index->generators.empty())) {
    d.index = index;
    d.journal.forget_before(index->edit_serial);
    spdlog::debug("index of {} (version {}): {} generator(s), {:.0f} ms{}", uri, index->version,
                  index->generators.size(), index->parse_ms, index->has_errors ? ", with errors" : "");
    if (listener_.on_index) listener_.on_index(d);
  } else if (index) {
    spdlog::debug("index of {} (version {}) found no generator; keeping the previous one (stale)", uri,
                  index->version);
  }
  s = slot(uri);
  if (s && s->id == id && s->index_wanted) start_index(*s);
}

}  // namespace hlsched::server::lsp
