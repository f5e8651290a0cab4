// 3x3 median of an 8-bit RGB image by a min/max network, then a sharpening against it.
#include "Halide.h"
using namespace Halide;
namespace {
class Median3x3 : public Generator<Median3x3> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 3>> input{"input"};
    Output<Buffer<uint8_t, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func clamped = BoundaryConditions::mirror_interior(input);
        Func mn{"mn"}, md{"md"}, mxf{"mxf"};
        Expr a = clamped(x, y - 1, c), b = clamped(x, y, c), d = clamped(x, y + 1, c);
        mn(x, y, c) = min(a, min(b, d));
        mxf(x, y, c) = max(a, max(b, d));
        md(x, y, c) = max(min(a, b), min(max(a, b), d));
        Func median{"median"};
        Expr lo = max(mn(x - 1, y, c), max(mn(x, y, c), mn(x + 1, y, c)));
        Expr hi = min(mxf(x - 1, y, c), min(mxf(x, y, c), mxf(x + 1, y, c)));
        Expr m0 = md(x - 1, y, c), m1 = md(x, y, c), m2 = md(x + 1, y, c);
        Expr mid = max(min(m0, m1), min(max(m0, m1), m2));
        median(x, y, c) = max(min(lo, mid), min(max(lo, mid), hi));
        Expr sharp = 2 * cast<int16_t>(clamped(x, y, c)) - cast<int16_t>(median(x, y, c));
        output(x, y, c) = cast<uint8_t>(clamp(sharp, 0, 255));
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(Median3x3, median3x3)
