// A separable blur whose second pass runs on a transposed Func, transposed back at the output.
#include "Halide.h"
using namespace Halide;
namespace {
class TransposeMid : public Generator<TransposeMid> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func c = BoundaryConditions::repeat_edge(input);
        Func bx{"bx"}, t{"t"}, by{"by"};
        bx(x, y) = c(x - 1, y) + c(x, y) + c(x + 1, y);
        t(x, y) = bx(y, x);
        by(x, y) = t(x - 1, y) + t(x, y) + t(x + 1, y);
        output(x, y) = by(y, x) / 9;
    }
    void schedule() {
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TransposeMid, transpose_mid)
