// Test: a generator whose generate() dereferences a null pointer.
#include "Halide.h"

namespace {

using namespace Halide;

class Crashes : public Generator<Crashes> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() {
        volatile int *nothing = nullptr;
        *nothing = 42;
        output(x, y) = input(x, y);
    }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Crashes, crashes)
