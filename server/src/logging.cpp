#include "logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <stdexcept>

namespace hlsched::server {

void setup_logging(const std::string &flag_level) {
  std::string level = flag_level;
  if (level.empty()) {
    const char *env = std::getenv("HLSCHED_LOG");
    level = env && *env ? env : "warn";
  }
  auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off")
    throw std::invalid_argument("unknown log level '" + level + "' (trace, debug, info, warn, error, critical, off)");
  auto logger = spdlog::stderr_color_mt("hlsched");
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(parsed);
}

}  // namespace hlsched::server
