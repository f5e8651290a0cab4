// Test pipeline for rows per thread along a third loop (StageTiling::row_loop) and for a register
// tile's unrolled taps: a convolution over channels-innermost images, input(ci, x, y, n) ->
// out(co, x, y, n), as MobileNet's pointwise layers (taps = 1) or a 1-D convolution along x
// (taps > 1). Its accumulator is its own Func, read by the output only at the point it computes
// (a ReLU), so each thread can hold a tile of it in registers.
#include "Halide.h"

namespace {

using namespace Halide;

class PointwiseConvSmall : public Generator<PointwiseConvSmall> {
public:
    GeneratorParam<int> taps{"taps", 1};  // along x: 1 is a pointwise (1x1) convolution
    // The convolution reads a ReLU of the input (a producer to fuse per block, as a depthwise
    // stage before a pointwise one) instead of the input itself.
    GeneratorParam<bool> staged{"staged", false};
    Input<Buffer<float, 4>> input{"input"};    // (ci, x, y, n)
    Input<Buffer<float, 3>> filter{"filter"};  // (co, ci, tap)
    Output<Buffer<float, 4>> out{"out"};       // (co, x, y, n)

    void generate() {
        Var c("c"), x("x"), y("y"), n("n");
        // Taps first: the innermost reduction loop, which a register tile unrolls.
        RDom r(0, int(taps), 0, input.dim(0).extent(), "r");
        Func in("relu_in");
        if (staged) in(c, x, y, n) = max(input(c, x, y, n), 0.0f);
        else in(c, x, y, n) = input(c, x, y, n);
        Func conv("conv");
        conv(c, x, y, n) = 0.0f;
        conv(c, x, y, n) += filter(c, r.y, r.x) * in(r.y, x + r.x, y, n);
        out(c, x, y, n) = max(conv(c, x, y, n), 0.0f);
    }

    void schedule() {
        const int CI = 16, CO = 64, W = 32, H = 32, N = 2;
        input.set_estimates({{0, CI}, {0, W + int(taps) - 1}, {0, H}, {0, N}});
        filter.set_estimates({{0, CO}, {0, CI}, {0, int(taps)}});
        out.set_estimates({{0, CO}, {0, W}, {0, H}, {0, N}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(PointwiseConvSmall, pointwise_conv_small)
