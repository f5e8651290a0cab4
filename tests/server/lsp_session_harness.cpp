#include "lsp_session_harness.h"

#include <thread>

#include "lsp/clang_indexer.h"
#include "lsp/uri.h"
#include "test_support.h"

namespace hlsched::server::testing {

using nlohmann::json;
namespace asio = boost::asio;
using Status = AnalysisOutcome::Status;

json canned_blur_result() {
  return json{
      {"generator", "blur"},
      {"gpu_profile", "h200"},
      {"target", "host-cuda"},
      {"predicted_runtime_ms", 0.0125},
      {"schedule_code",
       "// Schedule by hlsched.\nusing namespace Halide;\nVar x(\"x\"), y(\"y\");\n\n// output: own kernel\n"
       "Func output(hlsched_funcs.at(\"output\"));\noutput.compute_root()\n    .gpu_tile(x, y, 32, 8);\n\n"
       "// blur_x: own kernel\nFunc blur_x(hlsched_funcs.at(\"blur_x\"));\nblur_x.compute_root();\n"},
      {"stages",
       {{{"func", "output"}, {"stage", 0}, {"placement", "root kernel"}, {"predicted_ms", 0.005}, {"bound", "launch"},
         {"terms", {{"launch", 0.003}, {"dram", 0.0015}, {"compute", 0.0005}}}},
        {{"func", "blur_x"}, {"stage", 0}, {"placement", "root kernel"}, {"predicted_ms", 0.0075}, {"bound", "memory"},
         {"terms", {{"dram", 0.006}, {"launch", 0.0015}}}}}},
      {"funcs",
       {{{"func", "output"}, {"compute", "root"}, {"comment", "output: own kernel"}},
        {{"func", "blur_x"}, {"compute", "root"}, {"comment", "blur_x: own kernel"}}}},
      {"search", {{"strategy", "beam"}, {"states_evaluated", 120}, {"time_ms", 15.0}}}};
}

lsp::DocumentAnalysis fake_analysis(const lsp::AnalysisJob &job) {
  lsp::DocumentAnalysis a;
  a.snapshot = job.snapshot;
  a.settings = job.settings;
  const std::string &text = job.snapshot.text;
  auto wait = [&](int ms) {
    for (int i = 0; i < ms / 5; i++) {
      if (job.cancel && job.cancel->load()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  };
  if (job.on_phase) job.on_phase(lsp::AnalysisPhase::Building);
  if (text.find("FAKE_CRASH") != std::string::npos) {
    a.outcome.status = Status::Crashed;
    a.outcome.error_kind = "crash";
    a.outcome.message = "the generator crashed with SIGSEGV while building its pipeline";
  } else if (text.find("FAKE_HANG") != std::string::npos) {
    if (wait(300)) {
      a.outcome.status = Status::TimedOut;
      a.outcome.error_kind = "timeout";
      a.outcome.message = "the generator did not finish within 0.3 s";
    } else {
      a.outcome.status = Status::Cancelled;
    }
  } else if (std::size_t at = text.find("#error"); at != std::string::npos) {
    a.outcome.status = Status::CompileError;
    a.outcome.error_kind = "compile_error";
    a.outcome.message = "does not compile";
    const int line = 1 + int(std::count(text.begin(), text.begin() + at, '\n'));
    a.compile_diagnostics.push_back({true, "doc.cpp", line, 2, "error", "#error in the document"});
  } else {
    if (text.find("FAKE_SLOW") != std::string::npos && !wait(300)) {
      a.outcome.status = Status::Cancelled;
      return a;
    }
    if (job.on_phase) job.on_phase(lsp::AnalysisPhase::Searching);
    a.outcome.status = Status::Ok;
    a.outcome.result = canned_blur_result();
  }
  return a;
}

// ---- MemoryTransport ----------------------------------------------------------------------------

void MemoryTransport::start(BytesHandler on_bytes, ClosedHandler on_closed) {
  on_bytes_ = std::move(on_bytes);
  on_closed_ = std::move(on_closed);
}

void MemoryTransport::write(std::string bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  decoder_.feed(bytes);
  while (auto frame = decoder_.next()) {
    if (auto *body = std::get_if<std::string>(&*frame)) messages_.push_back(json::parse(*body));
  }
}

std::optional<json> MemoryTransport::pop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (messages_.empty()) return std::nullopt;
  json m = std::move(messages_.front());
  messages_.pop_front();
  return m;
}

// ---- SessionHarness -------------------------------------------------------------------------------

SessionHarness::SessionHarness(Options options) {
  lsp::ServerEnvironment env;
  env.analysis_executor = analysis_pool_.get_executor();
  env.index_executor = index_pool_.get_executor();
  env.analyzer = fake_analysis;
  env.cache_dir = test_cache_dir();
  env.required_token = options.token;
  lsp::apply_settings(json::parse(options.settings_json), env.settings);
  if (options.index) {
    static auto indexer = std::make_shared<lsp::ClangIndexer>(lsp::ClangIndexerOptions{test_cache_dir(), {}, true});
    env.indexer = [](const lsp::IndexJob &job) {
      return indexer->index(job.snapshot.path.string(), job.snapshot.text, job.snapshot.version,
                            job.snapshot.edit_serial, job.include_dirs);
    };
  }
  protocol::FrameLimits limits;
  limits.max_body_bytes = options.max_message_bytes;
  session_ = std::make_shared<lsp::Session>(io_.get_executor(), transport_, env, limits,
                                            [this](int code) { exit_code_ = code; });
  session_->start();
}

SessionHarness::~SessionHarness() {
  session_->stop();
  session_.reset();
  analysis_pool_.join();
  index_pool_.join();
}

void SessionHarness::send_raw(std::string_view bytes) {
  transport_->feed(bytes);
  run_for(std::chrono::milliseconds(0));
}

void SessionHarness::send(const json &message) { send_raw(protocol::encode_frame(message.dump())); }

void SessionHarness::run_for(std::chrono::milliseconds time) {
  io_.restart();
  if (time.count() == 0) io_.poll();
  else io_.run_for(time);
}

std::optional<json> SessionHarness::next(std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto m = transport_->pop()) {
      if (m->contains("method") && m->contains("id")) {  // a request from the server
        json result = nullptr;
        if ((*m)["method"] == "workspace/applyEdit") {
          applied_edits.push_back((*m)["params"]);
          result = json{{"applied", true}};
        }
        send(json{{"jsonrpc", "2.0"}, {"id", (*m)["id"]}, {"result", result}});
      }
      return m;
    }
    if (std::chrono::steady_clock::now() > end) return std::nullopt;
    run_for(std::chrono::milliseconds(5));
  }
}

