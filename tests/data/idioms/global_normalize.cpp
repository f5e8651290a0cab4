// Normalize an image by its global mean and maximum: two whole-image reductions, then pointwise.
#include "Halide.h"
using namespace Halide;
namespace {
class GlobalNormalize : public Generator<GlobalNormalize> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        RDom r(0, input.width(), 0, input.height(), "r");
        Func total{"total"}, peak{"peak"};
        total() = 0.0f;
        total() += input(r.x, r.y);
        peak() = maximum(abs(input(r.x, r.y)));
        Expr mean = total() / cast<float>(input.width() * input.height());
        output(x, y) = (input(x, y) - mean) / max(peak(), 1e-6f);
    }
    void schedule() {
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(GlobalNormalize, global_normalize)
