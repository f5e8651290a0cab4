// `hlsched rpc`: one JSON-RPC request to the language server from a shell, for scripts and tools.
//
//   hlsched rpc hlsched/schedule '{"path": "gen.cpp"}'          # a one-shot `hlsched serve` child
//   hlsched rpc hlsched/stageCosts '{"path": "gen.cpp"}' --connect 127.0.0.1:7777 --token T
//   hlsched rpc textDocument/hover '{"textDocument": {"uri": "file:///abs/gen.cpp"},
//                                     "position": {"line": 16, "character": 10}}' --open /abs/gen.cpp
//   hlsched rpc --connect 127.0.0.1:7777 --relay              # stdio <-> the daemon (editors without TCP)
//
// It speaks the LSP lifecycle around the request (initialize with the token and --settings,
// initialized, [didOpen of each --open file and its first analysis], the request, shutdown, exit)
// and prints the result as JSON on stdout. Exit status: 0 success; 1 the server answered with an
// error (printed as {"error": ...} on stdout, its message on stderr); 2 bad command line;
// 3 the server could not be reached, failed, or did not answer in --timeout seconds.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hlsched::server {

class RpcCommand {
 public:
  CLI::App *add_to(CLI::App &app);
  int run() const;

 private:
  int run_relay() const;

  std::string method_;
  std::string params_json_;
  std::string connect_;  ///< "HOST:PORT" of a running `hlsched serve --listen`; empty: one-shot child
  std::string token_;    ///< initializationOptions.token (default $HLSCHED_TOKEN)
  std::string settings_json_;
  std::string cache_dir_;  ///< one-shot server's --cache-dir
  std::vector<std::string> open_files_;
  double timeout_s_ = 900;
  bool relay_ = false;
};

}  // namespace hlsched::server
