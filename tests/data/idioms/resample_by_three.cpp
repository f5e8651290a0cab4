// Downsampling by 3 and nearest upsampling by 3 (x / 3) through a mirrored boundary, 16-bit.
#include "Halide.h"
using namespace Halide;
namespace {
class ByThree : public Generator<ByThree> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func c = BoundaryConditions::mirror_interior(input);
        Func down{"down"}, up{"up"};
        down(x, y) = cast<uint16_t>((cast<uint32_t>(c(3 * x, 3 * y)) + c(3 * x + 1, 3 * y + 1) + c(3 * x + 2, 3 * y + 2)) / 3);
        up(x, y) = down(x / 3, y / 3);
        output(x, y) = cast<uint16_t>((cast<uint32_t>(up(x, y)) + c(x, y)) / 2);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ByThree, resample_by_three)
