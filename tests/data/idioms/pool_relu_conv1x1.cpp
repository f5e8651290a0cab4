// NCHW-style tensor: 2x2 max pool, ReLU, then a 1x1 convolution over 32 channels into 64.
#include "Halide.h"
using namespace Halide;
namespace {
class PoolReluConv : public Generator<PoolReluConv> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 4>> input{"input"};    // (x, y, c, n)
    Input<Buffer<float, 2>> weights{"weights"};  // (ci, co)
    Output<Buffer<float, 4>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    void generate() {
        Func pooled{"pooled"}, relu{"relu"};
        pooled(x, y, c, n) = max(max(input(2 * x, 2 * y, c, n), input(2 * x + 1, 2 * y, c, n)),
                                 max(input(2 * x, 2 * y + 1, c, n), input(2 * x + 1, 2 * y + 1, c, n)));
        relu(x, y, c, n) = max(pooled(x, y, c, n), 0.0f);
        RDom ci(0, 32, "ci");
        Func conv{"conv"};
        conv(x, y, c, n) = 0.0f;
        conv(x, y, c, n) += weights(ci, c) * relu(x, y, ci, n);
        output(x, y, c, n) = conv(x, y, c, n);
    }
    void schedule() {
        input.set_estimates({{0, 256}, {0, 256}, {0, 32}, {0, 4}});
        weights.set_estimates({{0, 32}, {0, 64}});
        output.set_estimates({{0, 128}, {0, 128}, {0, 64}, {0, 4}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(PoolReluConv, pool_relu_conv1x1)
