// Three outputs of different sizes: a 2x bilinear upsample, the input, and a 2x downsample.
#include "Halide.h"
using namespace Halide;
namespace {
class MultiScale : public Generator<MultiScale> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> up{"up"};
    Output<Buffer<float, 3>> same{"same"};
    Output<Buffer<float, 3>> down{"down"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func sharpened{"sharpened"};
        sharpened(x, y, c) = 2 * clamped(x, y, c) - (clamped(x - 1, y, c) + clamped(x + 1, y, c) + clamped(x, y - 1, c) + clamped(x, y + 1, c)) / 4;
        Expr fx = (x % 2) * 0.5f, fy = (y % 2) * 0.5f;
        Expr a = sharpened(x / 2, y / 2, c), b = sharpened(x / 2 + 1, y / 2, c);
        Expr d = sharpened(x / 2, y / 2 + 1, c), e = sharpened(x / 2 + 1, y / 2 + 1, c);
        up(x, y, c) = lerp(lerp(a, b, fx), lerp(d, e, fx), fy);
        same(x, y, c) = sharpened(x, y, c);
        down(x, y, c) = (sharpened(2 * x, 2 * y, c) + sharpened(2 * x + 1, 2 * y, c) + sharpened(2 * x, 2 * y + 1, c) + sharpened(2 * x + 1, 2 * y + 1, c)) / 4;
    }
    void schedule() {
        input.set_estimates({{0, 1024}, {0, 1024}, {0, 3}});
        up.set_estimates({{0, 2048}, {0, 2048}, {0, 3}});
        same.set_estimates({{0, 1024}, {0, 1024}, {0, 3}});
        down.set_estimates({{0, 512}, {0, 512}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(MultiScale, upsample_pyramid_outputs)
