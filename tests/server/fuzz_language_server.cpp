// libFuzzer target: the real LanguageServer (through a Session, as the daemon runs it) driven by
// sequences of LSP messages decoded from the fuzzer's bytes, with the fake analyzer of the session
// tests (lsp_session_harness.h) in place of real generator builds and a fake indexer
// (fuzz_fake_indexer.h: source indexes of random shapes, also shaped by the bytes) in place of
// libclang.
//
// Each input is a program: every step takes a few bytes to pick an action (open, incremental
// change with random ranges incl. out-of-range and surrogate-pair positions, hover / codeAction /
// codeLens at random positions, cancel, configuration changes with wrong types, hlsched/* and
// executeCommand with bad params, replies to the server's own requests, raw bytes, shutdown,
// exit) and its arguments. "settle" lets queued analyses finish and deliver their results, so
// later steps meet documents with results, errors and stale versions; "run one job" runs a single
// queued analysis or delivery, so results also arrive between any two messages.
//
// Analyses and indexes run on this thread, not in pools: the server posts them to an executor, and here that
// is an io_context the harness polls. This keeps an input at a fraction of a millisecond (no
// thread start/stop, no cross-thread waits that a loaded machine turns into scheduler latency)
// and makes every input replay exactly (the interleaving is chosen by the input's bytes).
//
// Besides "no crash, leak or UB (ASan/UBSan)" it checks that everything the server writes is a
// well-formed frame holding JSON-RPC 2.0 and that no request
// is answered twice.
//
// Run: scripts/fuzz_lsp.sh (bounded or long runs); ctest runs it for a bounded time.

#include <fuzzer/FuzzedDataProvider.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hlsched/protocol/framing.h"
#include "lsp/server_settings.h"
#include "lsp/session.h"
#include "lsp/transport.h"
#include "fuzz_fake_indexer.h"
#include "lsp_session_harness.h"

namespace {

using nlohmann::json;
namespace asio = boost::asio;
namespace lsp = hlsched::server::lsp;

void check(bool condition) {
  if (!condition) std::abort();
}

// What the server writes, cut into frames and parsed; anything that is not a well-formed frame
// of JSON aborts (a finding).
class CheckingTransport : public lsp::Transport {
public:
  void start(BytesHandler on_bytes, ClosedHandler on_closed) override {
    on_bytes_ = std::move(on_bytes);
    on_closed_ = std::move(on_closed);
  }
  void write(std::string bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    decoder_.feed(bytes);
    while (auto frame = decoder_.next()) {
      const std::string *body = std::get_if<std::string>(&*frame);
      check(body != nullptr);
      json message = json::parse(*body, nullptr, /*allow_exceptions=*/false);
      check(!message.is_discarded());
      messages_.push_back(std::move(message));
    }
  }
  void close() override {}
  std::string describe() const override { return "fuzz"; }

  void feed(std::string_view bytes) {
    if (on_bytes_) on_bytes_(bytes);
  }
  std::optional<json> pop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (messages_.empty()) return std::nullopt;
    json m = std::move(messages_.front());
    messages_.pop_front();
    return m;
  }

private:
  BytesHandler on_bytes_;
  ClosedHandler on_closed_;
  std::mutex mutex_;
  hlsched::protocol::FrameDecoder decoder_;
  std::deque<json> messages_;
};

// The fake analyzer without its waits (FAKE_HANG / FAKE_SLOW sleep 300 ms): the fuzzer needs
// thousands of inputs a second. The outcomes stay the same: timeout unless cancelled first.
lsp::DocumentAnalysis fast_fake_analysis(const lsp::AnalysisJob &job) {
  const std::string &text = job.snapshot.text;
  const bool slow = text.find("FAKE_HANG") != std::string::npos || text.find("FAKE_SLOW") != std::string::npos;
  if (!slow) return hlsched::server::testing::fake_analysis(job);
  lsp::DocumentAnalysis a;
  a.snapshot = job.snapshot;
  a.settings = job.settings;
  if (job.on_phase) job.on_phase(lsp::AnalysisPhase::Building);
  if (job.cancel && job.cancel->load()) {
    a.outcome.status = hlsched::server::AnalysisOutcome::Status::Cancelled;
  } else {
    a.outcome.status = hlsched::server::AnalysisOutcome::Status::TimedOut;
    a.outcome.error_kind = "timeout";
    a.outcome.message = "the generator did not finish within 0.3 s";
  }
  return a;
}

