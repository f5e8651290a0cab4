// DocumentScheduler with a fake analyzer and indexer: debounce, cancellation by newer edits,
// one analysis per document at a time, waiters and ContentModified, stale indexes.
#include <catch2/catch.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "lsp/document_scheduler.h"

using namespace hlsched::server::lsp;
using hlsched::server::AnalysisOutcome;
namespace asio = boost::asio;
namespace plsp = hlsched::protocol::lsp;

namespace {

// An analyzer that holds each analysis until released (or cancelled), and records what it saw.
class FakeAnalyzer {
 public:
  DocumentAnalysis operator()(const AnalysisJob &job) {
    std::unique_lock<std::mutex> lock(mutex_);
    started_.push_back(job.snapshot.text);
    running_++;
    max_running_ = std::max(max_running_, running_);
    changed_.notify_all();
    // The cancel flag is not a condition variable: look at it every few milliseconds.
    while (!changed_.wait_for(lock, std::chrono::milliseconds(2), [&] { return released_ > 0 || job.cancel->load(); })) {
    }
    running_--;
    DocumentAnalysis a;
    a.snapshot = job.snapshot;
    a.settings = job.settings;
    if (job.cancel->load()) {
      a.outcome.status = AnalysisOutcome::Status::Cancelled;
      cancelled_++;
    } else {
      released_--;
      a.outcome.status = AnalysisOutcome::Status::Ok;
      a.outcome.result = {{"predicted_runtime_ms", double(job.snapshot.text.size())}};
    }
    return a;
  }
  void release(int n = 1) {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ += n;
    changed_.notify_all();
  }
  std::vector<std::string> started() {
    std::lock_guard<std::mutex> lock(mutex_);
    return started_;
  }
  int cancelled() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cancelled_;
  }
  int max_running() {
    std::lock_guard<std::mutex> lock(mutex_);
    return max_running_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> started_;
  int released_ = 0, running_ = 0, max_running_ = 0, cancelled_ = 0;
};

struct Harness {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> keep_running{io.get_executor()};
  asio::thread_pool analysis_pool{2}, index_pool{1};
  std::shared_ptr<FakeAnalyzer> analyzer = std::make_shared<FakeAnalyzer>();
  std::shared_ptr<DocumentScheduler> scheduler;
  std::vector<std::pair<std::string, bool>> analyses;  // text, stored
  int indexes = 0;
  bool index_finds_generator = true;

  explicit Harness(std::chrono::milliseconds debounce = std::chrono::milliseconds(50)) {
    SchedulerResources r;
    r.io = io.get_executor();
    r.analysis_executor = analysis_pool.get_executor();
    r.index_executor = index_pool.get_executor();
    r.analyzer = [a = analyzer](const AnalysisJob &job) { return (*a)(job); };
    r.indexer = [this](const IndexJob &job) {
      SourceIndex index;
      index.text = job.snapshot.text;
      index.version = job.snapshot.version;
      index.edit_serial = job.snapshot.edit_serial;
      if (index_finds_generator) index.generators.emplace_back();
      return index;
    };
    r.cache_dir = std::filesystem::temp_directory_path() / "hlsched-scheduler-test";
    ServerSettings settings;
    settings.debounce.delay = debounce;
    DocumentScheduler::Listener listener;
    listener.on_index = [this](const Document &) { indexes++; };
    listener.on_analysis = [this](const Document &, const std::shared_ptr<const DocumentAnalysis> &a, bool stored) {
      analyses.emplace_back(a->snapshot.text, stored);
    };
    scheduler = DocumentScheduler::create(r, settings, listener);
  }
  ~Harness() {
    scheduler->shutdown();
    analyzer->release(100);
    analysis_pool.join();
    index_pool.join();
  }

  // The timeout only ends a test that would otherwise hang: generous, since a pool thread on a
  // loaded machine can wait seconds for a time slice.
  template <class Predicate>
  bool run_until(Predicate done, std::chrono::milliseconds timeout = std::chrono::milliseconds(60000)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (std::chrono::steady_clock::now() > end) return false;
      io.restart();
      io.run_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  void type(const std::string &uri, const std::string &text, int version) {
    std::vector<plsp::TextDocumentContentChangeEvent> change(1);
    const Document *d = scheduler->find(uri);
    const auto end = d->text.position_at(d->text.text().size());
    change[0].range = plsp::Range{end, end};
    change[0].text = text;
    scheduler->change(uri, change, version);
  }
};

const std::string kUri = "file:///tmp/hlsched-scheduler-test/gen.cpp";

}  // namespace

TEST_CASE("opening analyzes at once - the result is stored and current", "[scheduler]") {
  Harness h;
  h.scheduler->open(kUri, "v1", 1);
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 1; }));
  h.analyzer->release();
  REQUIRE(h.run_until([&] { return h.analyses.size() == 1 && h.indexes == 1; }));
  CHECK(h.analyses[0] == std::make_pair(std::string("v1"), true));
  const Document *d = h.scheduler->find(kUri);
  CHECK(d->analysis_is_current());
  CHECK(d->index_is_current());
}

