// Logging setup: spdlog to stderr (stdout carries results and, in `serve`, the protocol).
#pragma once

#include <string>

namespace hlsched::server {

/// Level from `flag_level` if non-empty, else $HLSCHED_LOG, else "warn". Valid levels: trace,
/// debug, info, warn, error, critical, off. Throws std::invalid_argument for others.
void setup_logging(const std::string &flag_level);

}  // namespace hlsched::server
