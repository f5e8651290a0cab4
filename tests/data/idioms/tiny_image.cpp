// A 3x3 blur chain on a tiny 20x12 image: tiles larger than the image itself.
#include "Halide.h"
using namespace Halide;
namespace {
class TinyImage : public Generator<TinyImage> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func bx{"bx"}, by{"by"};
        bx(x, y) = clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y);
        by(x, y) = bx(x, y - 1) + bx(x, y) + bx(x, y + 1);
        output(x, y) = by(x, y) / 9;
    }
    void schedule() {
        input.set_estimates({{0, 20}, {0, 12}});
        output.set_estimates({{0, 20}, {0, 12}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TinyImage, tiny_image)
