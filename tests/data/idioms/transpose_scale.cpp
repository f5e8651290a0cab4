// A transpose with a per-row normalization: reads along the non-coalescing dimension.
#include "Halide.h"
using namespace Halide;
namespace {
class TransposeScale : public Generator<TransposeScale> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func row_sum{"row_sum"};
        RDom r(0, input.width(), "r");
        row_sum(y) = sum(abs(input(r, y)));
        Func normalized{"normalized"};
        normalized(x, y) = input(x, y) / max(row_sum(y), 1e-6f);
        output(x, y) = normalized(y, x);
    }
    void schedule() {
        input.set_estimates({{0, 4096}, {0, 4096}});
        output.set_estimates({{0, 4096}, {0, 4096}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TransposeScale, transpose_scale)
