// Nested inline reductions: the maximum over a window of local sums, and an RDom of extent 1.
#include "Halide.h"
using namespace Halide;
namespace {
class NestedReductions : public Generator<NestedReductions> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        RDom inner(0, 4, 0, 4, "inner");
        RDom outer(-2, 5, "outer");
        RDom one(0, 1, "one");
        Func local{"local"};
        local(x, y) = sum(cast<uint16_t>(clamped(x + inner.x, y + inner.y)));
        Func best{"best"};
        best(x, y) = maximum(local(x + outer, y));
        output(x, y) = best(x, y) + sum(local(x, y + one));
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(NestedReductions, nested_inline_reductions)
