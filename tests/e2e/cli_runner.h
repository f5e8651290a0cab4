// Running the real hlsched executable from tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hlsched/engine/worker_process.h"

namespace hlsched::testing {

/// Runs `hlsched ARGS...` with a build cache shared by all end-to-end tests.
WorkerOutcome run_hlsched(const std::vector<std::string> &args, double timeout_s = 300);

/// The JSON printed on stdout (fails the test when it does not parse).
nlohmann::json stdout_json(const WorkerOutcome &run);

/// Path of a file in the source tree ("tests/data/generators/x.cpp").
std::filesystem::path source_path(const std::string &relative);

/// A scratch folder for one test, emptied first.
std::filesystem::path scratch_dir(const std::string &name);

/// Reads a whole file.
std::string read_file(const std::filesystem::path &path);

/// A generator's source with `code` (an emitted schedule) inserted into its schedule() at the
/// "// HLSCHED_SCHEDULE" marker, or after the line that sets the output's estimates.
std::string paste_schedule(const std::string &source, const std::string &code);

/// A lowered program with what Halide numbers from process-wide counters renumbered by first
/// appearance: temporaries (t1794), unique names (halide_device_free_result$9), kernel names
/// (..._block_id_y__2), and the device code's size, which the kernel names change. Two processes
/// that did different work before lowering the same schedule give equal texts.
std::string canonical_lowered_program(std::string stmt);

}  // namespace hlsched::testing
