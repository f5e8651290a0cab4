// An argmin over 64 disparities as a Tuple update (value, index) written with two selects.
#include "Halide.h"
using namespace Halide;
namespace {
class TupleArgmin : public Generator<TupleArgmin> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> cost{"cost"};  // (d, x, y)
    Output<Buffer<int32_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        RDom d(0, 64, "d");
        Func best{"best"};
        best(x, y) = Tuple(1e30f, -1);
        Expr v = cost(d, x, y) + 0.01f * cast<float>(d);
        Expr better = v < best(x, y)[0];
        best(x, y) = Tuple(select(better, v, best(x, y)[0]), select(better, cast<int>(d), best(x, y)[1]));
        output(x, y) = best(x, y)[1];
    }
    void schedule() {
        cost.set_estimates({{0, 64}, {0, 640}, {0, 480}});
        output.set_estimates({{0, 640}, {0, 480}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(TupleArgmin, tuple_argmin_update)
