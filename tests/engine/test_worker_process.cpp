// run_worker(): output capture, exit codes, signals, time limit (with grandchildren), memory
// limit, cancellation, start failures, several threads at once.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "hlsched/engine/worker_process.h"

namespace {

using hlsched::run_worker;
using hlsched::WorkerLimits;
using hlsched::WorkerOutcome;
using Kind = WorkerOutcome::Kind;
using namespace std::chrono_literals;

WorkerOutcome shell(const std::string &script, WorkerLimits limits = {}, const std::string &stdin_text = "") {
  return run_worker({"/bin/sh", "-c", script}, limits, stdin_text);
}

WorkerLimits time_limit(std::chrono::milliseconds limit) {
  WorkerLimits limits;
  limits.time_limit = limit;
  return limits;
}

// True when we have no child left, zombie or alive: run_worker must reap everything it starts.
bool no_children_left() {
  int status = 0;
  return ::waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

// True once `pid` is gone or a zombie (killed, waiting for init to reap it).
bool process_is_dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// Polls for up to 30 s: a killed process must still be scheduled to exit, which on a loaded
// machine can take far longer than usual (a bug makes it wait forever, not a second).
bool eventually_dead(pid_t pid) {
  for (int i = 0; i < 3000; ++i) {
    if (process_is_dead(pid)) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("run_worker captures stdout and stderr of a normal exit", "[worker]") {
  const auto outcome = shell("echo out; echo err >&2");
  CHECK(outcome.kind == Kind::Exited);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.succeeded());
  CHECK(outcome.stdout_text == "out\n");
  CHECK(outcome.stderr_text == "err\n");
  CHECK(outcome.describe() == "exited normally");
  CHECK(no_children_left());
}

TEST_CASE("run_worker feeds stdin", "[worker]") {
  const std::string text = "line one\nline two\n";
  const auto outcome = run_worker({"cat"}, {}, text);  // found through PATH
  CHECK(outcome.succeeded());
  CHECK(outcome.stdout_text == text);
}

TEST_CASE("run_worker captures megabytes of output on both streams without deadlocking", "[worker]") {
  const auto outcome = shell("head -c 5000000 /dev/zero | tr '\\0' o; head -c 5000000 /dev/zero | tr '\\0' e >&2",
                             time_limit(20s));
  REQUIRE(outcome.kind == Kind::Exited);
  CHECK(outcome.stdout_text.size() == 5000000);
  CHECK(outcome.stderr_text.size() == 5000000);
  CHECK(outcome.stdout_text.find_first_not_of('o') == std::string::npos);
  CHECK(outcome.stderr_text.find_first_not_of('e') == std::string::npos);
}

TEST_CASE("run_worker reports a non-zero exit code", "[worker]") {
  const auto outcome = shell("echo partial; exit 3");
  CHECK(outcome.kind == Kind::Exited);
  CHECK(outcome.exit_code == 3);
  CHECK_FALSE(outcome.succeeded());
  CHECK(outcome.stdout_text == "partial\n");
  CHECK(outcome.describe() == "exited with code 3");
}

TEST_CASE("run_worker reports crashes by signal name", "[worker]") {
  // ulimit -c 0: no core files from the deliberate crashes.
  auto outcome = shell("ulimit -c 0; echo before; kill -SEGV $$; echo after");
  CHECK(outcome.kind == Kind::Signaled);
  CHECK(outcome.signal == SIGSEGV);
  CHECK(outcome.signal_name == "SIGSEGV");
  CHECK(outcome.stdout_text == "before\n");
  CHECK(outcome.describe() == "crashed with SIGSEGV (segmentation fault)");

  outcome = shell("ulimit -c 0; kill -ABRT $$");
  CHECK(outcome.kind == Kind::Signaled);
  CHECK(outcome.signal_name == "SIGABRT");
  CHECK(outcome.describe() == "crashed with SIGABRT (aborted)");

  outcome = shell("kill -TERM $$");
  CHECK(outcome.signal_name == "SIGTERM");
  CHECK(outcome.describe() == "was killed by SIGTERM (terminated)");
  CHECK(no_children_left());
}

TEST_CASE("run_worker kills a hang at the time limit together with its grandchildren", "[worker]") {
  // The grandchild prints its pid first, so we can check it died with the child. The limit leaves
  // the shell time to print it on a loaded machine; the upper bound only tells "killed at the
  // limit" from "waited for the 30 s sleeps".
  const auto outcome = shell("sleep 30 & echo $!; sleep 30", time_limit(3000ms));
  CHECK(outcome.kind == Kind::TimedOut);
  CHECK(outcome.seconds >= 3.0);
  CHECK(outcome.seconds < 25.0);
  CHECK(outcome.describe() == "timed out after 3 s");
  REQUIRE_FALSE(outcome.stdout_text.empty());
  const pid_t grandchild = std::stoi(outcome.stdout_text);
  CHECK(eventually_dead(grandchild));
  CHECK(no_children_left());

  CHECK(shell("sleep 30", time_limit(1500ms)).describe() == "timed out after 1.5 s");
}

TEST_CASE("run_worker leaves no background processes behind after a normal exit", "[worker]") {
  const auto outcome = shell("sleep 30 & echo $!");
  CHECK(outcome.succeeded());
  CHECK(outcome.seconds < 25.0);  // did not wait for the background sleep (30 s)
  CHECK(eventually_dead(std::stoi(outcome.stdout_text)));
}

TEST_CASE("run_worker can be cancelled while waiting", "[worker]") {
  std::atomic<bool> cancel{false};
  WorkerLimits limits;
  limits.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    cancel = true;
  });
  const auto outcome = shell("sleep 30", limits);
  canceller.join();
  CHECK(outcome.kind == Kind::Cancelled);
  CHECK(outcome.seconds < 25.0);  // did not wait for the sleep (30 s)
  CHECK(outcome.describe() == "was cancelled");
}

TEST_CASE("run_worker applies the memory limit in the child", "[worker]") {
  WorkerLimits limits;
  limits.memory_limit_bytes = std::size_t(2) << 30;  // 2 GiB
  SECTION("the limit is in place") {
    const auto outcome = shell("ulimit -v", limits);  // in KiB
    CHECK(outcome.stdout_text == std::to_string(2 * 1024 * 1024) + "\n");
    CHECK(shell("ulimit -v").stdout_text == "unlimited\n");
  }
  SECTION("allocations past it fail") {
    // This test executable, re-run as the child: see the hidden test case below.
    const auto outcome = run_worker({hlsched::current_executable().string(), "worker child: allocate 4 GiB"}, limits);
    INFO(outcome.stdout_text << outcome.stderr_text);
    CHECK(outcome.stdout_text.find("allocation failed") != std::string::npos);
    CHECK(outcome.stdout_text.find("allocation succeeded") == std::string::npos);
  }
}

// Run only as the child of the test above (hidden: the "[.]" tag).
TEST_CASE("worker child: allocate 4 GiB", "[.]") {
  void *block = std::malloc(std::size_t(4) << 30);
  std::cout << (block ? "allocation succeeded" : "allocation failed") << std::endl;
  std::free(block);
}

TEST_CASE("run_worker reports FailedToStart for missing or unusable binaries", "[worker]") {
  auto outcome = run_worker({"/nonexistent/hlsched-worker"}, {});
  CHECK(outcome.kind == Kind::FailedToStart);
  CHECK_THAT(outcome.describe(), Catch::Contains("failed to start") && Catch::Contains("/nonexistent/hlsched-worker"));

  outcome = run_worker({"hlsched-no-such-command"}, {});
  CHECK(outcome.kind == Kind::FailedToStart);
  CHECK_THAT(outcome.error, Catch::Contains("not found in PATH"));

  outcome = run_worker({}, {});
  CHECK(outcome.kind == Kind::FailedToStart);

  // Executable bit but no valid format: execve() itself fails, in the forked child, which
  // must still be reaped.
  const auto garbage = std::filesystem::temp_directory_path() / ("hlsched-garbage-" + std::to_string(::getpid()));
  std::ofstream(garbage) << "\x7f\x01\x02 not a program";
  std::filesystem::permissions(garbage, std::filesystem::perms::owner_all);
  outcome = run_worker({garbage.string()}, {});
  std::filesystem::remove(garbage);
  CHECK(outcome.kind == Kind::FailedToStart);
  CHECK_FALSE(outcome.error.empty());
  CHECK(no_children_left());
}

TEST_CASE("run_worker can run several workers from several threads at once", "[worker]") {
  constexpr int kThreads = 6;
  std::vector<WorkerOutcome> outcomes(kThreads);
  std::vector<std::chrono::steady_clock::time_point> finished(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([i, &outcomes, &finished] {
      // One of them hangs; the others must not wait for it: they finish before its time limit
      // (compared in order, not against a bound in seconds, which a loaded machine can miss).
      if (i == 0) outcomes[i] = shell("sleep 30", time_limit(10000ms));
      else outcomes[i] = shell("sleep 0.2; echo worker " + std::to_string(i) + "; cat", {}, "input " + std::to_string(i));
      finished[i] = std::chrono::steady_clock::now();
    });
  }
  for (auto &thread : threads) thread.join();
  CHECK(outcomes[0].kind == Kind::TimedOut);
  for (int i = 1; i < kThreads; ++i) {
    CHECK(outcomes[i].stdout_text == "worker " + std::to_string(i) + "\ninput " + std::to_string(i));
    CHECK(finished[i] < finished[0]);
  }
  CHECK(no_children_left());
}

TEST_CASE("signal names and current_executable", "[worker]") {
  CHECK(hlsched::signal_name(SIGSEGV) == "SIGSEGV");
  CHECK(hlsched::signal_name(SIGKILL) == "SIGKILL");
  CHECK(hlsched::signal_name(SIGRTMIN + 1).rfind("SIG", 0) == 0);
  CHECK(hlsched::current_executable().filename() == "engine_tests");
}
