#include "lsp/serve_command.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <set>

#include "hlsched/engine/generator_build.h"
#include "lsp/clang_indexer.h"
#include "lsp/session.h"

namespace hlsched::server::lsp {

namespace asio = boost::asio;
using asio::ip::tcp;

void ServeOptions::add_to(CLI::App *command) {
  command->add_option("--listen", listen, "Serve over TCP at HOST:PORT (default: stdio); port 0 picks one");
  command->add_flag("--allow-remote", allow_remote, "Allow a --listen address that is not loopback (needs --token)");
  command->add_option("--token", token, "Clients must send it as initializationOptions.token (or $HLSCHED_TOKEN)");
  command->add_option("--log-file", log_file, "Write the log to this file instead of stderr");
  command->add_option("--cache-dir", cache_dir, "Build cache folder (default $HLSCHED_CACHE_DIR or ~/.cache/hlsched)");
  command->add_option("--jobs", jobs, "Analyses that may run at once")->check(CLI::Range(1, 64));
  command->add_option("--max-message-bytes", max_message_bytes, "Refuse messages larger than this")
      ->check(CLI::Range(std::size_t(1024), std::size_t(1) << 32));
  command->add_flag("--index,!--no-index", index, "Understand the source with libclang (default on)");
  command->add_option("--settings", settings_json, "Initial settings as JSON (same keys as initializationOptions)");
}

namespace {

// main() has set up logging to stderr (--log-level / $HLSCHED_LOG); --log-file moves it.
void setup_serve_logging(const ServeOptions &options) {
  if (options.log_file.empty()) return;
  auto file_logger = std::make_shared<spdlog::logger>(
      "hlsched-serve", std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.log_file));
  file_logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%t] [%l] %v");
  file_logger->set_level(spdlog::default_logger()->level());
  file_logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(file_logger);
}

// Splits "HOST:PORT" ("[::1]:PORT" for IPv6). Throws std::invalid_argument.
tcp::endpoint parse_listen_address(const std::string &text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--listen expects HOST:PORT, got '" + text + "'");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) throw std::invalid_argument("--listen: '" + host + "' is not an IP address");
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1) port = -1;
  } catch (const std::exception &) {
  }
  if (port < 0 || port > 65535) throw std::invalid_argument("--listen: bad port in '" + text + "'");
  return tcp::endpoint(address, static_cast<unsigned short>(port));
}

ServerEnvironment make_environment(const ServeOptions &options, asio::thread_pool &analysis_pool,
                                   asio::thread_pool &index_pool) {
  ServerEnvironment env;
  env.analysis_executor = analysis_pool.get_executor();
  env.index_executor = index_pool.get_executor();
  env.cache_dir = options.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(options.cache_dir);
  env.analyzer = run_document_analysis;
  if (options.index) {
    auto indexer = std::make_shared<ClangIndexer>(ClangIndexerOptions{env.cache_dir, {}, true});
    env.indexer = [indexer](const IndexJob &job) {
      return indexer->index(job.snapshot.path.empty() ? "/tmp/untitled.cpp" : job.snapshot.path.string(),
                            job.snapshot.text, job.snapshot.version, job.snapshot.edit_serial, job.include_dirs);
    };
  }
  if (!options.settings_json.empty()) {
    try {
      apply_settings(nlohmann::json::parse(options.settings_json), env.settings);
    } catch (const nlohmann::json::exception &e) {
      throw std::invalid_argument(std::string("--settings: not JSON: ") + e.what());
    } catch (const protocol::RpcError &e) {
      throw std::invalid_argument("--settings: " + e.message());
    }
  }
  return env;
}

// Accepts TCP clients; one Session each.
class TcpListener {
 public:
  TcpListener(asio::io_context &io, const tcp::endpoint &endpoint, ServerEnvironment environment,
              protocol::FrameLimits limits, bool allow_remote)
      : io_(io), acceptor_(io, endpoint), environment_(std::move(environment)), limits_(limits),
        allow_remote_(allow_remote) {}

  tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }

  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code &ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) admit(std::move(socket));
      accept();
    });
  }

  void stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    auto sessions = sessions_;
    for (const auto &s : sessions) s->stop();
  }

 private:
  void admit(tcp::socket socket) {
    boost::system::error_code ec;
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    if (ec) return;
    if (!allow_remote_ && !peer.address().is_loopback()) {
      spdlog::warn("refused a connection from {} (not loopback; see --allow-remote)", peer.address().to_string());
      return;  // the socket closes as it goes out of scope
    }
    auto transport = std::make_shared<TcpTransport>(std::move(socket));
    ServerEnvironment environment = environment_;
    environment.client_is_local = peer.address().is_loopback();
    // The session removes itself from the set when it ends (later, not inside its own end()).
    auto self_reference = std::make_shared<std::weak_ptr<Session>>();
    auto session = std::make_shared<Session>(io_.get_executor(), transport, environment, limits_,
                                             [this, self_reference](int) {
                                               if (auto s = self_reference->lock())
                                                 asio::post(io_, [this, s] { sessions_.erase(s); });
                                             });
    *self_reference = session;
    sessions_.insert(session);
    spdlog::info("accepted a client from {}", transport->describe());
    session->start();
  }

  asio::io_context &io_;
  tcp::acceptor acceptor_;
  ServerEnvironment environment_;
  protocol::FrameLimits limits_;
  bool allow_remote_;
  std::set<std::shared_ptr<Session>> sessions_;
};

}  // namespace

int run_serve(const ServeOptions &options) {
  setup_serve_logging(options);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the daemon on write

  std::string token = options.token;
  if (token.empty()) {
    if (const char *env = std::getenv("HLSCHED_TOKEN")) token = env;
  }
  protocol::FrameLimits limits;
  limits.max_body_bytes = options.max_message_bytes;

  asio::io_context io;
  auto keep_running = asio::make_work_guard(io);  // stdin's reader thread posts from outside
  asio::thread_pool analysis_pool(static_cast<std::size_t>(options.jobs));
  asio::thread_pool index_pool(1);
  ServerEnvironment environment;
  try {
    environment = make_environment(options, analysis_pool, index_pool);
  } catch (const std::invalid_argument &e) {
    std::cerr << "hlsched serve: " << e.what() << "\n";
    return 2;
  }
  if (!token.empty()) environment.required_token = token;
  int exit_code = 0;

  std::shared_ptr<Session> stdio_session;
  std::unique_ptr<TcpListener> listener;
  if (options.listen.empty()) {
    stdio_session = std::make_shared<Session>(io.get_executor(), make_stdio_transport(io.get_executor()), environment,
                                              limits, [&](int code) {
                                                exit_code = code;
                                                io.stop();
                                              });
    stdio_session->start();
    spdlog::info("hlsched serve: speaking LSP on stdio");
  } else {
    tcp::endpoint endpoint;
    try {
      endpoint = parse_listen_address(options.listen);
    } catch (const std::invalid_argument &e) {
      std::cerr << "hlsched serve: " << e.what() << "\n";
      return 2;
    }
    if (!endpoint.address().is_loopback()) {
      if (!options.allow_remote) {
        std::cerr << "hlsched serve: refusing to listen on " << endpoint.address().to_string()
                  << ": not a loopback address (pass --allow-remote together with --token)\n";
        return 2;
      }
      if (token.empty()) {
        std::cerr << "hlsched serve: --allow-remote needs --token (or $HLSCHED_TOKEN): remote clients must "
                     "authenticate\n";
        return 2;
      }
    }
    try {
      listener = std::make_unique<TcpListener>(io, endpoint, environment, limits, options.allow_remote);
    } catch (const boost::system::system_error &e) {
      std::cerr << "hlsched serve: cannot listen on " << options.listen << ": " << e.what() << "\n";
      return 2;
    }
    listener->accept();
    const tcp::endpoint bound = listener->local_endpoint();
    std::cout << "hlsched serve: listening on " << bound.address().to_string() << ":" << bound.port() << std::endl;
    spdlog::info("hlsched serve: listening on {}:{}", bound.address().to_string(), bound.port());
  }

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code &ec, int signal) {
    if (ec) return;
    spdlog::info("hlsched serve: signal {}, stopping", signal);
    if (listener) listener->stop();
    if (stdio_session) stdio_session->stop();
    io.stop();
  });

  io.run();
  // Cancel what still runs, then wait for the pool threads (killed workers return at once).
  if (listener) listener->stop();
  if (stdio_session) stdio_session->stop();
  listener.reset();
  stdio_session.reset();
  analysis_pool.join();
  index_pool.join();
  spdlog::info("hlsched serve: exit code {}", exit_code);
  spdlog::default_logger()->flush();
  return exit_code;
}

}  // namespace hlsched::server::lsp
