// Running a child process isolated from us: time limit, memory limit, full output capture.
//
// hlsched runs untrusted-ish work (user generators, the compiler) in child processes so that a
// crash, a hang or a runaway allocation in that work cannot take the CLI or the daemon down. The
// typical child is our own executable in a worker mode (see own_image_path()), but any argv
// works: the generator loader also runs the C++ compiler through here.
//
// What run_worker() guarantees:
//   - The child runs in its own process group. On timeout or cancellation the whole group is
//     SIGKILLed, so grandchildren (e.g. cc1plus under g++, or `sleep` under sh) die too. Leftover
//     members of the group are also killed when the child exits normally: a worker cannot leave
//     background processes behind (unless it escapes its group with setsid()/setpgid()).
//   - stdout and stderr are captured completely, whatever their size, through unlinked temporary
//     files (never pipes: a pipe that fills up, or that a grandchild keeps open, can deadlock).
//   - The child is always reaped: no zombies, also when it fails to start.
//
// Threading: run_worker() may be called from several threads at once; each call waits for its own
// child only. Launches are serialized internally (fork+exec only, a few ms) so that concurrent
// launches cannot inherit each other's descriptors. Caveat: Boost.Process 1.74 creates its
// exec-error pipe without O_CLOEXEC atomically, so code elsewhere in the process that fork()s at
// the same moment can delay our launch until its own child exits or execs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace hlsched {

struct WorkerLimits {
  /// Wall-clock limit; the child's process group is SIGKILLed when it runs past it.
  std::chrono::milliseconds time_limit{60000};
  /// RLIMIT_AS (virtual address space) set in the child before exec, when > 0. Allocations past
  /// it fail (malloc returns null, operator new throws); it does not limit grandchildren more
  /// than it limits the child (they inherit it).
  std::size_t memory_limit_bytes = 0;
  /// When non-null, checked while waiting (every few ms); once it reads true the child's process
  /// group is killed and the outcome is Kind::Cancelled. The daemon uses it to drop stale work.
  const std::atomic<bool> *cancel = nullptr;
};

struct WorkerOutcome {
  enum class Kind {
    Exited,         ///< ran to completion; see exit_code
    Signaled,       ///< killed by a signal it did not expect (crash, OOM killer, ...); see signal
    TimedOut,       ///< ran past WorkerLimits::time_limit and was killed by us
    Cancelled,      ///< WorkerLimits::cancel was set and we killed it
    FailedToStart,  ///< never ran: binary missing or not executable, fork failed, ...; see error
  };
  Kind kind = Kind::FailedToStart;
  int exit_code = 0;        ///< Exited only
  int signal = 0;           ///< Signaled only (also SIGKILL for TimedOut/Cancelled)
  std::string signal_name;  ///< "SIGSEGV"; empty when no signal
  std::string stdout_text, stderr_text;
  std::string error;          ///< FailedToStart only: why
  double seconds = 0;         ///< wall-clock run time
  std::chrono::milliseconds time_limit{0};  ///< the limit it ran under, for describe()

  /// True when the child exited with status 0.
  bool succeeded() const { return kind == Kind::Exited && exit_code == 0; }

  /// One phrase for messages: "exited normally", "exited with code 3",
  /// "crashed with SIGSEGV (segmentation fault)", "was killed by SIGTERM (terminated)",
  /// "timed out after 60 s", "was cancelled", "failed to start: ...".
  std::string describe() const;
};

/// Runs argv (argv[0] is looked up in PATH when it has no '/') with stdin fed from `stdin_text`,
/// waits for it within `limits`, and returns what happened. Never throws for anything the child
/// does or for a failure to start it (only std::bad_alloc and the like escape).
WorkerOutcome run_worker(const std::vector<std::string> &argv, const WorkerLimits &limits,
                         const std::string &stdin_text = "");

/// This process's executable file (where /proc/self/exe points), for messages and for files
/// beside it. To start ourselves in a worker mode use own_image_path().
std::filesystem::path current_executable();

/// A path that execs the very image this process runs: "/proc/self/exe" (a child inherits it
/// across fork). It still works after the file at current_executable() was rebuilt, replaced or
/// deleted under a running daemon, and a worker started from it is always the same version as
/// its parent, so the two always agree on the worker's arguments and result format.
std::filesystem::path own_image_path();

/// Signals that mean the program itself went wrong (SIGSEGV, SIGBUS, SIGABRT, ...), as opposed
/// to being killed from outside (SIGKILL, SIGTERM, ...).
bool is_crash_signal(int signal);

/// "SIGSEGV" for SIGSEGV etc.; "SIG<n>" for signals without a well-known name.
std::string signal_name(int signal);

}  // namespace hlsched
