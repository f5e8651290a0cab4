// Bicubic resize by a runtime scale: data-dependent coordinates, 4x4 taps with per-pixel weights.
#include "Halide.h"
using namespace Halide;
namespace {
class ResizeBicubic : public Generator<ResizeBicubic> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> input{"input"};
    Input<float> scale{"scale"};
    Output<Buffer<float, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Expr sx = (x + 0.5f) / scale - 0.5f, sy = (y + 0.5f) / scale - 0.5f;
        Expr ix = cast<int>(floor(sx)), iy = cast<int>(floor(sy));
        Expr fx = sx - ix, fy = sy - iy;
        auto cubic = [](Expr t) {
            Expr a = -0.5f;
            Expr at = abs(t);
            return select(at < 1.0f, (a + 2) * at * at * at - (a + 3) * at * at + 1,
                          at < 2.0f, a * at * at * at - 5 * a * at * at + 8 * a * at - 4 * a, 0.0f);
        };
        Func wx{"wx"}, wy{"wy"};
        Var k{"k"};
        wx(x, k) = cubic(fx - (k - 1));
        wy(y, k) = cubic(fy - (k - 1));
        RDom r(0, 4, "r");
        Func resized_x{"resized_x"};
        resized_x(x, y, c) = sum(wx(x, r) * clamped(ix + r - 1, y, c));
        Func resized{"resized"};
        Expr iyy = cast<int>(floor((y + 0.5f) / scale - 0.5f));
        RDom s(0, 4, "s");
        resized(x, y, c) = sum(wy(y, s) * resized_x(x, iyy + s - 1, c));
        output(x, y, c) = clamp(resized(x, y, c), 0.0f, 1.0f);
    }
    void schedule() {
        input.set_estimates({{0, 1024}, {0, 768}, {0, 3}});
        scale.set_estimate(2.0f);
        output.set_estimates({{0, 2048}, {0, 1536}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ResizeBicubic, resize_bicubic)
