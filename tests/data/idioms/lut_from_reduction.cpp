// A per-channel histogram, the first bin past a count found by argmax, subtracted per pixel.
#include "Halide.h"
using namespace Halide;
namespace {
class LutFromReduction : public Generator<LutFromReduction> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 3>> input{"input"};
    Output<Buffer<uint8_t, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"}, i{"i"};
    void generate() {
        RDom r(0, input.width(), 0, input.height(), "r");
        Func hist{"hist"};
        hist(i, c) = 0;
        hist(cast<int>(input(r.x, r.y, c)), c) += 1;
        Func lo{"lo"};
        RDom b(0, 256, "b");
        lo(c) = argmax(hist(b, c) > 100)[0];
        output(x, y, c) = cast<uint8_t>(clamp(cast<int>(input(x, y, c)) - lo(c), 0, 255));
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(LutFromReduction, lut_from_reduction)
