// Gaussian 5x5, Sobel gradients, magnitude and non-maximum suppression along the gradient.
#include "Halide.h"
using namespace Halide;
namespace {
class CannyLite : public Generator<CannyLite> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint8_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::constant_exterior(input, 0);
        Func in_f{"in_f"}, gx5{"gx5"}, g{"g"};
        in_f(x, y) = cast<float>(clamped(x, y));
        gx5(x, y) = (in_f(x - 2, y) + 4 * in_f(x - 1, y) + 6 * in_f(x, y) + 4 * in_f(x + 1, y) + in_f(x + 2, y)) / 16;
        g(x, y) = (gx5(x, y - 2) + 4 * gx5(x, y - 1) + 6 * gx5(x, y) + 4 * gx5(x, y + 1) + gx5(x, y + 2)) / 16;
        Func dx{"dx"}, dy{"dy"}, mag{"mag"};
        dx(x, y) = g(x + 1, y - 1) + 2 * g(x + 1, y) + g(x + 1, y + 1) - g(x - 1, y - 1) - 2 * g(x - 1, y) - g(x - 1, y + 1);
        dy(x, y) = g(x - 1, y + 1) + 2 * g(x, y + 1) + g(x + 1, y + 1) - g(x - 1, y - 1) - 2 * g(x, y - 1) - g(x + 1, y - 1);
        mag(x, y) = sqrt(dx(x, y) * dx(x, y) + dy(x, y) * dy(x, y));
        Expr horizontal = abs(dx(x, y)) > abs(dy(x, y));
        Expr n1 = select(horizontal, mag(x - 1, y), mag(x, y - 1));
        Expr n2 = select(horizontal, mag(x + 1, y), mag(x, y + 1));
        Expr keep = mag(x, y) >= n1 && mag(x, y) >= n2 && mag(x, y) > 100.0f;
        output(x, y) = select(keep, cast<uint8_t>(255), cast<uint8_t>(0));
    }
    void schedule() {
        input.set_estimates({{0, 2560}, {0, 1600}});
        output.set_estimates({{0, 2560}, {0, 1600}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(CannyLite, canny_lite)
