// An output Func of two values (a Tuple into two buffers): gradient magnitude and direction bin.
#include "Halide.h"
using namespace Halide;
namespace {
class TupleOutput : public Generator<TupleOutput> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Func> output{"output", {Float(32), Int(32)}, 2};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func gx{"gx"}, gy{"gy"};
        gx(x, y) = clamped(x + 1, y) - clamped(x - 1, y);
        gy(x, y) = clamped(x, y + 1) - clamped(x, y - 1);
        Expr angle = atan2(gy(x, y), gx(x, y));
        output(x, y) = Tuple(sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y)),
                             cast<int>(floor((angle + 3.14159265f) / (2 * 3.14159265f) * 8)) % 8);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TupleOutput, tuple_output)
