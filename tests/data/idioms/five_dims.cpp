// A five-dimensional tensor: a mean over one axis and a broadcast subtract.
#include "Halide.h"
using namespace Halide;
namespace {
class FiveDims : public Generator<FiveDims> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 5>> input{"input"};
    Output<Buffer<float, 5>> output{"output"};
    Var a{"a"}, b{"b"}, c{"c"}, d{"d"}, e{"e"};
    void generate() {
        RDom r(0, 8, "r");
        Func mean{"mean"};
        mean(a, b, d, e) = sum(input(a, b, r, d, e)) / 8.0f;
        output(a, b, c, d, e) = input(a, b, c, d, e) - mean(a, b, d, e);
    }
    void schedule() {
        input.set_estimates({{0, 64}, {0, 64}, {0, 8}, {0, 16}, {0, 4}});
        output.set_estimates({{0, 64}, {0, 64}, {0, 8}, {0, 16}, {0, 4}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(FiveDims, five_dims)
