// End-to-end tests of `hlsched rpc` (server/src/rpc_command.cpp) through the real binary: one
// request to a one-shot server, to a running TCP daemon with its token, and the error paths
// (an error reply, bad JSON, an unreachable daemon, a wrong token).
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>

#include "lsp_test_client.h"
#include "test_support.h"

using namespace hlsched::server::testing;
using nlohmann::json;

namespace {

struct RpcRun {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string quoted(const std::string &s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `hlsched rpc ARGS...` with stdout captured and stderr in a file.
RpcRun rpc(const std::vector<std::string> &args, const std::filesystem::path &dir) {
  std::string command = std::string(HLSCHED_BINARY) + " rpc";
  for (const std::string &a : args) command += " " + quoted(a);
  const auto err_path = dir / "rpc.stderr";
  command += " 2>" + quoted(err_path.string());
  RpcRun run;
  FILE *pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = read_file(err_path);
  return run;
}

json parse(const RpcRun &run) {
  INFO("stdout: " << run.out << "\nstderr: " << run.err);
  REQUIRE(json::accept(run.out));
  return json::parse(run.out);
}

const std::string kFastSearch = R"({"time_budget_s": 2})";

}  // namespace

TEST_CASE("rpc: one request to a one-shot server prints its result", "[rpc_e2e]") {
  const auto dir = scratch_dir("rpc_one_shot");
  const auto file = dir / "blur_generator.cpp";
  write_file(file, read_file(source_path("examples/blur/blur_generator.cpp")));

  RpcRun schedule = rpc({"hlsched/schedule", json{{"path", file.string()}}.dump(), "--settings", kFastSearch,
                         "--cache-dir", test_cache_dir().string()},
                        dir);
  INFO(schedule.err);
  REQUIRE(schedule.exit_code == 0);
  const json result = parse(schedule);
  CHECK(result["predicted_runtime_ms"].get<double>() > 0);
  CHECK(result["schedule_code"].get<std::string>().find("output.") != std::string::npos);

  // --settings become initializationOptions (initialize's reply lists the settings in effect).
  RpcRun init = rpc({"initialize", "{}", "--settings", kFastSearch}, dir);
  REQUIRE(init.exit_code == 0);
  CHECK(parse(init)["capabilities"]["experimental"]["hlsched"]["settings"]["time_budget_s"] == 2);

  // --open: document requests see the file as an editor would (analysis and index done).
  const json hover_params{{"textDocument", {{"uri", "file://" + file.string()}}},
                          {"position", {{"line", 16}, {"character", 10}}}};
  RpcRun hover = rpc({"textDocument/hover", hover_params.dump(), "--open", file.string(), "--settings", kFastSearch,
                      "--cache-dir", test_cache_dir().string()},
                     dir);
  INFO(hover.err);
  REQUIRE(hover.exit_code == 0);
  CHECK(parse(hover)["contents"]["value"].get<std::string>().find("**blur_x**") != std::string::npos);
}

TEST_CASE("rpc: error replies, bad arguments and unreachable servers have their own exit codes", "[rpc_e2e]") {
  const auto dir = scratch_dir("rpc_errors");
  RpcRun missing = rpc({"hlsched/schedule", R"({"path": "/nonexistent/gen.cpp"})"}, dir);
  CHECK(missing.exit_code == 1);
  const json error = parse(missing);
  CHECK(error["error"]["message"].get<std::string>().find("no such file") != std::string::npos);

  RpcRun unknown = rpc({"hlsched/noSuchMethod"}, dir);
  CHECK(unknown.exit_code == 1);
  CHECK(parse(unknown)["error"]["code"] == -32601);  // method not found

  CHECK(rpc({"hlsched/schedule", "{not json"}, dir).exit_code == 2);
  CHECK(rpc({}, dir).exit_code == 2);  // no method
  CHECK(rpc({"--relay"}, dir).exit_code == 2);  // --relay needs --connect

  // Port 1 on loopback: nothing listens there for an unprivileged test.
  RpcRun refused = rpc({"hlsched/schedule", "{}", "--connect", "127.0.0.1:1"}, dir);
  CHECK(refused.exit_code == 3);
  CHECK(refused.err.find("cannot connect") != std::string::npos);
}

TEST_CASE("rpc --connect: a request to a running daemon, with its token", "[rpc_e2e]") {
  const auto dir = scratch_dir("rpc_connect");
  const auto file = dir / "blur_generator.cpp";
  write_file(file, read_file(source_path("examples/blur/blur_generator.cpp")));
  Daemon daemon({"--listen", "127.0.0.1:0", "--token", "s3cret", "--cache-dir", test_cache_dir().string()},
                (dir / "daemon.log").string());
  const std::string address = "127.0.0.1:" + std::to_string(daemon.read_listening_port());

  RpcRun wrong = rpc({"hlsched/stageCosts", json{{"path", file.string()}}.dump(), "--connect", address, "--token", "nope"},
                     dir);
  CHECK(wrong.exit_code == 1);
  CHECK(wrong.err.find("authentication failed") != std::string::npos);

  RpcRun costs = rpc({"hlsched/stageCosts", json{{"path", file.string()}}.dump(), "--connect", address, "--token",
                      "s3cret", "--settings", kFastSearch},
                     dir);
  INFO(costs.err);
  REQUIRE(costs.exit_code == 0);
  const json result = parse(costs);
  CHECK(result["generator"] == "blur");
  CHECK_FALSE(result["stages"].empty());

  // The daemon serves the next client as before.
  RpcRun again = rpc({"initialize", "{}", "--connect", address, "--token", "s3cret"}, dir);
  REQUIRE(again.exit_code == 0);
  CHECK(parse(again)["serverInfo"]["name"] == "hlsched");
}
