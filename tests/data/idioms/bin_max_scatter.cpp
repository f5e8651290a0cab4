// Per-label maximum and count (a scatter with max and +=), then a lookup per pixel.
#include "Halide.h"
using namespace Halide;
namespace {
class BinMax : public Generator<BinMax> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 2>> labels{"labels"};
    Input<Buffer<float, 2>> values{"values"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"}, b{"b"};
    void generate() {
        RDom r(0, values.width(), 0, values.height(), "r");
        Func bin_max{"bin_max"}, count{"count"};
        Expr label = cast<int>(labels(r.x, r.y));
        bin_max(b) = -1e30f;
        bin_max(label) = max(bin_max(label), values(r.x, r.y));
        count(b) = 0;
        count(label) += 1;
        output(x, y) = values(x, y) / max(bin_max(cast<int>(labels(x, y))), 1e-6f) * cast<float>(count(cast<int>(labels(x, y))) > 10);
    }
    void schedule() {
        labels.set_estimates({{0, 1024}, {0, 1024}});
        values.set_estimates({{0, 1024}, {0, 1024}});
        output.set_estimates({{0, 1024}, {0, 1024}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(BinMax, bin_max_scatter)
