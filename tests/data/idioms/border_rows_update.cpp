// A pure update that overwrites the border rows and columns with zero (not a reduction).
#include "Halide.h"
using namespace Halide;
namespace {
class BorderRows : public Generator<BorderRows> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func grad{"grad"};
        grad(x, y) = cast<uint16_t>(absd(clamped(x + 1, y), clamped(x - 1, y)) + absd(clamped(x, y + 1), clamped(x, y - 1)));
        grad(x, 0) = cast<uint16_t>(0);
        grad(0, y) = cast<uint16_t>(0);
        output(x, y) = grad(x, y);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(BorderRows, border_rows_update)