const char *const kUris[] = {"file:///tmp/hlsched-fuzz/a.cpp", "file:///tmp/hlsched-fuzz/b%20c.cpp",
                             "file:///tmp/hlsched-fuzz/sub/../a.cpp", "untitled:Untitled-1", "not a uri", ""};

// Pieces of text: generator code, markers of the fake analyzer, line ends of every kind, and
// characters outside the BMP (two UTF-16 code units: positions can fall between them).
const char *const kSnippets[] = {
    "#include \"Halide.h\"\n",
    "class Blur : public Halide::Generator<Blur> {\npublic:\n  Input<Buffer<float, 2>> input{\"input\"};\n"
    "  Output<Buffer<float, 2>> output{\"output\"};\n  void generate() {\n    blur_x(x, y) = input(x, y);\n"
    "    output(x, y) = blur_x(x, y);\n  }\n  Func blur_x{\"blur_x\"};\n  Var x{\"x\"}, y{\"y\"};\n};\n",
    "HALIDE_REGISTER_GENERATOR(Blur, blur)\n",
    "  void schedule() {\n    if (using_autoscheduler()) return;\n  }\n",
    "FAKE_CRASH",
    "FAKE_HANG",
    "FAKE_SLOW",
    "#error nope\n",
    "\xF0\x9F\x98\x80",  // U+1F600: a surrogate pair in UTF-16
    "\xE2\x82\xAC",      // U+20AC: three UTF-8 bytes, one UTF-16 unit
    "\xC3\xA9",          // U+00E9
    "\xFF\xFE\x80",      // not UTF-8
    "\r\n",
    "\r",
    "\n",
    "blur_x",
    "output",
    "\t",
    "",
    "// hlsched: schedule\n",
};

const char *const kSettingKeys[] = {"gpu_profile", "strategy", "beam_size", "passes", "freeze", "sampling",
                                    "memo", "seed", "work_budget", "time_budget_s", "timeout", "memory_limit_mb", "generator",
                                    "params", "compile_flags", "debounce_ms", "unknown_key"};

const char *const kHlschedMethods[] = {"hlsched/schedule", "hlsched/stageCosts", "hlsched/explain",
                                       "hlsched/documentStatus", "hlsched/nope"};

const char *const kCommands[] = {"hlsched.explain", "hlsched.applySuggestedSchedule", "other.command"};

// The server's I/O "thread" and its analysis "pool", polled by the harness. Shared by all inputs:
// a fresh io_context per input set up a new epoll reactor and timer service each time. Every
// input settles both before it ends, so none leaves work behind for the next.
struct Executors {
  asio::io_context io;
  asio::io_context work;
};

Executors &executors() {
  static Executors e;
  return e;
}

class Program {
public:
  explicit Program(FuzzedDataProvider &in) : in_(in) {}

  void run() {
    start_session();
    for (int step = 0; step < 48 && in_.remaining_bytes() > 0; step++) {
      if (!session_alive_) break;
      do_step();
      poll();
      answer_server_requests();
    }
    stop_session();
  }

private:
  // ---- Plumbing -----------------------------------------------------------------------------

  void start_session() {
    lsp::ServerEnvironment env;
    env.analysis_executor = work_.get_executor();
    env.analyzer = fast_fake_analysis;
    env.index_executor = work_.get_executor();
    env.indexer = [this](const lsp::IndexJob &job) { return indexer_.index(job); };
    env.cache_dir = "/tmp/hlsched-fuzz-cache";
    env.client_is_local = false;  // no watching of random processIds
    lsp::apply_settings(json{{"debounce_ms", 0}}, env.settings);
    hlsched::protocol::FrameLimits limits;
    limits.max_body_bytes = 1u << 20;
    session_ = std::make_shared<lsp::Session>(io_.get_executor(), transport_, env, limits,
                                              [this](int) { session_alive_ = false; });
    session_->start();
  }

  void stop_session() {
    session_->stop();
    settle();
    session_.reset();
    settle();
    drain_output();
  }

