// Two outputs from one producer, and an argmax (a Tuple reduction) across 16 channels.
#include "Halide.h"
using namespace Halide;
namespace {
class TwoOutputsArgmax : public Generator<TwoOutputsArgmax> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> scores{"scores"};  // (x, y, c)
    Output<Buffer<int32_t, 2>> label{"label"};
    Output<Buffer<float, 2>> confidence{"confidence"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(scores);
        Func smooth{"smooth"};
        smooth(x, y, c) = (clamped(x - 1, y, c) + 2 * clamped(x, y, c) + clamped(x + 1, y, c)) * 0.25f;
        RDom r(0, 16, "r");
        Func best{"best"};
        best(x, y) = argmax(smooth(x, y, r));
        label(x, y) = best(x, y)[0];
        confidence(x, y) = best(x, y)[1];
    }
    void schedule() {
        scores.set_estimates({{0, 1024}, {0, 1024}, {0, 16}});
        label.set_estimates({{0, 1024}, {0, 1024}});
        confidence.set_estimates({{0, 1024}, {0, 1024}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TwoOutputsArgmax, two_outputs_argmax)
