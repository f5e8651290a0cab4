// Test pipeline: boundary condition, a stencil, a Func with two consumers, pointwise stages.
#include "Halide.h"

namespace {

using namespace Halide;

class StencilSmall : public Generator<StencilSmall> {
public:
    GeneratorParam<int> radius{"radius", 1, 1, 4};
    Input<Buffer<float, 2>> input{"input"};
    Input<float> gain{"gain", 1.5f};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Expr sum = 0.0f;
        const int r = radius;
        for (int dx = -r; dx <= r; dx++) sum += clamped(x + dx, y);
        blur_x(x, y) = sum / float(2 * r + 1);
        Func blur_y{"blur_y"};
        blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3.0f;
        Func sharpened{"sharpened"};
        sharpened(x, y) = blur_x(x, y) * gain - blur_y(x, y);  // blur_x has two consumers
        output(x, y) = max(sharpened(x, y), 0.0f);
    }

    void schedule() {
        input.set_estimates({{0, 1024}, {0, 768}});
        gain.set_estimate(1.5f);
        output.set_estimates({{0, 1024}, {0, 768}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"};
    Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(StencilSmall, stencil_small)