// ---- JSON helpers ------------------------------------------------------------------------------------

json expand_placeholders(json j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.rfind("@file:", 0) == 0) return read_file(source_path(s.substr(6)));
    if (s.rfind("@uri:", 0) == 0) return lsp::uri_from_path(source_path(s.substr(5)));
    return j;
  }
  if (j.is_object() || j.is_array())
    for (auto &item : j) item = expand_placeholders(item);
  return j;
}

bool json_matches(const json &expected, const json &actual, std::string &why, const std::string &path) {
  auto fail = [&](const std::string &reason) {
    why = (path.empty() ? "<root>" : path) + ": " + reason + " (got " + actual.dump().substr(0, 400) + ")";
    return false;
  };
  if (expected.is_string()) {
    const std::string e = expected.get<std::string>();
    if (e == "@any") return true;
    if (e.rfind("@contains:", 0) == 0) {
      return actual.is_string() && actual.get<std::string>().find(e.substr(10)) != std::string::npos
                 ? true
                 : fail("expected a string containing '" + e.substr(10) + "'");
    }
  }
  if (expected.is_object()) {
    if (!actual.is_object()) return fail("expected an object");
    for (const auto &[key, value] : expected.items()) {
      if (!actual.contains(key)) return fail("missing member '" + key + "'");
      if (!json_matches(value, actual[key], why, path + "." + key)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size())
      return fail("expected an array of " + std::to_string(expected.size()));
    for (std::size_t i = 0; i < expected.size(); i++)
      if (!json_matches(expected[i], actual[i], why, path + "[" + std::to_string(i) + "]")) return false;
    return true;
  }
  if (expected.is_number() && actual.is_number()) {
    return expected.get<double>() == actual.get<double>() ? true : fail("expected " + expected.dump());
  }
  return expected == actual ? true : fail("expected " + expected.dump());
}

}  // namespace hlsched::server::testing
