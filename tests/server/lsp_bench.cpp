// Benchmarks of `hlsched serve` for docs/PERFORMANCE.md (run: scripts/bench/lsp_bench.sh). Not
// part of ctest: they take minutes and their numbers depend on the machine. Each prints a
// result line and, when $HLSCHED_LSP_BENCH_OUT names a folder, writes <name>.json there.
//
//   hover_under_edits   p50/p99 hover latency while 1,000 didChange events arrive (with pauses
//                       that let analyses start and get cancelled)
//   edit_to_costs       stencil_chain (33 stages): cold open, then an edit of one stage, then its
//                       undo; each split into debounce, build, worker and search
//   memory_soak         daemon RSS over rounds of edits + analyses + index parses
//   index_parse         libclang index of each example: with the precompiled Halide.h, and without
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <unistd.h>

#include "lsp/clang_indexer.h"
#include "lsp_test_client.h"
#include "test_support.h"

using namespace hlsched::server::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const std::size_t i = std::min(values.size() - 1, std::size_t(std::ceil(p / 100.0 * values.size())) - 1);
  return values[i];
}

void report(const std::string &name, const json &result) {
  std::cout << "lsp_bench " << name << ": " << result.dump() << std::endl;
  if (const char *dir = std::getenv("HLSCHED_LSP_BENCH_OUT")) {
    std::filesystem::create_directories(dir);
    std::ofstream(std::filesystem::path(dir) / (name + ".json")) << result.dump(2) << "\n";
  }
}

std::string cache_arg() { return test_cache_dir().string(); }

json change_at(const std::string &uri, int version, int line, int start, int end, const std::string &text) {
  return {{"textDocument", {{"uri", uri}, {"version", version}}},
          {"contentChanges",
           {{{"range", {{"start", {{"line", line}, {"character", start}}}, {"end", {{"line", line}, {"character", end}}}}},
             {"text", text}}}}};
}

json hover_at(const std::string &uri, int line, int character) {
  return {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", character}}}};
}

}  // namespace

