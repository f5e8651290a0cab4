// End-to-end tests of the real `hlsched serve`: over stdio and over TCP (loopback), with real
// generator builds in worker processes. The editor's view: open an example, wait for the
// analysis, hover Funcs, apply the code action, and check that the edited file builds with the
// inserted schedule (`hlsched lower`). Plus the error paths through the real binary: broken
// messages, requests before initialize, exit without shutdown, generators that crash or hang.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "hlsched/protocol/framing.h"
#include "lsp_test_client.h"
#include "test_support.h"

using namespace hlsched::server::testing;
using nlohmann::json;

namespace {

std::string cache_arg() { return test_cache_dir().string(); }

std::string file_uri(const std::filesystem::path &path) { return "file://" + path.string(); }

// `hlsched lower FILE`: the generator compiles, with its own schedule, for the GPU target.
int lower(const std::filesystem::path &file, const std::filesystem::path &log) {
  const std::string command = std::string(HLSCHED_BINARY) + " lower '" + file.string() + "' --cache-dir '" +
                              cache_arg() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json code_actions(LspClient &client, const std::string &uri) {
  json reply = client.request("textDocument/codeAction",
                              {{"textDocument", {{"uri", uri}}},
                               {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                               {"context", {{"diagnostics", json::array()}}}});
  REQUIRE(reply.contains("result"));
  return reply["result"];
}

json find_action(const json &actions, const std::string &title) {
  for (const json &a : actions)
    if (a["title"] == title) return a;
  FAIL("no code action '" << title << "' in " << actions.dump().substr(0, 2000));
  return {};
}

std::vector<hlsched::protocol::lsp::TextEdit> edits_of(const json &action, const std::string &uri) {
  std::vector<hlsched::protocol::lsp::TextEdit> edits;
  for (const json &e : action["edit"]["changes"][uri]) edits.push_back(e.get<hlsched::protocol::lsp::TextEdit>());
  return edits;
}

std::string hover_text(LspClient &client, const std::string &uri, int line, int character) {
  json reply = client.request("textDocument/hover",
                              {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", character}}}});
  REQUIRE(reply.contains("result"));
  if (reply["result"].is_null()) return "";
  return reply["result"]["contents"]["value"].get<std::string>();
}

// The editor's side of "apply the code action": edit the buffer, tell the server, save.
std::string apply_action(LspClient &client, const std::string &uri, const std::filesystem::path &file,
                         const std::string &text, const json &action, int new_version) {
  const std::string edited = apply_edits(text, edits_of(action, uri));
  client.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", new_version}}},
                                           {"contentChanges", {{{"text", edited}}}}});
  write_file(file, edited);
  client.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  return edited;
}

}  // namespace

TEST_CASE("stdio: analyze blur, hover its Funcs, apply the suggested schedule, and it builds", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_stdio_blur");
  const auto file = dir / "blur_generator.cpp";
  const std::string text = read_file(source_path("examples/blur/blur_generator.cpp"));
  write_file(file, text);
  const std::string uri = file_uri(file);

  Daemon daemon({"--cache-dir", cache_arg()}, (dir / "daemon.log").string());
  LspClient client(daemon);
  json init = client.initialize();
  CHECK(init["capabilities"]["hoverProvider"] == true);
  open_file(client, uri, text);

  json done = wait_analysis(client, uri, 1);
  INFO(done.dump());
  REQUIRE(done["status"] == "ok");
  CHECK(done["predicted_runtime_ms"].get<double>() > 0);
  CHECK(done["current"] == true);
  json diagnostics = client.wait_notification("textDocument/publishDiagnostics",
                                              [&](const json &p) { return p["uri"] == uri; }, Timeout(60000));
  for (const json &d : diagnostics["diagnostics"]) CHECK(d["severity"] != 1);  // no errors
  wait_index(client, uri);

  // Line 17 (0-based 16): "        blur_x(x, y) = ..."; line 18: "        output(x, y) = ...".
  const std::string on_blur_x = hover_text(client, uri, 16, 10);
  CHECK(on_blur_x.find("**blur_x**") != std::string::npos);
  const std::string on_output = hover_text(client, uri, 17, 10);
  CHECK(on_output.find("**output** — predicted") != std::string::npos);
  CHECK(on_output.find("Suggested schedule:") != std::string::npos);
  CHECK(on_output.find("output.compute_root()") != std::string::npos);
  CHECK(hover_text(client, uri, 7, 7).find("on h200 with the suggested schedule") != std::string::npos);

  json stage_costs = client.request("hlsched/stageCosts", {{"uri", uri}});
  REQUIRE(stage_costs.contains("result"));
  CHECK_FALSE(stage_costs["result"]["stages"].empty());

  // The preferred action replaces the user's (manual) schedule; the result must build.
  const std::string edited = apply_action(client, uri, file, text, find_action(code_actions(client, uri), "Replace schedule"), 2);
  CHECK(edited.find("schedule_kind.value() == \"manual\"") == std::string::npos);
  CHECK(lower(file, dir / "lower.log") == 0);
  INFO(read_file(dir / "lower.log"));

  // The server analyzes the edited text too (a pasted schedule must not break the analysis), and
  // now offers to replace its own block.
  json again = wait_analysis(client, uri, 2);
  INFO(again.dump());
  CHECK(again["status"] == "ok");
  wait_index(client, uri);
  find_action(code_actions(client, uri), "Replace suggested schedule");

  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("tcp: two clients on loopback - insert a schedule into a generator without one", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_tcp");
  const auto file = dir / "stencil_chain_small.cpp";
  const std::string text = read_file(source_path("tests/data/generators/stencil_chain_small.cpp"));
  write_file(file, text);
  const std::string uri = file_uri(file);

  Daemon daemon({"--listen", "127.0.0.1:0", "--cache-dir", cache_arg()}, (dir / "daemon.log").string());
  const int port = daemon.read_listening_port();
  LspClient editor(port);
  LspClient tool(port);
  editor.initialize(json{{"gpu_profile", "a100"}});
  tool.initialize(nullptr, false);
  open_file(editor, uri, text);

  // The tool asks for the same file by path, on its own session, while the editor's analysis runs.
  json by_path = tool.request("hlsched/schedule", {{"path", file.string()}}, kAnalysisTimeout);
  INFO(by_path.dump().substr(0, 2000));
  REQUIRE(by_path.contains("result"));
  CHECK(by_path["result"]["generator"] == "stencil_small");
  CHECK(by_path["result"]["gpu_profile"] == "h200");  // the tool's session has default settings
  CHECK(by_path["result"]["schedule_code"].get<std::string>().find("compute_root") != std::string::npos);

  json done = wait_analysis(editor, uri, 1);
  REQUIRE(done["status"] == "ok");
  json diagnostics = editor.wait_notification("textDocument/publishDiagnostics", [&](const json &p) { return p["uri"] == uri; },
                                              Timeout(60000));
  wait_index(editor, uri);
  // schedule() only sets estimates: the server says so, and offers to insert its schedule.
  bool said_no_schedule = false;
  for (const json &d : diagnostics["diagnostics"]) said_no_schedule |= d["code"] == "no_schedule";
  if (!said_no_schedule) {  // published before the index was there: ask again through a new analysis
    diagnostics = editor.wait_notification("textDocument/publishDiagnostics", [&](const json &p) { return p["uri"] == uri; },
                                           Timeout(60000));
    for (const json &d : diagnostics["diagnostics"]) said_no_schedule |= d["code"] == "no_schedule";
  }
  CHECK(said_no_schedule);
  json schedule = editor.request("hlsched/schedule", {{"uri", uri}});
  CHECK(schedule["result"]["gpu_profile"] == "a100");

  // A local Func of generate() (blur_y, line 21: "        blur_y(x, y) = ...").
  CHECK(hover_text(editor, uri, 21, 10).find("**blur_y**") != std::string::npos);

  apply_action(editor, uri, file, text, find_action(code_actions(editor, uri), "Insert suggested schedule"), 2);
  CHECK(lower(file, dir / "lower.log") == 0);
  INFO(read_file(dir / "lower.log"));

  editor.shutdown_and_exit();
  CHECK(editor.disconnected(Timeout(60000)));
  tool.shutdown_and_exit();
  CHECK(tool.disconnected(Timeout(60000)));
  // The daemon keeps serving other clients until it is told to stop.
  LspClient late(port);
  late.initialize();
  ::kill(daemon.pid(), SIGTERM);
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("tcp: only loopback without --allow-remote - remote needs a token that clients present", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_tcp_security");
  {
    Daemon refused({"--listen", "0.0.0.0:0"}, (dir / "refused.log").string());
    CHECK(refused.wait_exit(Timeout(30000)) == 2);
    CHECK(read_file(dir / "refused.log").find("not a loopback address") != std::string::npos);
  }
  {
    Daemon no_token({"--listen", "0.0.0.0:0", "--allow-remote"}, (dir / "no_token.log").string());
    CHECK(no_token.wait_exit(Timeout(30000)) == 2);
    CHECK(read_file(dir / "no_token.log").find("needs --token") != std::string::npos);
  }
  Daemon daemon({"--listen", "127.0.0.1:0", "--token", "s3cret", "--cache-dir", cache_arg()},
                (dir / "daemon.log").string());
  const int port = daemon.read_listening_port();
  {
    LspClient intruder(port);
    json before = intruder.request("textDocument/hover", {{"textDocument", {{"uri", "file:///x.cpp"}}},
                                                          {"position", {{"line", 0}, {"character", 0}}}});
    CHECK(before["error"]["code"] == -32002);  // nothing before initialize
    json reply = intruder.request("initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()},
                                                 {"initializationOptions", {{"token", "guess"}}}});
    CHECK(reply["error"]["code"] == -32803);
    CHECK(intruder.disconnected(Timeout(60000)));
  }
  LspClient friendly(port);
  friendly.initialize(json{{"token", "s3cret"}});
  friendly.shutdown_and_exit();
  ::kill(daemon.pid(), SIGTERM);
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("stdio: protocol errors through the real binary", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_errors");
  Daemon daemon({"--cache-dir", cache_arg(), "--max-message-bytes", "4096", "--no-index"}, (dir / "daemon.log").string());
  LspClient client(daemon);

  json early = client.request("textDocument/hover", {{"textDocument", {{"uri", "file:///x.cpp"}}},
                                                     {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(early["error"]["code"] == -32002);
  client.initialize();

  client.send_raw("Content-Length: 9\r\n\r\n{\"id\": 1,");
  auto parse_error = client.wait_for([](const json &m) { return m.contains("error") && m["id"].is_null(); }, Timeout(60000));
  REQUIRE(parse_error);
  CHECK((*parse_error)["error"]["code"] == -32700);

  json unknown = client.request("hlsched/doesNotExist", json::object());
  CHECK(unknown["error"]["code"] == -32601);
  json wrong = client.request("textDocument/hover", {{"textDocument", {{"uri", 5}}}, {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(wrong["error"]["code"] == -32602);
  CHECK(wrong["error"]["message"].get<std::string>().find("textDocument.uri") != std::string::npos);

  // Over the limit: refused, skipped unread, and the session goes on.
  client.send_raw("Content-Length: 100000\r\n\r\n" + std::string(100000, 'x'));
  auto too_big = client.wait_for([](const json &m) { return m.contains("error") && m["id"].is_null(); }, Timeout(60000));
  REQUIRE(too_big);
  CHECK((*too_big)["error"]["message"].get<std::string>().find("exceeds the limit of 4096") != std::string::npos);
  json still_there = client.request("hlsched/documentStatus", {{"uri", "file:///not/open.cpp"}});
  CHECK(still_there["error"]["code"] == -32602);

  // exit without shutdown: exit code 1.
  client.notify("exit", nullptr);
  CHECK(daemon.wait_exit(Timeout(30000)) == 1);
  // Nothing but protocol went to stdout (the client would have seen a framing error otherwise);
  // the log went to stderr.
  CHECK(read_file(dir / "daemon.log").find("session on stdio ends (exit code 1)") != std::string::npos);
}

TEST_CASE("stdio: a malformed header, a lost connection or a client that stops reading ends the daemon with code 1", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_broken_stream");
  {
    Daemon daemon({"--no-index"}, (dir / "header.log").string());
    LspClient client(daemon);
    client.initialize();
    client.send_raw("Content-Type: text/plain\r\n\r\n{}");
    auto error = client.wait_for([](const json &m) { return m.contains("error"); }, Timeout(60000));
    REQUIRE(error);
    CHECK((*error)["error"]["code"] == -32700);
    CHECK(daemon.wait_exit(Timeout(30000)) == 1);
  }
  {
    Daemon daemon({"--no-index"}, (dir / "eof.log").string());
    LspClient client(daemon);
    client.initialize();
    client.close_output();
    daemon.close_stdin();
    CHECK(daemon.wait_exit(Timeout(30000)) == 1);
  }
  {
    // A client that stops reading: replies pile up in the pipe; exit still ends the daemon (it
    // gives up on the unread replies after 5 s instead of blocking in write forever).
    Daemon daemon({"--no-index"}, (dir / "unread.log").string());
    bool all_written = true;
    auto send = [&](const json &message) {
      const std::string frame = hlsched::protocol::encode_frame(message.dump());
      all_written &= ::write(daemon.stdin_fd(), frame.data(), frame.size()) == ssize_t(frame.size());
    };
    send({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
          {"params", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}}});
    for (int i = 1; i < 3000; i++)  // ~300 KB of MethodNotFound replies that nobody reads
      send({{"jsonrpc", "2.0"}, {"id", i}, {"method", "x/" + std::string(50, 'y')}});
    send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    CHECK(all_written);
    CHECK(daemon.wait_exit(Timeout(30000)) == 1);
  }
}

TEST_CASE("generators that crash, hang, eat memory or do not compile become diagnostics - the daemon stays up", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_bad_generators");
  Daemon daemon({"--cache-dir", cache_arg(), "--settings", R"({"timeout": 5, "memory_limit_mb": 1024})"},
                (dir / "daemon.log").string());
  LspClient client(daemon);
  client.initialize();

  auto open_source = [&](const std::string &relative) {
    const auto path = source_path(relative);
    const std::string uri = file_uri(path);
    open_file(client, uri, read_file(path));
    return uri;
  };
  auto diagnostics_of = [&](const std::string &uri) {
    return client.wait_notification("textDocument/publishDiagnostics", [&](const json &p) { return p["uri"] == uri; },
                                    kAnalysisTimeout)["diagnostics"];
  };

  const std::string crashes = open_source("tests/data/bad_generators/crashes.cpp");
  const std::string hangs = open_source("tests/data/bad_generators/hangs.cpp");
  const std::string broken = open_source("tests/data/bad_generators/compile_error.cpp");

  json crash = diagnostics_of(crashes);
  REQUIRE(crash.size() == 1);
  CHECK(crash[0]["code"] == "crash");
  CHECK(crash[0]["message"].get<std::string>().find("SIGSEGV") != std::string::npos);

  json compile = diagnostics_of(broken);
  REQUIRE_FALSE(compile.empty());
  CHECK(compile[0]["code"] == "compile_error");
  // Line 12: "    void generate() { output(x, y) = input(x, y) + undefined_name; }"
  CHECK(compile[0]["range"]["start"]["line"] == 11);
  CHECK(compile[0]["range"]["start"]["character"] == 51);
  CHECK(compile[0]["range"]["end"]["character"] == 51 + 14);  // the whole identifier
  CHECK(compile[0]["message"].get<std::string>().find("undefined_name") != std::string::npos);

  json hang = diagnostics_of(hangs);
  REQUIRE(hang.size() == 1);
  CHECK(hang[0]["code"] == "timeout");

  // Still serving.
  json status = client.request("hlsched/documentStatus", {{"uri", crashes}});
  CHECK(status["result"]["analysis"]["status"] == "crashed");

  // One that allocates without end meets the worker's memory limit. Deterministically, whatever
  // the load: the limit is on address space (RLIMIT_AS), so allocating without touching the
  // memory trips it in microseconds, and the time limit is raised first (with the other
  // documents closed: a settings change re-analyzes them) so that a slow start of the worker on
  // a loaded machine cannot turn it into a timeout.
  for (const std::string &uri : {crashes, hangs, broken})
    client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"hlsched", {{"timeout", 600}}}}}});
  const auto hog = dir / "memory_hog.cpp";
  write_file(hog, R"(#include "Halide.h"
#include <vector>
using namespace Halide;
class Hog : public Generator<Hog> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() {
        std::vector<char *> blocks;
        for (;;) {
            blocks.push_back(new char[64 << 20]);
        }
        output(x, y) = input(x, y);
    }
private:
    Var x{"x"}, y{"y"};
};
HALIDE_REGISTER_GENERATOR(Hog, hog)
)");
  open_file(client, file_uri(hog), read_file(hog));
  // The class's range comes from the libclang index. A cached build can finish before the index
  // does; the diagnostics are then published again, placed, when it arrives: wait for those.
  json memory = client.wait_notification("textDocument/publishDiagnostics", [&](const json &p) {
    return p["uri"] == file_uri(hog) && !p["diagnostics"].empty() && p["diagnostics"][0]["range"]["start"]["line"] != 0;
  }, kAnalysisTimeout)["diagnostics"];
  REQUIRE(memory.size() == 1);
  CHECK(memory[0]["severity"] == 1);
  CHECK(memory[0]["message"].get<std::string>().find("out of memory: the generator and the search may use 1024 MB") != std::string::npos);
  CHECK(memory[0]["range"]["start"]["line"] == 3);  // class Hog
  CHECK(memory[0]["code"] == "out_of_memory");
  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}

TEST_CASE("stdio: a newer edit kills the worker of the analysis it makes stale", "[lsp_e2e]") {
  const auto dir = scratch_dir("lsp_e2e_cancel");
  const auto file = dir / "hangs.cpp";
  const std::string text = read_file(source_path("tests/data/bad_generators/hangs.cpp"));
  write_file(file, text);
  const std::string uri = file_uri(file);
  Daemon daemon({"--cache-dir", cache_arg(), "--no-index", "--settings", R"({"timeout": 120, "debounce_ms": 50})"},
                (dir / "daemon.log").string());
  LspClient client(daemon);
  client.initialize();  // with work-done progress: "searching" says the worker runs
  open_file(client, uri, text);
  client.wait_notification("$/progress", [](const json &p) { return p["value"].value("message", "") == "searching for a schedule"; },
                           kAnalysisTimeout);
  const auto edited = std::chrono::steady_clock::now();
  client.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                           {"contentChanges", {{{"text", text + "// edited\n"}}}}});
  json cancelled = client.wait_notification(
      "hlsched/analysisFinished", [&](const json &p) { return p["version"] == 1; }, Timeout(30000));
  CHECK(cancelled["status"] == "cancelled");
  // Killed, not left to the 120 s time limit (a bound far from both: a loaded machine is slow).
  CHECK(std::chrono::steady_clock::now() - edited < std::chrono::seconds(60));
  // shutdown cancels the analysis of version 2 the same way.
  const auto asked = std::chrono::steady_clock::now();
  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
  CHECK(std::chrono::steady_clock::now() - asked < std::chrono::seconds(60));  // not the 120 s limit
}

TEST_CASE("stdio: workers start after the daemon's executable file was replaced (a rebuild)", "[lsp_e2e]") {
  // Cost: a copy of the binary, a small generator (its build is cached by the other tests) and
  // the simple strategy: a few seconds.
  const auto dir = scratch_dir("lsp_e2e_replaced_binary");
  const auto copy = dir / "hlsched";
  std::filesystem::copy_file(HLSCHED_BINARY, copy);
  const auto file = dir / "stencil_chain_small.cpp";
  const std::string text = read_file(source_path("tests/data/generators/stencil_chain_small.cpp"));
  write_file(file, text);
  const std::string uri = file_uri(file);
  Daemon daemon({"--cache-dir", cache_arg(), "--no-index", "--settings", R"({"strategy": "simple"})"},
                (dir / "daemon.log").string(), copy.string());
  LspClient client(daemon);
  client.initialize();

  // Like a rebuild: a new file at the same path (the running image is now "(deleted)"); here one
  // that is not hlsched at all, so a worker started from the path would fail.
  std::filesystem::remove(copy);
  write_file(copy, "#!/bin/sh\necho 'not the hlsched that the daemon runs' >&2\nexit 7\n");
  std::filesystem::permissions(copy, std::filesystem::perms::owner_all);

  open_file(client, uri, text);
  json done = wait_analysis(client, uri, 1);
  INFO(done.dump() << "\n" << read_file(dir / "daemon.log").substr(0, 4000));
  CHECK(done["status"] == "ok");
  CHECK(done["predicted_runtime_ms"].get<double>() > 0);
  client.shutdown_and_exit();
  CHECK(daemon.wait_exit(Timeout(30000)) == 0);
}
