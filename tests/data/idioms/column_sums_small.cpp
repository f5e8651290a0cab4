// Column sums over 4096 rows of a 64-wide image and row sums over its 64 columns, both read by the output.
#include "Halide.h"
using namespace Halide;
namespace {
class ColumnSums : public Generator<ColumnSums> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        RDom r(0, input.height(), "r");
        Func colsum{"colsum"}, rowsum{"rowsum"};
        colsum(x) = sum(input(x, r));
        RDom q(0, input.width(), "q");
        rowsum(y) = sum(input(q, y));
        output(x, y) = input(x, y) * 2 - colsum(x) / 4096 - rowsum(y) / 64;
    }
    void schedule() {
        input.set_estimates({{0, 64}, {0, 4096}});
        output.set_estimates({{0, 64}, {0, 4096}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ColumnSums, column_sums_small)
