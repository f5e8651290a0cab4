// Attributing GPU kernels to the Funcs they compute.
//
// Halide names a kernel after the loop it replaces: the Func's GPU block loop
// `output.s0.y.yo.__block_id_y` becomes `_kernel_output_s0_y_yo___block_id_y` (characters that
// are not letters or digits become '_'; the prefix is `kernel_` with or without a leading '_').
// A Func name may itself contain '_' (`blur_x`, `g_pyr_3`), so when the pipeline's Func names are
// known the longest one that the kernel name starts with wins; otherwise the name is cut at the
// first `_s<digits>_`.
#pragma once

#include <string>
#include <vector>

namespace hlsched::bench {

struct KernelOwner {
  std::string func;  ///< empty when the name is not a Halide kernel name
  int stage = -1;    ///< 0 for the pure definition, 1.. for update definitions
};

KernelOwner kernel_owner(const std::string &kernel_name, const std::vector<std::string> &known_funcs);

/// The Func name as it appears inside kernel names ('$', '.' ... replaced by '_').
std::string sanitized_name(const std::string &func);

}  // namespace hlsched::bench
