// A Func with two update stages over different RDoms, one sized by a scalar Input (radius).
#include "Halide.h"
using namespace Halide;
namespace {
class TwoUpdates : public Generator<TwoUpdates> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Input<int> radius{"radius"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        RDom rx(-radius, 2 * radius + 1, "rx"), ry(-3, 7, "ry");
        Func acc{"acc"};
        acc(x, y) = 0.0f;
        acc(x, y) += clamped(x + rx, y);
        acc(x, y) += clamped(x, y + ry) * 0.5f;
        output(x, y) = acc(x, y) / (2 * radius + 8.5f);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        radius.set_estimate(4);
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TwoUpdates, two_update_rdoms)
