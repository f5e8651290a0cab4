#include "orchestrator.h"

#include <algorithm>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

extern char **environ;

namespace hlsched::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

struct ChildOutcome {
  bool ok = false;
  std::string why;  ///< when not ok: "exited with code 1", "crashed with signal 11", "timed out after 120 s"
};

// Runs argv as a child process (stdout/stderr shared with ours) and waits at most `limit_s`.
ChildOutcome run_child(const std::vector<std::string> &argv, double limit_s) {
  std::vector<char *> args;
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (const int error = ::posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ); error != 0)
    return {false, std::string("could not start: ") + std::strerror(error)};
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      std::ostringstream why;
      why << "timed out after " << limit_s << " s";
      return {false, why.str()};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  if (WIFEXITED(status)) return {false, "exited with code " + std::to_string(WEXITSTATUS(status))};
  return {false, std::string("crashed with signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"};
}

std::vector<json> read_records(const std::string &path) {
  std::vector<json> records;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) records.push_back(json::parse(line));
  return records;
}

void write_atomically(const std::string &path, const json &results) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << results.dump(1) << "\n";
    if (!out) throw std::runtime_error("cannot write " + temporary);
  }
  fs::rename(temporary, path);
}

json options_json(const RunOptions &o) {
  return {{"warmup", o.app.repetitions.warmup},
          {"min_repetitions", o.app.repetitions.min_repetitions},
          {"max_repetitions", o.app.repetitions.max_repetitions},
          {"target_seconds_per_variant", o.app.repetitions.target_seconds},
          {"kernel_repetitions", o.app.kernel_repetitions},
          {"cache_config", o.app.cache_config},
          {"rotate_below_bytes", o.app.rotate_below_bytes},
          {"rotate_target_bytes", o.app.rotate_target_bytes},
          {"max_input_sets", o.app.max_input_sets},
          {"float_tolerance", {{"relative", o.app.tolerance.relative}, {"absolute_of_max", o.app.tolerance.absolute_of_max}}},
          {"time_budget_s", o.time_budget_s},
          {"app_timeout_s", o.app_timeout_s}};
}

json skeleton_record(const VariantEntry &v, const std::string &status, const std::string &error) {
  return {{"function", v.function}, {"app", v.app}, {"label", v.label}, {"status", status}, {"error", error}};
}

void print_summary(const json &results) {
  std::printf("\n%-26s %-10s %12s %8s  %s\n", "app", "variant", "median ms", "check", "note");
  for (const auto &r : results["variants"]) {
    const std::string status = r.value("status", "?");
    std::string ms = "-", check = "-", note;
    if (status == "ok") {
      char text[32];
      std::snprintf(text, sizeof text, "%.4f", r["runtime_ms"]["median"].get<double>());
      ms = text;
      check = r["check"].value("ok", false) ? "ok" : "DIFFERS";
    } else {
      note = status + ": " + r.value("error", "");
      if (note.size() > 90) note = note.substr(0, 87) + "...";
    }
    std::printf("%-26s %-10s %12s %8s  %s\n", r.value("app", "").c_str(), r.value("label", "").c_str(), ms.c_str(),
                check.c_str(), note.c_str());
  }
  if (results.contains("copy_bandwidth"))
    std::printf("device-to-device copy: %.0f GB/s\n", results["copy_bandwidth"].value("gb_per_s", 0.0));
}

}  // namespace

std::vector<std::string> child_arguments(const RunOptions &o) {
  auto number = [](double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  };
  return {"--warmup", std::to_string(o.app.repetitions.warmup),
          "--min-reps", std::to_string(o.app.repetitions.min_repetitions),
          "--max-reps", std::to_string(o.app.repetitions.max_repetitions),
          "--seconds-per-variant", number(o.app.repetitions.target_seconds),
          "--kernel-reps", std::to_string(o.app.kernel_repetitions),
          "--cache-config", o.app.cache_config,
          "--rotate-below-mb", number(double(o.app.rotate_below_bytes) / (1 << 20)),
          "--rotate-target-mb", number(double(o.app.rotate_target_bytes) / (1 << 20)),
          "--max-input-sets", std::to_string(o.app.max_input_sets),
          "--rtol", number(o.app.tolerance.relative),
          "--atol-of-max", number(o.app.tolerance.absolute_of_max)};
}

