#include "hlsched/engine/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

namespace hlsched {
namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Capture files

// An anonymous temporary file (unlinked, close-on-exec) that a child uses as stdin, stdout or
// stderr. Files instead of pipes: the child can write any amount without us reading concurrently,
// and a grandchild that keeps the descriptor open cannot make us wait for an EOF.
class CaptureFile {
public:
  CaptureFile() {
    const char *tmpdir = std::getenv("TMPDIR");
    const std::string dir = (tmpdir && *tmpdir) ? tmpdir : "/tmp";
    // O_CLOEXEC: a child launched by another thread must not inherit our capture files. The
    // dup2() onto 0/1/2 in our own child clears the flag on the copies it needs.
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {  // O_TMPFILE unsupported by this file system: create and unlink at once
      std::string name = dir + "/hlsched-worker-XXXXXX";
      fd = ::mkostemp(name.data(), O_CLOEXEC);
      if (fd >= 0) ::unlink(name.c_str());
    }
    if (fd < 0) throw std::system_error(errno, std::system_category(), "creating a temporary file in " + dir);
    file_ = ::fdopen(fd, "w+");
    if (!file_) {
      const int err = errno;
      ::close(fd);
      throw std::system_error(err, std::system_category(), "fdopen");
    }
  }
  ~CaptureFile() { std::fclose(file_); }
  CaptureFile(const CaptureFile &) = delete;
  CaptureFile &operator=(const CaptureFile &) = delete;

  FILE *file() const { return file_; }

  // For stdin: writes `text` and rewinds, so the child reads it from the start. The child shares
  // the file offset with us (same open file description).
  void fill(const std::string &text) {
    write_all(text);
    ::lseek(fileno(file_), 0, SEEK_SET);
  }

  // Everything written to the file, whatever the current offset.
  std::string read_all() const {
    const int fd = fileno(file_);
    struct stat st {};
    if (::fstat(fd, &st) != 0) return {};
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    text.resize(done);
    return text;
  }

private:
  void write_all(const std::string &text) {
    const int fd = fileno(file_);
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::system_error(errno, std::system_category(), "writing the worker's stdin");
      done += static_cast<std::size_t>(n);
    }
  }

