// Helpers shared by the server tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hlsched/protocol/lsp_types.h"

namespace hlsched::server::testing {

/// A file of the source tree ("examples/blur/blur_generator.cpp").
std::filesystem::path source_path(const std::string &relative);
std::string read_file(const std::filesystem::path &path);
void write_file(const std::filesystem::path &path, const std::string &text);
/// The build cache shared by the server tests (and the CLI's end-to-end tests).
std::filesystem::path test_cache_dir();
/// `text` with LSP `edits` applied (all ranges refer to `text`, as in a WorkspaceEdit).
std::string apply_edits(const std::string &text, std::vector<hlsched::protocol::lsp::TextEdit> edits);
/// A fresh, empty folder for one test.
std::filesystem::path scratch_dir(const std::string &name);

}  // namespace hlsched::server::testing
