#include "kernel_names.h"

#include <cctype>

namespace hlsched::bench {
namespace {

// Parses "s<digits>_" (or "s<digits>" at the end) at `at`; -1 when it is not there.
int stage_at(const std::string &name, size_t at, size_t *after = nullptr) {
  if (at >= name.size() || name[at] != 's') return -1;
  size_t i = at + 1;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) i++;
  if (i == at + 1 || (i < name.size() && name[i] != '_')) return -1;
  if (after) *after = i;
  return std::stoi(name.substr(at + 1, i - at - 1));
}

}  // namespace

std::string sanitized_name(const std::string &func) {
  std::string out = func;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

KernelOwner kernel_owner(const std::string &kernel_name, const std::vector<std::string> &known_funcs) {
  std::string body = kernel_name;
  if (body.rfind("_kernel_", 0) == 0) body = body.substr(8);
  else if (body.rfind("kernel_", 0) == 0) body = body.substr(7);
  else return {};

  KernelOwner best;
  size_t best_length = 0;
  for (const auto &func : known_funcs) {
    const std::string prefix = sanitized_name(func) + "_";
    if (prefix.size() <= best_length || body.compare(0, prefix.size(), prefix) != 0) continue;
    const int stage = stage_at(body, prefix.size());
    if (stage < 0) continue;
    best = {func, stage};
    best_length = prefix.size();
  }
  if (!best.func.empty()) return best;

  for (size_t at = body.find("_s"); at != std::string::npos; at = body.find("_s", at + 1)) {
    const int stage = stage_at(body, at + 1);
    if (stage >= 0 && at > 0) return {body.substr(0, at), stage};
  }
  return {};
}

}  // namespace hlsched::bench
