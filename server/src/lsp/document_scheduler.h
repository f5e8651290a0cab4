// The documents the editor has open, and when each one is indexed and analyzed.
//
// Each open document has its text (kept in sync through didChange), an EditJournal, the newest
// source index and the newest finished analysis. Analyses and indexes run on thread pools;
// everything else, including every callback, happens on the server's I/O thread. See the essay
// at the top of document_scheduler.cpp for the rules (debounce, cancellation, staleness).
//
// Threading: every public member must be called on the I/O thread (the strand of `io`).
// Listener callbacks and AnalysisCallbacks run there too.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hlsched/protocol/jsonrpc.h"
#include "hlsched/protocol/text_document.h"
#include "lsp/document_analysis.h"
#include "lsp/edit_journal.h"
#include "lsp/server_settings.h"
#include "lsp/source_index.h"

namespace hlsched::server::lsp {

struct IndexJob {
  DocumentSnapshot snapshot;
  std::vector<std::string> include_dirs;  ///< from the settings' -I flags
};
using Indexer = std::function<SourceIndex(const IndexJob &)>;

/// One open document, as the LSP handlers see it.
struct Document {
  std::string uri;
  std::filesystem::path path;    ///< the file the URI names (empty for non-file URIs)
  protocol::TextDocument text;   ///< the editor's current text and version
  EditJournal journal;
  std::filesystem::path work_dir;  ///< <cache>/documents/<hash of uri>/
  /// The newest index that found a generator (an index of a broken text that found none does not
  /// replace a good one). Stale when its edit_serial is not journal.serial().
  std::shared_ptr<const SourceIndex> index;
  /// The newest finished analysis (never a cancelled one), whatever its status.
  std::shared_ptr<const DocumentAnalysis> analysis;

  bool index_is_current() const { return index && index->edit_serial == journal.serial(); }
  bool analysis_is_current() const { return analysis && analysis->snapshot.edit_serial == journal.serial(); }
  DocumentSnapshot snapshot() const;
};

/// Where the scheduler runs its work and what it runs.
struct SchedulerResources {
  boost::asio::any_io_executor io;         ///< the I/O thread's executor (results come back here)
  boost::asio::any_io_executor analysis_executor;  ///< where analyzer calls run (the daemon: a pool)
  boost::asio::any_io_executor index_executor;     ///< where indexer calls run; none: no index
  Analyzer analyzer = run_document_analysis;
  Indexer indexer;
  std::filesystem::path cache_dir;
};

class DocumentScheduler : public std::enable_shared_from_this<DocumentScheduler> {
 public:
  struct Listener {
    /// A new index was stored for the document.
    std::function<void(const Document &)> on_index;
    /// An analysis of `serial` entered a phase (Building, then Searching).
    std::function<void(const Document &, std::uint64_t serial, AnalysisPhase)> on_phase;
    /// An analysis returned. `stored` is false for cancelled ones (document.analysis unchanged).
    std::function<void(const Document &, const std::shared_ptr<const DocumentAnalysis> &, bool stored)> on_analysis;
  };
  /// Answer to when_current(): the analysis of the current text, or why there is none.
  using AnalysisCallback =
      std::function<void(std::shared_ptr<const DocumentAnalysis>, std::optional<protocol::ResponseError>)>;

  static std::shared_ptr<DocumentScheduler> create(SchedulerResources resources, ServerSettings settings,
                                                   Listener listener);
  ~DocumentScheduler();

  /// didOpen: stores the text and analyzes it right away. Reopening replaces the document.
  void open(const std::string &uri, std::string text, std::int32_t version);
  /// didChange: applies the edits (throws protocol::InvalidParamsError, document unchanged),
  /// cancels the running analysis, fails waiters with ContentModified, restarts the debounce.
  void change(const std::string &uri, const std::vector<protocol::lsp::TextDocumentContentChangeEvent> &changes,
              std::int32_t version);
  /// didSave: analyze now (skipping the debounce).
  void save(const std::string &uri);
  /// didClose: cancels its work and forgets it.
  void close(const std::string &uri);

  /// New settings re-analyze every open document (when they differ).
  void set_settings(const ServerSettings &settings);
  const ServerSettings &settings() const { return settings_; }

  const Document *find(const std::string &uri) const;
  std::vector<std::string> open_uris() const;

  /// Calls `done` with the analysis of the document's current text: at once if there is one, or
  /// when it finishes (starting it if nothing is pending). Fails with ContentModified when the
  /// text changes first and with RequestFailed when the document is not open or gets closed.
  void when_current(const std::string &uri, AnalysisCallback done);

  /// Cancels everything; no callback runs afterwards. Call before the pools are joined.
  void shutdown();

  /// Analyses running now (for tests and benchmarks).
  std::size_t running_analyses() const;

 private:
  struct Slot;
  DocumentScheduler(SchedulerResources resources, ServerSettings settings, Listener listener);

  Slot *slot(const std::string &uri);
  void schedule_analysis(Slot &slot, std::chrono::milliseconds delay);
  void analysis_due(Slot &slot);
  void start_analysis(Slot &slot);
  void analysis_done(const std::string &uri, std::uint64_t slot_id, std::shared_ptr<const DocumentAnalysis> result);
  void start_index(Slot &slot);
  void index_done(const std::string &uri, std::uint64_t slot_id, std::shared_ptr<const SourceIndex> index);
  void fail_waiters(Slot &slot, const protocol::ResponseError &error, std::uint64_t before_serial);

  SchedulerResources resources_;
  ServerSettings settings_;
  Listener listener_;
  std::map<std::string, std::unique_ptr<Slot>> slots_;
  std::uint64_t next_slot_id_ = 1;
  bool shut_down_ = false;
};

}  // namespace hlsched::server::lsp
