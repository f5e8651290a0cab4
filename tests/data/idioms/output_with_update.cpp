// The output Func itself has update definitions: a base image, then a reduction added on top.
#include "Halide.h"
using namespace Halide;
namespace {
class OutputWithUpdate : public Generator<OutputWithUpdate> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        RDom r(-3, 7, "r");
        output(x, y) = clamped(x, y) * 0.5f;
        output(x, y) += clamped(x + r, y) * 0.05f;
        output(x, y) = min(output(x, y), 1.0f);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(OutputWithUpdate, output_with_update)
