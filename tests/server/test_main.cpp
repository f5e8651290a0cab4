// Catch2's main, with the server's log quiet unless $HLSCHED_LOG asks for more.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>

#include <cstdlib>

int main(int argc, char **argv) {
  const char *level = std::getenv("HLSCHED_LOG");
  spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
  return Catch::Session().run(argc, argv);
}
