// hlsched-gengen: Halide's GenGen for generators that hlsched built as shared objects.
//
//   hlsched-gengen [--load GENERATOR.so]... [--env KEY=VALUE]... <GenGen arguments>
//
// GenGen is normally one executable per generator (the generator source linked with GenGen.cpp).
// The benchmark bundle builder instead reuses the cached shared objects of engine/loader
// (generator_build.h: precompiled Halide.h, content-hashed cache): this program dlopen()s them,
// which registers their generators, then runs Halide's generate_filter_main() on the remaining
// arguments, exactly as GenGen would. `--env` sets variables that autoscheduler plugins read
// (HLSCHED_OPTIONS), so that a caller without control over our environment can pass them.
// Without `-g` or `-r`, the only registered generator is used.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "Halide.h"

int main(int argc, char **argv) {
  std::vector<char *> args = {argv[0]};
  bool has_generator_or_runtime = false;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if ((arg == "--load" || arg == "--env") && i + 1 < argc) {
      const char *value = argv[++i];
      if (arg == "--load") {
        if (!::dlopen(value, RTLD_NOW | RTLD_GLOBAL)) {
          std::cerr << "hlsched-gengen: cannot load " << value << ": " << ::dlerror() << "\n";
          return 1;
        }
      } else {
        const char *eq = std::strchr(value, '=');
        if (!eq) {
          std::cerr << "hlsched-gengen: --env wants KEY=VALUE, not " << value << "\n";
          return 1;
        }
        ::setenv(std::string(value, eq).c_str(), eq + 1, 1);
      }
      continue;
    }
    if (arg == "-g" || arg == "-r") has_generator_or_runtime = true;
    args.push_back(argv[i]);
  }
  std::string only_generator;
  if (!has_generator_or_runtime) {
    const std::vector<std::string> names = Halide::Internal::GeneratorRegistry::enumerate();
    if (names.size() == 1) {
      only_generator = names.front();
      args.insert(args.begin() + 1, {const_cast<char *>("-g"), only_generator.data()});
    }
  }
  args.push_back(nullptr);
  return Halide::Internal::generate_filter_main(int(args.size()) - 1, args.data(), std::cerr);
}
