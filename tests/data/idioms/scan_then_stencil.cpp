// A scan down the columns (a recursive filter in an update) read by a 5-point stencil through a boundary condition on the scanned Func.
#include "Halide.h"
using namespace Halide;
namespace {
class ScanStencil : public Generator<ScanStencil> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func decay{"decay"};
        decay(x, y) = input(x, y);
        RDom r(1, 1079, "r");
        decay(x, r) = 0.8f * decay(x, r - 1) + 0.2f * input(x, r);
        Func c = BoundaryConditions::repeat_edge(decay, {{0, 1920}, {0, 1080}});
        output(x, y) = c(x - 1, y) + c(x, y) * 2 + c(x + 1, y) - c(x, y - 1) - c(x, y + 1);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ScanStencil, scan_then_stencil)
