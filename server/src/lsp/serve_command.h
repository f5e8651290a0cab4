// `hlsched serve`: the language server daemon. Speaks LSP over stdio (the default, one client,
// the process exits with the session) or over TCP (--listen HOST:PORT, any number of clients, one
// session each, until SIGINT/SIGTERM).
//
//   hlsched serve                                   # stdio, for editors
//   hlsched serve --listen 127.0.0.1:7777           # TCP, loopback only
//   hlsched serve --listen 0.0.0.0:7777 --allow-remote --token SECRET
//                                                   # other hosts too; clients send
//                                                   # initializationOptions.token = SECRET
//
// In TCP mode the address actually bound is printed on stdout as one line
// "hlsched serve: listening on 127.0.0.1:PORT" (useful with port 0).
//
// Threading: run_serve() runs the Boost.Asio event loop on the calling thread (the I/O thread);
// analyses run on a thread pool, source indexing on another.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace hlsched::server::lsp {

struct ServeOptions {
  std::string listen;          ///< "HOST:PORT"; empty: stdio
  bool allow_remote = false;   ///< allow a non-loopback --listen address (needs a token)
  std::string token;           ///< required in initializationOptions.token when set ($HLSCHED_TOKEN)
  std::string log_file;        ///< log here instead of stderr
  std::string cache_dir;       ///< build cache and per-document files (default: default_cache_dir())
  int jobs = 2;                ///< analyses that may run at once (each runs a compiler or a worker)
  std::size_t max_message_bytes = 64u << 20;  ///< larger messages are refused
  bool index = true;           ///< source understanding with libclang (--no-index: off)
  std::string settings_json;   ///< initial settings as JSON (same shape as initializationOptions)

  void add_to(CLI::App *command);
};

/// Runs the daemon until the stdio session ends (returns its exit code: 0 after shutdown+exit,
/// 1 otherwise) or, for TCP, until SIGINT/SIGTERM (returns 0). Bad options: 2.
int run_serve(const ServeOptions &options);

}  // namespace hlsched::server::lsp
