// Test: a generator with a compile error on line 12, column 27.
#include "Halide.h"

namespace {

using namespace Halide;

class Broken : public Generator<Broken> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() { output(x, y) = input(x, y) + undefined_name; }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Broken, broken)
