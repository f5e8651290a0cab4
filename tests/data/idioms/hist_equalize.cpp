// Histogram equalization: a histogram, its cumulative sum (a scan), and a lookup per pixel.
#include "Halide.h"
using namespace Halide;
namespace {
class HistEqualize : public Generator<HistEqualize> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 2>> input{"input"};
    Output<Buffer<uint8_t, 2>> output{"output"};
    Var x{"x"}, y{"y"}, i{"i"};
    void generate() {
        Func hist{"hist"};
        RDom r(0, input.width(), 0, input.height(), "r");
        hist(i) = 0;
        hist(clamp(cast<int>(input(r.x, r.y)), 0, 255)) += 1;
        Func cdf{"cdf"};
        RDom b(1, 255, "b");
        cdf(i) = hist(0);
        cdf(b) = cdf(b - 1) + hist(b);
        Func lut{"lut"};
        Expr total = cast<float>(input.width() * input.height());
        lut(i) = cast<uint8_t>(clamp(cdf(i) * 255.0f / total, 0.0f, 255.0f));
        output(x, y) = lut(cast<int>(input(x, y)));
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(HistEqualize, hist_equalize)