  FILE *file_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Launching

// Serializes our launches. Boost.Process creates the pipe that reports exec() failures and only
// then marks it close-on-exec; a fork() from another of our threads in between would hand the
// pipe to that child, and our launch would block until that child exits.
std::mutex &launch_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Resolves argv[0] the way execvp would, so that "not found" is reported without forking.
std::filesystem::path resolve_executable(const std::string &name, std::string &error) {
  if (name.empty()) {
    error = "empty command line";
    return {};
  }
  if (name.find('/') == std::string::npos) {
    // Our own PATH walk: bp::search_path() would pull in the compiled Boost.Filesystem library.
    const char *path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    error = "'" + name + "' not found in PATH";
    return {};
  }
  if (::access(name.c_str(), X_OK) != 0) {
    error = "'" + name + "': " + std::strerror(errno);
    return {};
  }
  return name;
}

// Runs in the forked child before exec, so only async-signal-safe calls (plain syscalls) here.
void limit_address_space(std::size_t bytes) {
  struct rlimit current {};
  ::getrlimit(RLIMIT_AS, &current);
  rlim_t value = static_cast<rlim_t>(bytes);
  if (current.rlim_max != RLIM_INFINITY && value > current.rlim_max) value = current.rlim_max;
  struct rlimit limit {};
  limit.rlim_cur = value;
  limit.rlim_max = value;  // hard too: a worker must not lift its own limit
  ::setrlimit(RLIMIT_AS, &limit);
}

struct Launched {
  pid_t pid = -1;  // also the child's process group id
  std::string error;
};

Launched launch(const std::filesystem::path &exe, const std::vector<std::string> &args,
                const CaptureFile &in, const CaptureFile &out, const CaptureFile &err,
                std::size_t memory_limit_bytes) {
  Launched result;
  pid_t forked_but_failed = -1;
  std::error_code ec;
  {
    std::lock_guard<std::mutex> lock(launch_mutex());
    bp::child child(
        bp::exe = exe.string(), bp::args = args,  //
        bp::std_in < in.file(), bp::std_out > out.file(), bp::std_err > err.file(),
        // In the child, before exec: its own process group (so that we can kill it together
        // with its descendants), then the memory limit.
        bp::extend::on_exec_setup =
            [memory_limit_bytes](auto &) {
              ::setpgid(0, 0);
              if (memory_limit_bytes > 0) limit_address_space(memory_limit_bytes);
            },
        // Boost.Process 1.74 does not reap a child whose exec() failed; remember it to reap it.
        bp::extend::on_error = [&forked_but_failed](auto &executor, const std::error_code &) {
          if (executor.pid > 0) forked_but_failed = executor.pid;
        },
        ec);
    if (!ec) {
      result.pid = child.id();
      // We wait for and reap the child ourselves (see wait_for_exit()); without detach() the
      // bp::child destructor would try to terminate it.
      child.detach();
    }
  }
  if (ec) {
    result.error = ec.message();
    if (forked_but_failed > 0) ::waitpid(forked_but_failed, nullptr, 0);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Waiting

enum class WaitEnd { Exited, TimedOut, Cancelled };

// True once `pid` has terminated. WNOWAIT leaves it a zombie: while the zombie exists its pid
// (= its process group id) cannot be reused, so killing the group afterwards is safe.
bool has_terminated(pid_t pid) {
  siginfo_t info{};
  while (true) {
    const int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0) return info.si_pid == pid;
    if (errno != EINTR) return true;  // ECHILD: nothing left to wait for
  }
}

// Polls until the child terminates, the deadline passes or the cancel flag is set. Polling
// (1 ms growing to 20 ms) keeps this simple and thread-safe: no SIGCHLD handler, no shared
// event loop.
WaitEnd wait_for_exit(pid_t pid, const WorkerLimits &limits, Clock::time_point start) {
  const auto deadline = start + limits.time_limit;
  auto pause = std::chrono::microseconds(1000);
  while (!has_terminated(pid)) {
    if (limits.cancel && limits.cancel->load()) return WaitEnd::Cancelled;
    const auto now = Clock::now();
    if (now >= deadline) return WaitEnd::TimedOut;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  return WaitEnd::Exited;
}

// Kills what is left of the child's process group, then collects the child's exit status.
int kill_group_and_reap(pid_t pid) {
  ::kill(-pid, SIGKILL);  // ESRCH when the group is already empty: fine
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string lowercase_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// "segmentation fault" for SIGSEGV. strsignal() may use a static buffer, hence the lock.
std::string signal_description(int signal) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const char *text = ::strsignal(signal);
  return lowercase_first(text ? text : "unknown signal");
}

std::string format_seconds(std::chrono::milliseconds duration) {
  std::ostringstream out;
  if (duration.count() % 1000 == 0) out << duration.count() / 1000 << " s";
  else out << static_cast<double>(duration.count()) / 1000.0 << " s";
  return out.str();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string signal_name(int signal) {
  switch (signal) {
#define HLSCHED_SIGNAL(name) \
  case name:                 \
    return #name;
    HLSCHED_SIGNAL(SIGHUP) HLSCHED_SIGNAL(SIGINT) HLSCHED_SIGNAL(SIGQUIT) HLSCHED_SIGNAL(SIGILL)
    HLSCHED_SIGNAL(SIGTRAP) HLSCHED_SIGNAL(SIGABRT) HLSCHED_SIGNAL(SIGBUS) HLSCHED_SIGNAL(SIGFPE)
    HLSCHED_SIGNAL(SIGKILL) HLSCHED_SIGNAL(SIGUSR1) HLSCHED_SIGNAL(SIGSEGV) HLSCHED_SIGNAL(SIGUSR2)
    HLSCHED_SIGNAL(SIGPIPE) HLSCHED_SIGNAL(SIGALRM) HLSCHED_SIGNAL(SIGTERM) HLSCHED_SIGNAL(SIGCHLD)
    HLSCHED_SIGNAL(SIGCONT) HLSCHED_SIGNAL(SIGSTOP) HLSCHED_SIGNAL(SIGTSTP) HLSCHED_SIGNAL(SIGTTIN)
    HLSCHED_SIGNAL(SIGTTOU) HLSCHED_SIGNAL(SIGURG) HLSCHED_SIGNAL(SIGXCPU) HLSCHED_SIGNAL(SIGXFSZ)
    HLSCHED_SIGNAL(SIGVTALRM) HLSCHED_SIGNAL(SIGPROF) HLSCHED_SIGNAL(SIGWINCH) HLSCHED_SIGNAL(SIGIO)
    HLSCHED_SIGNAL(SIGSYS)
#undef HLSCHED_SIGNAL
    default:
      return "SIG" + std::to_string(signal);
  }
}

bool is_crash_signal(int signal) {
  switch (signal) {
    case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGABRT: case SIGTRAP: case SIGSYS:
      return true;
    default:
      return false;
  }
}

std::string WorkerOutcome::describe() const {
  switch (kind) {
    case Kind::Exited:
      return exit_code == 0 ? "exited normally" : "exited with code " + std::to_string(exit_code);
    case Kind::Signaled:
      return std::string(is_crash_signal(signal) ? "crashed with " : "was killed by ") + signal_name +
             " (" + signal_description(signal) + ")";
    case Kind::TimedOut:
      return "timed out after " + format_seconds(time_limit);
    case Kind::Cancelled:
      return "was cancelled";
    case Kind::FailedToStart:
      return "failed to start: " + error;
  }
  return "unknown outcome";
}

WorkerOutcome run_worker(const std::vector<std::string> &argv, const WorkerLimits &limits,
                         const std::string &stdin_text) {
  WorkerOutcome outcome;
  outcome.time_limit = limits.time_limit;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  const auto exe = resolve_executable(argv.empty() ? std::string() : argv.front(), outcome.error);
  if (exe.empty()) return outcome;  // FailedToStart

  // Capture files are made before the launch; failing to make them (/tmp full, ...) is a
  // failure to start, not an exception.
  std::unique_ptr<CaptureFile> in, out, err;
  try {
    in = std::make_unique<CaptureFile>();
    out = std::make_unique<CaptureFile>();
    err = std::make_unique<CaptureFile>();
    in->fill(stdin_text);
  } catch (const std::system_error &e) {
    outcome.error = e.what();
    return outcome;  // FailedToStart
  }
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  const Launched child = launch(exe, args, *in, *out, *err, limits.memory_limit_bytes);
  if (child.pid <= 0) {
    outcome.error = child.error.empty() ? "could not start '" + argv.front() + "'" : child.error;
    outcome.seconds = elapsed();
    return outcome;  // FailedToStart
  }

  const WaitEnd end = wait_for_exit(child.pid, limits, start);
  const int status = kill_group_and_reap(child.pid);
  outcome.seconds = elapsed();
  outcome.stdout_text = out->read_all();
  outcome.stderr_text = err->read_all();

  if (end == WaitEnd::TimedOut || end == WaitEnd::Cancelled) {
    outcome.kind = end == WaitEnd::TimedOut ? WorkerOutcome::Kind::TimedOut : WorkerOutcome::Kind::Cancelled;
    outcome.signal = SIGKILL;
    outcome.signal_name = signal_name(SIGKILL);
  } else if (WIFSIGNALED(status)) {
    outcome.kind = WorkerOutcome::Kind::Signaled;
    outcome.signal = WTERMSIG(status);
    outcome.signal_name = signal_name(outcome.signal);
  } else {
    outcome.kind = WorkerOutcome::Kind::Exited;
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return outcome;
}

std::filesystem::path current_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

std::filesystem::path own_image_path() { return "/proc/self/exe"; }

}  // namespace hlsched