TEST_CASE("newer edits cancel the running analysis - a burst of edits gives one analysis", "[scheduler]") {
  Harness h(std::chrono::milliseconds(100));
  h.scheduler->open(kUri, "v", 1);
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 1; }));
  for (int i = 0; i < 20; i++) h.type(kUri, "x", 2 + i);  // faster than the debounce
  REQUIRE(h.run_until([&] { return h.analyzer->cancelled() == 1; }));
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 2; }));
  CHECK(h.analyzer->started()[1] == "v" + std::string(20, 'x'));
  h.analyzer->release();
  REQUIRE(h.run_until([&] { return h.analyses.size() == 2; }));
  CHECK_FALSE(h.analyses[0].second);  // the cancelled one is not stored
  CHECK(h.analyses[1].second);
  CHECK(h.analyzer->max_running() == 1);  // never two analyses of one document at once
  CHECK(h.scheduler->find(kUri)->analysis_is_current());
}

TEST_CASE("an edit while debouncing restarts the wait - the next analysis waits for the cancelled one", "[scheduler]") {
  Harness h(std::chrono::milliseconds(30));
  h.scheduler->open(kUri, "a", 1);
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 1; }));
  h.type(kUri, "b", 2);
  // The debounce expires while the cancelled analysis may still be returning: still one at a time.
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 2; }));
  h.type(kUri, "c", 3);
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 3; }));
  h.analyzer->release();
  REQUIRE(h.run_until([&] { return h.analyses.size() == 3; }));
  CHECK(h.analyses.back() == std::make_pair(std::string("abc"), true));
  CHECK(h.analyzer->max_running() == 1);
}

TEST_CASE("waiters get the analysis of their text, or ContentModified", "[scheduler]") {
  Harness h;
  h.scheduler->open(kUri, "one", 1);
  std::vector<std::string> answers;
  auto waiter = [&](std::shared_ptr<const DocumentAnalysis> a, std::optional<hlsched::protocol::ResponseError> e) {
    answers.push_back(e ? "error " + std::to_string(e->code) : "ok " + a->snapshot.text);
  };
  h.scheduler->when_current(kUri, waiter);
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 1; }));
  h.type(kUri, "!", 2);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0] == "error " + std::to_string(hlsched::protocol::kContentModified));
  h.scheduler->when_current(kUri, waiter);
  h.analyzer->release(2);
  REQUIRE(h.run_until([&] { return answers.size() == 2; }));
  CHECK(answers[1] == "ok one!");
  h.scheduler->when_current(kUri, waiter);  // current already: answered at once
  CHECK(answers.size() == 3);
  h.scheduler->when_current("file:///not/open.cpp", waiter);
  CHECK(answers.back() == "error " + std::to_string(hlsched::protocol::kRequestFailed));
}

TEST_CASE("closing cancels the running analysis and fails waiters - its result is dropped", "[scheduler]") {
  Harness h;
  h.scheduler->open(kUri, "x", 1);
  std::optional<int> code;
  h.scheduler->when_current(kUri, [&](auto, std::optional<hlsched::protocol::ResponseError> e) { code = e ? e->code : 0; });
  REQUIRE(h.run_until([&] { return h.analyzer->started().size() == 1; }));
  h.scheduler->close(kUri);
  CHECK(code == hlsched::protocol::kRequestFailed);
  REQUIRE(h.run_until([&] { return h.analyzer->cancelled() == 1; }));
  h.run_until([] { return false; }, std::chrono::milliseconds(50));
  CHECK(h.analyses.empty());
  CHECK(h.scheduler->find(kUri) == nullptr);
}

TEST_CASE("an index that finds no generator does not replace a good one", "[scheduler]") {
  Harness h(std::chrono::milliseconds(10));
  h.scheduler->open(kUri, "good", 1);
  h.analyzer->release(10);
  REQUIRE(h.run_until([&] { return h.indexes == 1; }));
  h.index_finds_generator = false;
  h.type(kUri, " broken", 2);
  REQUIRE(h.run_until([&] { return h.analyses.size() >= 2; }));
  h.run_until([] { return false; }, std::chrono::milliseconds(100));
  const Document *d = h.scheduler->find(kUri);
  REQUIRE(d->index);
  CHECK(d->index->text == "good");  // the last good index, now stale
  CHECK_FALSE(d->index_is_current());
  CHECK(h.indexes == 1);
}

TEST_CASE("new settings re-analyze open documents", "[scheduler]") {
  Harness h;
  h.scheduler->open(kUri, "s", 1);
  h.analyzer->release(10);
  REQUIRE(h.run_until([&] { return h.analyses.size() == 1; }));
  ServerSettings settings = h.scheduler->settings();
  h.scheduler->set_settings(settings);  // unchanged: nothing to do
  settings.search.gpu_profile = "a100";
  h.scheduler->set_settings(settings);
  REQUIRE(h.run_until([&] { return h.analyses.size() == 2; }));
  CHECK(h.scheduler->find(kUri)->analysis->settings.search.gpu_profile == "a100");
}
