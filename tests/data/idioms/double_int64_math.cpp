// Double-precision and 64-bit integer arithmetic: a per-pixel polynomial and a hashed dither.
#include "Halide.h"
using namespace Halide;
namespace {
class DoubleMath : public Generator<DoubleMath> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<double, 2>> input{"input"};
    Output<Buffer<uint8_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func poly{"poly"}, noise{"noise"};
        Expr v = input(x, y);
        poly(x, y) = ((Expr(0.25) * v - Expr(1.5)) * v + Expr(3.0)) * v + Expr(0.125);
        Expr h = cast<uint64_t>(x) * Internal::make_const(UInt(64), (uint64_t)2654435761ull) + cast<uint64_t>(y) * Internal::make_const(UInt(64), (uint64_t)40503ull);
        noise(x, y) = cast<double>(h % 1024) / Expr(1024.0) - Expr(0.5);
        output(x, y) = cast<uint8_t>(clamp(poly(x, y) * Expr(64.0) + noise(x, y), Expr(0.0), Expr(255.0)));
    }
    void schedule() {
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(DoubleMath, double_int64_math)
