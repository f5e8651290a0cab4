// Integer arithmetic heavy: a division by a runtime scalar, modulo tiling and a 16-bit LUT Func.
#include "Halide.h"
using namespace Halide;
namespace {
class IntDivision : public Generator<IntDivision> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint16_t, 2>> input{"input"};
    Input<int> divisor{"divisor"};
    Output<Buffer<uint16_t, 2>> output{"output"};
    Var x{"x"}, y{"y"}, i{"i"};
    void generate() {
        Func lut{"lut"};
        lut(i) = cast<uint16_t>((i * i) >> 6);
        Func tiled{"tiled"};
        tiled(x, y) = input(x % 64 + (y % 8) * 64, y / 8);
        output(x, y) = lut(cast<int>(tiled(x, y)) / max(divisor, 1) % 1024);
    }
    void schedule() {
        input.set_estimates({{0, 512}, {0, 512}});
        divisor.set_estimate(3);
        output.set_estimates({{0, 64}, {0, 4096}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(IntDivision, int_division_lut)
