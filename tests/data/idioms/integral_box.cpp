// Box filter through an integral image: two scans (along x, then along y), then four taps.
#include "Halide.h"
using namespace Halide;
namespace {
class IntegralBox : public Generator<IntegralBox> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func integral{"integral"};
        integral(x, y) = input(x, y);
        RDom rx(1, input.width() - 1, "rx");
        integral(rx, y) += integral(rx - 1, y);
        RDom ry(1, input.height() - 1, "ry");
        integral(x, ry) += integral(x, ry - 1);
        Func I = BoundaryConditions::repeat_edge(integral, {{0, input.width()}, {0, input.height()}});
        const int R = 7;
        Expr box = I(x + R, y + R) - I(x - R - 1, y + R) - I(x + R, y - R - 1) + I(x - R - 1, y - R - 1);
        output(x, y) = box / float((2 * R + 1) * (2 * R + 1));
    }
    void schedule() {
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(IntegralBox, integral_box)