int run_benchmark(const Manifest &manifest, const std::string &self, const RunOptions &options) {
  const auto start = Clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::string scratch = options.scratch_dir;
  if (scratch.empty()) {
    char pattern[] = "/tmp/hlsched-bench-run.XXXXXX";
    if (!::mkdtemp(pattern)) throw std::runtime_error("cannot create a scratch directory in /tmp");
    scratch = pattern;
  }
  fs::create_directories(scratch);
  const std::string manifest_path = scratch + "/manifest.json";
  std::ofstream(manifest_path) << manifest.raw.dump();

  json results{{"format", "hlsched-bench-results-v1"}, {"started", now_utc()}, {"complete", false},
               {"manifest", manifest.raw},           {"options", options_json(options)}, {"variants", json::array()}};
  const std::vector<std::string> common = child_arguments(options);
  auto base_command = [&](const std::string &task) {
    std::vector<std::string> argv = {self, "--manifest", manifest_path, "--child-task", task};
    argv.insert(argv.end(), common.begin(), common.end());
    return argv;
  };

  // The device: facts and copy bandwidth (the denominator of every physical floor).
  std::cerr << "measuring the device...\n";
  const std::string device_path = scratch + "/device.json";
  std::vector<std::string> device_command = base_command("device");
  device_command.insert(device_command.end(), {"--child-output", device_path});
  const ChildOutcome device = run_child(device_command, 120);
  if (device.ok) {
    std::ifstream in(device_path);
    const json measured = json::parse(in);
    results["device"] = measured["device"];
    results["copy_bandwidth"] = measured["copy_bandwidth"];
  } else {
    results["device"] = {{"error", "measuring the device " + device.why}};
  }
  write_atomically(options.output_path, results);

  std::vector<std::string> apps = options.apps;
  if (apps.empty())
    for (const auto &a : manifest.apps) apps.push_back(a.name);
  bool all_good = device.ok;
  for (const std::string &app : apps) {
    for (const auto &v : manifest.variants)
      if (v.app == app && !v.compiled) {
        results["variants"].push_back(skeleton_record(v, "not_compiled", "the bundle builder could not compile it"));
        all_good = false;
      }
    std::vector<VariantEntry> pending = manifest.compiled_variants(app);
    if (options.reverse_variants) std::reverse(pending.begin(), pending.end());
    std::cerr << app << " (" << pending.size() << " variants)\n";
    const std::string records_path = scratch + "/" + app + ".records.jsonl";
    fs::remove(records_path);
    while (!pending.empty()) {
      const double left = options.time_budget_s - elapsed_s();
      if (left < 5) {
        for (const auto &v : pending) results["variants"].push_back(skeleton_record(v, "skipped", "the run's time budget was spent"));
        all_good = false;
        break;
      }
      std::vector<std::string> command = base_command("app");
      std::string functions;
      for (const auto &v : pending) functions += (functions.empty() ? "" : ",") + v.function;
      command.insert(command.end(), {"--app", app, "--functions", functions, "--records", records_path,
                                     "--reference-dir", scratch});
      const ChildOutcome child = run_child(command, std::min(options.app_timeout_s, left));
      std::set<std::string> finished;
      std::string started;  // the last variant the child began measuring
      for (json &record : read_records(records_path)) {
        const std::string function = record["function"].get<std::string>();
        if (record["status"] == "started") {
          started = function;
          continue;
        }
        finished.insert(function);
        if (record["status"] != "ok" || !record["check"].value("ok", false)) all_good = false;
        results["variants"].push_back(std::move(record));
      }
      fs::remove(records_path);
      std::vector<VariantEntry> rest;
      for (const auto &v : pending) {
        if (finished.count(v.function)) continue;
        if (!child.ok && (v.function == started || started.empty())) {
          // It died measuring this variant, or before measuring any (then every variant
          // would meet the same fate: a setup failure).
          results["variants"].push_back(skeleton_record(v, "failed", "the measuring process " + child.why));
          all_good = false;
          continue;
        }
        rest.push_back(v);
      }
      if (child.ok && !rest.empty()) {  // cannot happen unless the records file was lost
        for (const auto &v : rest) results["variants"].push_back(skeleton_record(v, "failed", "no record of its measurement"));
        all_good = false;
        rest.clear();
      }
      pending = rest;
    }
    results["seconds"] = elapsed_s();
    write_atomically(options.output_path, results);
  }
  results["complete"] = true;
  results["finished"] = now_utc();
  results["seconds"] = elapsed_s();
  write_atomically(options.output_path, results);
  print_summary(results);
  return all_good ? 0 : 1;
}

}  // namespace hlsched::bench