  // Runs what is ready on the I/O side (replies, delivered results, expired timers).
  void poll() {
    io_.restart();
    io_.poll();
  }

  // Lets every queued analysis finish and deliver its result, and whatever that starts in turn.
  // A server that never stops queueing work would hang here: libFuzzer reports it as a timeout.
  void settle() {
    for (;;) {
      work_.restart();
      io_.restart();
      if (work_.poll() + io_.poll() == 0) return;
    }
  }

  // One queued analysis (or, with none queued, one I/O handler): results also land between steps.
  void run_one_job() {
    work_.restart();
    if (work_.poll_one() == 0) {
      io_.restart();
      io_.poll_one();
    }
  }

  // Strings from the fuzzer may not be UTF-8: nlohmann would throw on dump(), so such bytes go
  // out as U+FFFD (raw bytes reach the framing and the JSON parser through step 18).
  void send(const json &message) {
    remember_ids(message);
    transport_->feed(hlsched::protocol::encode_frame(message.dump(-1, ' ', false, json::error_handler_t::replace)));
  }

  void request(const std::string &method, json params) {
    json id = next_id();
    json message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null() || in_.ConsumeBool()) message["params"] = std::move(params);
    send(message);
  }

  // Every id the server may answer: those of our requests, and of any object (or batch member)
  // with an id that is not a reply of ours.
  void remember_ids(const json &message) {
    if (message.is_array())
      for (const json &m : message) remember_ids(m);
    if (message.is_object() && message.contains("id") && !message.contains("result") && !message.contains("error"))
      sent_ids_.push_back(message["id"]);
  }

  void notify(const std::string &method, json params) {
    json message{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null() || in_.ConsumeBool()) message["params"] = std::move(params);
    send(message);
  }

  json next_id() {
    switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: return "s" + std::to_string(id_counter_++);
      case 1: return sent_ids_.empty() ? json(0) : sent_ids_.back();  // a duplicate id
      default: return id_counter_++;
    }
  }

  // Checks the JSON-RPC shape of what the server wrote, and that no request is answered twice.
  void drain_output() {
    while (auto m = transport_->pop()) check_message(*m);
  }

  void check_message(const json &m) {
    if (m.is_array()) {  // a batch reply
      check(!m.empty());
      for (const json &item : m) check_message(item);
      return;
    }
    check(m.is_object() && m.value("jsonrpc", "") == "2.0");
    if (m.contains("method")) return;  // a notification or a request from the server
    check(m.contains("id"));
    check(m.contains("result") != m.contains("error"));
    if (m["id"].is_number_integer() || m["id"].is_string()) check(++replies_[m["id"].dump()] <= count_sent(m["id"]));
  }

  int count_sent(const json &id) const {
    int n = 0;
    for (const json &sent : sent_ids_) n += sent == id;
    return n;
  }

  // Requests from the server (workspace/applyEdit, window/workDoneProgress/create): a reply of
  // random shape, an error, or none at all.
  void answer_server_requests() {
    while (auto m = transport_->pop()) {
      check_message(*m);
      if (!m->is_object() || !m->contains("method") || !m->contains("id") || in_.remaining_bytes() == 0) continue;
      switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: send({{"jsonrpc", "2.0"}, {"id", (*m)["id"]}, {"result", {{"applied", true}}}}); break;
        case 1: send({{"jsonrpc", "2.0"}, {"id", (*m)["id"]}, {"error", {{"code", -32603}, {"message", "no"}}}}); break;
        case 2: send({{"jsonrpc", "2.0"}, {"id", (*m)["id"]}, {"result", random_json(2)}}); break;
        default: break;  // never answered
      }
      poll();
    }
  }

  // ---- Values -------------------------------------------------------------------------------

  std::string uri() { return kUris[in_.ConsumeIntegralInRange<size_t>(0, std::size(kUris) - 1)]; }

  std::string text() {
    std::string t;
    const int pieces = in_.ConsumeIntegralInRange<int>(0, 6);
    for (int i = 0; i < pieces; i++) {
      if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) t += in_.ConsumeRandomLengthString(24);
      else t += kSnippets[in_.ConsumeIntegralInRange<size_t>(0, std::size(kSnippets) - 1)];
    }
    return t;
  }

  // Mostly small, sometimes past the end, sometimes not a valid uinteger at all.
  json coordinate() {
    switch (in_.ConsumeIntegralInRange<int>(0, 15)) {
      case 0: return -1;
      case 1: return 4294967295u;
      case 2: return 4294967296LL;
      case 3: return 1.5;
      case 4: return "3";
      case 5: return 1000000;
      default: return in_.ConsumeIntegralInRange<int>(0, 14);
    }
  }

  json position() {
    if (in_.ConsumeIntegralInRange<int>(0, 31) == 0) return random_json(1);
    return {{"line", coordinate()}, {"character", coordinate()}};
  }

  json range() { return {{"start", position()}, {"end", position()}}; }

  json text_document() { return {{"uri", uri()}}; }

  json random_json(int depth) {
    switch (in_.ConsumeIntegralInRange<int>(0, depth > 0 ? 7 : 4)) {
      case 0: return nullptr;
      case 1: return in_.ConsumeBool();
      case 2: return in_.ConsumeIntegral<int32_t>();
      case 3: return in_.ConsumeFloatingPoint<double>();
      case 4: return in_.ConsumeRandomLengthString(16);
      case 5: {
        json a = json::array();
        for (int i = in_.ConsumeIntegralInRange<int>(0, 3); i > 0; i--) a.push_back(random_json(depth - 1));
        return a;
      }
      case 6: return json{{"textDocument", text_document()}, {"position", position()}};
      default: {
        json o = json::object();
        for (int i = in_.ConsumeIntegralInRange<int>(0, 3); i > 0; i--)
          o[in_.ConsumeBool() ? std::string(kSettingKeys[in_.ConsumeIntegralInRange<size_t>(0, std::size(kSettingKeys) - 1)])
                              : in_.ConsumeRandomLengthString(8)] = random_json(depth - 1);
        return o;
      }
    }
  }

  // A value for a setting: often the right type, often not.
  json setting_value(const std::string &key) {
    if (in_.ConsumeBool()) return random_json(1);
    if (key == "gpu_profile") return in_.ConsumeBool() ? "h200" : "a100";
    if (key == "strategy") return in_.ConsumeBool() ? "beam" : "simple";
    if (key == "params") return {{"radius", "3"}};
    if (key == "compile_flags") return json::array({"-DX=1"});
    if (key == "debounce_ms") return 0;
    return in_.ConsumeIntegralInRange<int>(0, 4);
  }

  json settings() {
    json s = json::object();
    for (int i = in_.ConsumeIntegralInRange<int>(0, 3); i > 0; i--) {
      const std::string key = kSettingKeys[in_.ConsumeIntegralInRange<size_t>(0, std::size(kSettingKeys) - 1)];
      s[key] = setting_value(key);
    }
    return in_.ConsumeBool() ? json{{"hlsched", s}} : s;
  }

  // ---- Steps --------------------------------------------------------------------------------

  void do_step() {
    switch (in_.ConsumeIntegralInRange<int>(0, 19)) {
      case 0: {
        json params{{"capabilities", json::object()}};
        if (in_.ConsumeBool()) params["processId"] = in_.ConsumeBool() ? json(nullptr) : random_json(0);
        if (in_.ConsumeBool()) params["initializationOptions"] = in_.ConsumeBool() ? settings() : random_json(2);
        if (in_.ConsumeBool()) params["capabilities"] = random_json(2);
        request("initialize", params);
        break;
      }
      case 1: notify("initialized", json::object()); break;
      case 2: {
        json doc{{"uri", uri()}, {"languageId", "cpp"}, {"version", in_.ConsumeIntegralInRange<int>(-1, 5)},
                 {"text", text()}};
        if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) doc.erase(in_.ConsumeBool() ? "text" : "version");
        notify("textDocument/didOpen", {{"textDocument", doc}});
        break;
      }
      case 3: case 4: case 5: {
        json changes = json::array();
        for (int i = in_.ConsumeIntegralInRange<int>(1, 3); i > 0; i--) {
          json change{{"text", text()}};
          if (in_.ConsumeIntegralInRange<int>(0, 5) != 0) change["range"] = range();
          if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) change["rangeLength"] = coordinate();
          changes.push_back(change);
        }
        json doc{{"uri", uri()}, {"version", in_.ConsumeIntegralInRange<int>(-1, 40)}};
        notify("textDocument/didChange", {{"textDocument", doc}, {"contentChanges", changes}});
        break;
      }
      case 6: request("textDocument/hover", {{"textDocument", text_document()}, {"position", position()}}); break;
      case 7:
        request("textDocument/codeAction", {{"textDocument", text_document()}, {"range", range()},
                                            {"context", in_.ConsumeBool() ? json{{"diagnostics", json::array()}}
                                                                          : random_json(1)}});
        break;
      case 8: request("textDocument/codeLens", {{"textDocument", text_document()}}); break;
      case 9: {
        json id = sent_ids_.empty() || in_.ConsumeIntegralInRange<int>(0, 3) == 0
                      ? random_json(0)
                      : sent_ids_[in_.ConsumeIntegralInRange<size_t>(0, sent_ids_.size() - 1)];
        notify("$/cancelRequest", {{"id", id}});
        break;
      }
      case 10:
        notify("workspace/didChangeConfiguration", {{"settings", in_.ConsumeBool() ? settings() : random_json(2)}});
        break;
      case 11: {
        const std::string method = kHlschedMethods[in_.ConsumeIntegralInRange<size_t>(0, std::size(kHlschedMethods) - 1)];
        json params = in_.ConsumeBool() ? json{{"textDocument", text_document()}} : random_json(2);
        if (params.is_object() && in_.ConsumeBool()) params["func"] = in_.ConsumeBool() ? json("blur_x") : random_json(0);
        request(method, params);
        break;
      }
      case 12: {
        json args = json::array({uri()});
        if (in_.ConsumeBool()) args.push_back(in_.ConsumeBool() ? json("blur_x") : random_json(1));
        request("workspace/executeCommand",
                {{"command", kCommands[in_.ConsumeIntegralInRange<size_t>(0, std::size(kCommands) - 1)]},
                 {"arguments", in_.ConsumeBool() ? args : random_json(1)}});
        break;
      }
      case 13: notify(in_.ConsumeBool() ? "textDocument/didClose" : "textDocument/didSave",
                      {{"textDocument", text_document()}}); break;
      case 14: settle(); break;
      case 15:
        if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) request("shutdown", nullptr);
        else run_one_job();
        break;
      case 16:
        if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) notify("exit", nullptr);
        else settle();
        break;
      case 17:  // a method or params of the wrong shape altogether
        if (in_.ConsumeBool()) request(in_.ConsumeRandomLengthString(24), random_json(2));
        else send(random_json(3));
        break;
      case 18:  // raw bytes: a header or body that is not what it should be (may end the session)
        if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) transport_->feed(in_.ConsumeRandomLengthString(64));
        else send(random_json(2));
        break;
      default:
        request("textDocument/hover", {{"textDocument", text_document()}, {"position", position()}});
        break;
    }
  }

  FuzzedDataProvider &in_;
  hlsched::server::testing::FakeIndexer indexer_{in_};
  asio::io_context &io_ = executors().io;
  asio::io_context &work_ = executors().work;
  std::shared_ptr<CheckingTransport> transport_ = std::make_shared<CheckingTransport>();
  std::shared_ptr<lsp::Session> session_;
  bool session_alive_ = true;
  int64_t id_counter_ = 1;
  std::vector<json> sent_ids_;
  std::map<std::string, int> replies_;
};

}  // namespace

// ASan's defaults make a short input cost about twice what it needs (measured on one input run
// 2,000 times: 3.9 s -> 1.8 s). A 256 MB quarantine keeps freed memory poisoned far longer than one
// input (which frees well under a megabyte), at the price of page faults and cache misses: 16 MB
// still catches any use after free within an input and several after it. 30 frames recorded
// for every malloc and free: 8 place a finding (replay an artifact with
// ASAN_OPTIONS=malloc_context_size=30 to see more). ASAN_OPTIONS in the environment overrides these.
extern "C" const char *__asan_default_options() { return "quarantine_size_mb=16:malloc_context_size=8"; }

// The server logs every session's start and end at "info": millions of lines in a long run.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  spdlog::set_level(spdlog::level::warn);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  Program(in).run();
  return 0;
}
