// Server settings (typed, all or nothing) and file URIs.
#include <catch2/catch.hpp>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/protocol/errors.h"
#include "lsp/document_analysis.h"
#include "lsp/server_settings.h"
#include "lsp/uri.h"

using namespace hlsched::server::lsp;
using nlohmann::json;

TEST_CASE("SearchSettings mirrors AutoschedulerOptions' defaults", "[settings]") {
  const SearchSettings s;
  const hlsched::AutoschedulerOptions o;
  CHECK(s.gpu_profile == o.gpu_profile);
  CHECK(s.strategy == o.strategy);
  CHECK(s.beam_size == o.beam_size);
  CHECK(s.passes == o.passes);
  CHECK(s.freeze == o.freeze);
  CHECK(s.sampling == o.sampling);
  CHECK(s.memo == o.memo);
  CHECK(s.seed == o.seed);
  CHECK(s.work_budget == o.work_budget);
  CHECK(s.time_budget_s == o.time_budget_s);
}

TEST_CASE("apply_settings reads the section flat or under \"hlsched\"", "[settings]") {
  ServerSettings s;
  auto unknown = apply_settings(json{{"hlsched",
                                      {{"gpu_profile", "a100"},
                                       {"beam_size", 8},
                                       {"freeze", false},
                                       {"work_budget", 3},
                                       {"time_budget_s", 2.5},
                                       {"timeout", 30},
                                       {"params", {{"levels", 4}, {"fast", true}, {"mode", "x"}}},
                                       {"compile_flags", {"-DFOO=1"}},
                                       {"debounce_ms", 100},
                                       {"colour", "blue"}}}},
                                s);
  CHECK(s.search.gpu_profile == "a100");
  CHECK(s.search.beam_size == 8);
  CHECK_FALSE(s.search.freeze);
  CHECK(s.search.work_budget == 3);
  CHECK(s.search.time_budget_s == 2.5);
  CHECK(s.timeout_s == 30);
  CHECK(s.params == std::map<std::string, std::string>{{"levels", "4"}, {"fast", "true"}, {"mode", "x"}});
  CHECK(s.compile_flags == std::vector<std::string>{"-DFOO=1"});
  CHECK(s.debounce.delay == std::chrono::milliseconds(100));
  CHECK(unknown == std::vector<std::string>{"colour"});

  ServerSettings flat;
  apply_settings(json{{"strategy", "simple"}}, flat);
  CHECK(flat.search.strategy == "simple");
  CHECK(settings_to_json(flat)["strategy"] == "simple");

  for (const std::string model : {"learned", "both", "hand"}) {
    apply_settings(json{{"model", model}, {"weights", "/w/h200.weights"}}, flat);
    CHECK(flat.search.model == model);
    CHECK(flat.search.weights == "/w/h200.weights");
  }
}

TEST_CASE("apply_settings refuses wrong types and unknown GPUs without changing anything", "[settings]") {
  ServerSettings s;
  const ServerSettings before = s;
  auto refuses = [&](const json &j, const std::string &field) {
    try {
      apply_settings(j, s);
      FAIL("accepted " << j.dump());
    } catch (const hlsched::protocol::InvalidParamsError &e) {
      CHECK(e.field_path() == field);
    }
    CHECK(s == before);
  };
  refuses(json{{"beam_size", 8}, {"gpu_profile", "tpu"}}, "gpu_profile");
  refuses(json{{"beam_size", "8"}}, "beam_size");
  refuses(json{{"beam_size", 0}}, "beam_size");
  refuses(json{{"timeout", -1}}, "timeout");
  refuses(json{{"freeze", 1}}, "freeze");
  refuses(json{{"strategy", "random"}}, "strategy");
  refuses(json{{"model", "oracle"}}, "model");
  refuses(json{{"params", {{"a", json::array()}}}}, "params.a");
  refuses(json{{"compile_flags", {1}}}, "compile_flags[0]");
  refuses(json::array(), "settings");
}

TEST_CASE("file URIs round-trip with percent-encoding", "[uri]") {
  CHECK(path_from_uri("file:///home/a/my%20gen.cpp") == std::filesystem::path("/home/a/my gen.cpp"));
  CHECK(path_from_uri("file://localhost/x/y.cpp") == std::filesystem::path("/x/y.cpp"));
  CHECK_FALSE(path_from_uri("untitled:Untitled-1"));
  CHECK_FALSE(path_from_uri("file://server/share/x.cpp"));
  const std::filesystem::path odd = "/tmp/dir with spaces/ünï#code.cpp";
  CHECK(uri_from_path(odd) == "file:///tmp/dir%20with%20spaces/%C3%BCn%C3%AF%23code.cpp");
  CHECK(path_from_uri(uri_from_path(odd)) == odd);
}

TEST_CASE("\"trusted\": false - analyses build and run nothing, and say why", "[settings]") {
  ServerSettings s;
  CHECK(s.trusted);
  apply_settings(json{{"trusted", false}}, s);
  CHECK_FALSE(s.trusted);
  CHECK(settings_to_json(s)["trusted"] == false);
  CHECK_THROWS_AS(apply_settings(json{{"trusted", "no"}}, s), hlsched::protocol::InvalidParamsError);

  // A file that would not even compile: under "trusted": false nothing reaches the compiler.
  AnalysisJob job;
  job.snapshot.text = "#error this must not be compiled\n";
  job.settings = s;
  job.cache_dir = "/nonexistent/hlsched-cache";
  bool phase_reported = false;
  job.on_phase = [&](AnalysisPhase) { phase_reported = true; };
  const DocumentAnalysis a = run_document_analysis(job);
  CHECK(a.outcome.status == hlsched::server::AnalysisOutcome::Status::UserError);
  CHECK(a.outcome.error_kind == "untrusted");
  CHECK(a.outcome.message.find("not trusted") != std::string::npos);
  CHECK_FALSE(phase_reported);
  CHECK(a.analyzed_file.empty());
}
