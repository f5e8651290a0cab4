// An affine warp with bilinear sampling: gathers at coordinates from runtime matrix parameters.
#include "Halide.h"
using namespace Halide;
namespace {
class WarpAffine : public Generator<WarpAffine> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 3>> input{"input"};
    Input<float> a00{"a00"}, a01{"a01"}, a10{"a10"}, a11{"a11"}, tx{"tx"}, ty{"ty"};
    Output<Buffer<uint8_t, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func clamped = BoundaryConditions::constant_exterior(input, 0);
        Func as_float{"as_float"};
        as_float(x, y, c) = cast<float>(clamped(x, y, c));
        Expr sx = a00 * x + a01 * y + tx, sy = a10 * x + a11 * y + ty;
        Expr ix = cast<int>(floor(sx)), iy = cast<int>(floor(sy));
        Expr fx = sx - ix, fy = sy - iy;
        Expr top = lerp(as_float(ix, iy, c), as_float(ix + 1, iy, c), fx);
        Expr bottom = lerp(as_float(ix, iy + 1, c), as_float(ix + 1, iy + 1, c), fx);
        output(x, y, c) = cast<uint8_t>(clamp(lerp(top, bottom, fy) + 0.5f, 0.0f, 255.0f));
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        a00.set_estimate(0.9f); a01.set_estimate(0.1f); a10.set_estimate(-0.1f); a11.set_estimate(0.9f);
        tx.set_estimate(10.0f); ty.set_estimate(5.0f);
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(WarpAffine, warp_affine)
