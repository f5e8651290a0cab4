// The output chooses per pixel between two whole Func chains, with likely() and a promise.
#include "Halide.h"
using namespace Halide;
namespace {
class Branchy : public Generator<Branchy> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Input<Buffer<uint8_t, 2>> mask{"mask"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func smooth{"smooth"}, sharp{"sharp"};
        smooth(x, y) = (clamped(x - 2, y) + clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y) + clamped(x + 2, y)) / 5;
        sharp(x, y) = 3 * clamped(x, y) - clamped(x, y - 1) - clamped(x, y + 1);
        Expr m = unsafe_promise_clamped(cast<int>(mask(x, y)), 0, 1);
        output(x, y) = select(likely(m == 0), smooth(x, y), sharp(x, y));
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        mask.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(Branchy, branchy_select_funcs)
