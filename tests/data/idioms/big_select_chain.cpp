// A ten-way select on a per-pixel class, then a 3-tap blur through a boundary condition on a Func.
#include "Halide.h"
using namespace Halide;
namespace {
class BigSelect : public Generator<BigSelect> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 2>> classes{"classes"};
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Expr k = cast<int>(classes(x, y)) % 10;
        Expr e = input(x, y, c);
        for (int i = 8; i >= 0; i--) e = select(k == i, input(x, y, c) * (1.0f + 0.1f * i) + 0.01f * i, e);
        Func tone{"tone"};
        tone(x, y, c) = e;
        Func c2 = BoundaryConditions::repeat_edge(tone, {{0, 1920}, {0, 1080}, {0, 3}});
        output(x, y, c) = (c2(x - 1, y, c) + c2(x + 1, y, c) + c2(x, y, c)) / 3;
    }
    void schedule() {
        classes.set_estimates({{0, 1920}, {0, 1080}});
        input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(BigSelect, big_select_chain)
