// Softmax across 64 channels per pixel, channels innermost in memory, with a layer norm before.
#include "Halide.h"
using namespace Halide;
namespace {
class SoftmaxChannels : public Generator<SoftmaxChannels> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> input{"input"};   // (c, x, y)
    Input<Buffer<float, 1>> gamma{"gamma"};
    Output<Buffer<float, 3>> output{"output"};
    Var c{"c"}, x{"x"}, y{"y"};
    void generate() {
        const int C = 64;
        RDom r(0, C, "r");
        Func mean{"mean"}, var{"var"}, normed{"normed"}, mx{"mx"}, e{"e"}, total{"total"};
        mean(x, y) = sum(input(r, x, y)) / C;
        var(x, y) = sum(pow(input(r, x, y) - mean(x, y), 2)) / C;
        normed(c, x, y) = (input(c, x, y) - mean(x, y)) * gamma(c) / sqrt(var(x, y) + 1e-5f);
        mx(x, y) = maximum(normed(r, x, y));
        e(c, x, y) = exp(normed(c, x, y) - mx(x, y));
        total(x, y) = sum(e(r, x, y));
        output(c, x, y) = e(c, x, y) / total(x, y);
    }
    void schedule() {
        input.set_estimates({{0, 64}, {0, 512}, {0, 512}});
        gamma.set_estimates({{0, 64}});
        output.set_estimates({{0, 64}, {0, 512}, {0, 512}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(SoftmaxChannels, softmax_channels)