TEST_CASE("hover_under_edits", "[.bench]") {
  const auto dir = scratch_dir("lsp_bench_hover");
  const auto file = dir / "blur_generator.cpp";
  const std::string text = read_file(source_path("examples/blur/blur_generator.cpp"));
  write_file(file, text);
  const std::string uri = "file://" + file.string();
  Daemon daemon({"--cache-dir", cache_arg(), "--settings", R"({"debounce_ms": 100})"}, (dir / "daemon.log").string());
  LspClient client(daemon);
  client.initialize();
  open_file(client, uri, text);
  REQUIRE(wait_analysis(client, uri, 1)["status"] == "ok");
  wait_index(client, uri);

  // Line 0 is a comment: typing there keeps the file valid. Each edit is followed by a hover on
  // blur_x (line 16); every 50 edits the typist pauses for 150 ms, long enough for the debounce
  // to start an index and an analysis that the next edits cancel.
  const std::string line0 = text.substr(0, text.find('\n'));
  std::vector<double> latencies;
  int version = 1, analyses_started = 0;
  const auto start = Clock::now();
  for (int i = 0; i < 1000; i++) {
    const bool insert = i % 2 == 0;
    const int end_col = int(line0.size());
    client.notify("textDocument/didChange",
                  insert ? change_at(uri, ++version, 0, end_col, end_col, "x") : change_at(uri, ++version, 0, end_col, end_col + 1, ""));
    const auto sent = Clock::now();
    json reply = client.request("textDocument/hover", hover_at(uri, 16, 10));
    latencies.push_back(ms_since(sent));
    REQUIRE(reply.contains("result"));
    REQUIRE(reply["result"]["contents"]["value"].get<std::string>().find("blur_x") != std::string::npos);
    if (i % 50 == 49) {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      analyses_started++;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  const double storm_s = ms_since(start) / 1000;
  json done = wait_analysis(client, uri, version);
  const json result{{"edits", 1000},
                    {"hovers", latencies.size()},
                    {"storm_seconds", storm_s},
                    {"pauses_with_analysis", analyses_started},
                    {"hover_ms_p50", percentile(latencies, 50)},
                    {"hover_ms_p90", percentile(latencies, 90)},
                    {"hover_ms_p99", percentile(latencies, 99)},
                    {"hover_ms_max", percentile(latencies, 100)},
                    {"final_analysis", done["status"]}};
  report("hover_under_edits", result);
  CHECK(percentile(latencies, 99) <= 50.0);
  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("edit_to_costs", "[.bench]") {
  const auto dir = scratch_dir("lsp_bench_edit");
  // A fresh path per run: no build cache entry and no search memo yet (both are keyed by it).
  const auto file = dir / ("stencil_chain_" + std::to_string(::getpid()) + ".cpp");
  const std::string text = read_file(source_path("examples/stencil_chain/stencil_chain_generator.cpp"));
  write_file(file, text);
  const std::string uri = "file://" + file.string();
  const int debounce_ms = 100;
  Daemon daemon({"--cache-dir", cache_arg(), "--settings", json{{"debounce_ms", debounce_ms}}.dump()},
                (dir / "daemon.log").string());
  LspClient client(daemon);
  client.initialize();

  auto measure = [&](const std::string &label, int version, const std::function<void()> &send) {
    const auto sent = Clock::now();
    send();
    json done = wait_analysis(client, uri, version);
    const double total_ms = ms_since(sent);
    REQUIRE(done["status"] == "ok");
    return json{{"step", label},
                {"edit_to_costs_ms", total_ms},
                {"debounce_ms", version == 1 ? 0 : debounce_ms},
                {"build_ms", done["build_seconds"].get<double>() * 1000},
                {"build_cache_hit", done["build_cache_hit"]},
                {"worker_ms", done["worker_seconds"].get<double>() * 1000},
                {"search_ms", done["search_ms"]},
                {"predicted_runtime_ms", done["predicted_runtime_ms"]},
                {"search", done["search"]}};
  };

  json steps = json::array();
  steps.push_back(measure("open (cold build, cold search)", 1, [&] { open_file(client, uri, text); }));
  // Edit one stage: the output's definition (the other 32 stages are unchanged).
  const std::string before = "output(x, y) = stencil(stages.back(), x, y);";
  const std::string after = "output(x, y) = stencil(stages.back(), x, y) + cast<uint16_t>(1);";
  const std::size_t at = text.find(before);
  REQUIRE(at != std::string::npos);
  const int line = int(std::count(text.begin(), text.begin() + long(at), '\n'));
  const int column = int(at - text.rfind('\n', at) - 1);
  steps.push_back(measure("edit the output stage", 2, [&] {
    client.notify("textDocument/didChange", change_at(uri, 2, line, column, column + int(before.size()), after));
  }));
  steps.push_back(measure("undo the edit", 3, [&] {
    client.notify("textDocument/didChange", change_at(uri, 3, line, column, column + int(after.size()), before));
  }));
  const double cold_search = steps[0]["search_ms"], warm_search = steps[1]["search_ms"];
  const double cold_runtime = steps[0]["predicted_runtime_ms"], warm_runtime = steps[1]["predicted_runtime_ms"];
  report("edit_to_costs", {{"example", "stencil_chain"},
                           {"steps", steps},
                           {"edit_search_over_cold_search", warm_search / cold_search},
                           {"edit_runtime_over_cold_runtime", warm_runtime / cold_runtime}});
  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("memory_soak", "[.bench]") {
  const int rounds = std::getenv("HLSCHED_LSP_SOAK_ROUNDS") ? std::atoi(std::getenv("HLSCHED_LSP_SOAK_ROUNDS")) : 40;
  const auto dir = scratch_dir("lsp_bench_soak");
  const auto file = dir / "blur_generator.cpp";
  const std::string text = read_file(source_path("examples/blur/blur_generator.cpp"));
  write_file(file, text);
  const std::string uri = "file://" + file.string();
  Daemon daemon({"--cache-dir", cache_arg(), "--settings", R"({"debounce_ms": 50})"}, (dir / "daemon.log").string());
  LspClient client(daemon);
  client.initialize();
  open_file(client, uri, text);
  REQUIRE(wait_analysis(client, uri, 1)["status"] == "ok");

  // Each round: 50 keystrokes at the end of line 0 (a comment), hovers and lenses in between,
  // then a pause until the analysis of the round's text is done. Rounds alternate between two
  // texts, so builds hit the cache and the round is mostly the daemon's own work: edits, index
  // parses (libclang runs in the daemon), analyses' bookkeeping, replies.
  const std::string line0 = text.substr(0, text.find('\n'));
  int version = 1;
  std::vector<double> rss_mb;
  const auto start = Clock::now();
  const int end_col = int(line0.size());
  for (int round = 0; round < rounds; round++) {
    // Reset line 0, type and erase 24 characters, then append the round's suffix: the round ends
    // on one of two texts.
    const std::string suffix = round % 2 ? " abcdefghij" : " 0123456789";
    const int line0_length_now = round == 0 ? end_col : end_col + int(suffix.size());
    for (int k = 0; k < 50; k++) {
      json change;
      if (k == 0) change = change_at(uri, ++version, 0, 0, line0_length_now, line0);
      else if (k == 49) change = change_at(uri, ++version, 0, end_col, end_col, suffix);
      else if (k % 2 == 1) change = change_at(uri, ++version, 0, end_col, end_col, "x");
      else change = change_at(uri, ++version, 0, end_col, end_col + 1, "");
      client.notify("textDocument/didChange", change);
      if (k % 5 == 0) client.request("textDocument/hover", hover_at(uri, 16, 10));
      if (k % 25 == 0) client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
    }
    REQUIRE(wait_analysis(client, uri, version)["status"] == "ok");
    rss_mb.push_back(double(daemon.rss_bytes()) / (1 << 20));
  }
  // Growth: least-squares slope over the second half of the rounds (the first rounds warm up
  // allocator pools and the PCH mapping).
  const std::size_t half = rss_mb.size() / 2;
  double n = double(rss_mb.size() - half), sx = 0, sy = 0, sxy = 0, sxx = 0;
  for (std::size_t i = half; i < rss_mb.size(); i++) {
    sx += double(i), sy += rss_mb[i], sxy += double(i) * rss_mb[i], sxx += double(i) * double(i);
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  report("memory_soak", {{"rounds", rounds},
                         {"edits", rounds * 50},
                         {"seconds", ms_since(start) / 1000},
                         {"rss_mb_first", rss_mb.front()},
                         {"rss_mb_max", *std::max_element(rss_mb.begin(), rss_mb.end())},
                         {"rss_mb_last", rss_mb.back()},
                         {"rss_mb_per_round_second_half", slope},
                         {"rss_mb_by_round", rss_mb}});
  CHECK(*std::max_element(rss_mb.begin(), rss_mb.end()) < 1024);
  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("index_parse", "[.bench]") {
  using hlsched::server::lsp::ClangIndexer;
  using hlsched::server::lsp::ClangIndexerOptions;
  const auto pch_cache = scratch_dir("lsp_bench_index");  // a cold PCH, to time its build
  const ClangIndexer with_pch(ClangIndexerOptions{pch_cache, {}, true});
  const ClangIndexer without_pch(ClangIndexerOptions{pch_cache, {}, false});
  auto start = Clock::now();
  REQUIRE_FALSE(with_pch.prepare().empty());
  const double pch_build_ms = ms_since(start);

  json examples = json::array();
  std::vector<double> with_ms, without_ms;
  for (const auto &entry : std::filesystem::directory_iterator(source_path("examples"))) {
    if (!entry.is_directory()) continue;
    const auto file = entry.path() / (entry.path().filename().string() + "_generator.cpp");
    if (!std::filesystem::exists(file)) continue;
    const std::string text = read_file(file);
    double best_with = 1e9;
    std::size_t objects = 0;
    for (int i = 0; i < 3; i++) {  // best of 3: the machine is shared
      auto index = with_pch.index(file.string(), text, 1, 0, {});
      REQUIRE(index.generators.size() >= 1);
      best_with = std::min(best_with, index.parse_ms);
      objects = index.generators[0].objects.size();
    }
    const double without = without_pch.index(file.string(), text, 1, 0, {}).parse_ms;
    with_ms.push_back(best_with);
    without_ms.push_back(without);
    examples.push_back({{"example", entry.path().filename().string()}, {"objects", objects},
                        {"parse_ms_with_pch", best_with}, {"parse_ms_without_pch", without}});
  }
  report("index_parse", {{"pch_build_ms", pch_build_ms},
                         {"pch_bytes", std::filesystem::file_size(with_pch.prepare())},
                         {"median_parse_ms_with_pch", percentile(with_ms, 50)},
                         {"max_parse_ms_with_pch", percentile(with_ms, 100)},
                         {"median_parse_ms_without_pch", percentile(without_ms, 50)},
                         {"examples", examples}});
}
