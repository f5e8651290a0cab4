// Test: a generator whose generate() never returns.
#include "Halide.h"

#include <atomic>

namespace {

using namespace Halide;

class Hangs : public Generator<Hangs> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() {
        std::atomic<bool> forever{true};
        while (forever.load()) {
        }
        output(x, y) = input(x, y);
    }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Hangs, hangs)
