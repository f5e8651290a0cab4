// A 30-stage chain of small horizontal, vertical and pointwise stages built in a loop.
#include "Halide.h"
using namespace Halide;
namespace {
class DeepChain : public Generator<DeepChain> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func f = BoundaryConditions::repeat_edge(input);
        for (int i = 0; i < 30; i++) {
            Func g("stage_" + std::to_string(i));
            if (i % 3 == 0) g(x, y) = (f(x - 1, y) + f(x + 1, y)) * 0.5f;
            else if (i % 3 == 1) g(x, y) = (f(x, y - 1) + f(x, y + 1)) * 0.5f;
            else g(x, y) = f(x, y) * 0.9f + 0.1f * sqrt(abs(f(x, y)));
            f = g;
        }
        output(x, y) = f(x, y);
    }
    void schedule() {
        input.set_estimates({{0, 1536}, {0, 1536}});
        output.set_estimates({{0, 1536}, {0, 1536}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(DeepChain, deep_chain)
