// MobileNet-style depthwise separable block: depthwise 3x3 conv ("same", zero padding) + bias +
// ReLU, then pointwise 1x1 conv + bias + ReLU. Float, channels innermost:
// input(ci, x, y, n) -> output(co, x, y, n).
#include "Halide.h"

namespace {

using namespace Halide;

Var c{"c"}, x{"x"}, y{"y"}, n{"n"};

// Depthwise 3x3: each channel filtered by its own 3x3 kernel, then bias + ReLU.
Func depthwise_3x3(Func padded, Func filter, Func bias) {
    Func dw("depthwise");
    Expr sum = bias(c);
    for (int ky = 0; ky < 3; ky++)
        for (int kx = 0; kx < 3; kx++)
            sum += filter(c, kx, ky) * padded(c, x + kx - 1, y + ky - 1, n);
    dw(c, x, y, n) = max(sum, 0.0f);
    return dw;
}

// Pointwise 1x1: a (co x ci) matrix applied at every pixel, plus bias. Returns the accumulator.
Func pointwise_1x1(Func in, Func filter, Func bias, Expr channels_in, RDom &r) {
    Func pw("pointwise");
    r = RDom(0, channels_in, "r");
    pw(c, x, y, n) = bias(c);
    pw(c, x, y, n) += filter(c, r) * in(r, x, y, n);
    return pw;
}

class DepthwiseSeparableConv : public Generator<DepthwiseSeparableConv> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<float, 4>> input{"input"};          // (ci, x, y, n)
    Input<Buffer<float, 3>> dw_filter{"dw_filter"};  // (ci, kx, ky)
    Input<Buffer<float, 1>> dw_bias{"dw_bias"};      // (ci)
    Input<Buffer<float, 2>> pw_filter{"pw_filter"};  // (co, ci)
    Input<Buffer<float, 1>> pw_bias{"pw_bias"};      // (co)
    Output<Buffer<float, 4>> output{"output"};       // (co, x, y, n)

    void generate() {
        // Zero padding in x and y only (channels and batch are never out of range).
        Func padded = BoundaryConditions::constant_exterior(
            input, 0.0f, {{Expr(), Expr()}, {0, input.dim(1).extent()}, {0, input.dim(2).extent()}, {Expr(), Expr()}});
        Func dw = depthwise_3x3(padded, dw_filter, dw_bias);
        RDom r;
        Func pw = pointwise_1x1(dw, pw_filter, pw_bias, input.dim(0).extent(), r);
        output(c, x, y, n) = max(pw(c, x, y, n), 0.0f);

        if (schedule_kind.value() == "manual") {
            Var cb{"cb"}, cc{"cc"}, ct{"ct"}, cv{"cv"}, xb{"xb"}, xt{"xt"}, yb{"yb"}, yr{"yr"}, ybn{"ybn"};
            Var cdo{"cdo"}, cdi{"cdi"};
            // Block: 64 output channels x 8 columns x 4 rows; 32 x 8 threads. Each thread owns 2
            // adjacent output channels (float2 filter loads, contiguous across the warp) x 4 rows:
            // 8 accumulators in registers.
            // ShiftInwards tails keep each thread's 2x4 register block constant-sized (partial
            // tiles recompute a few outputs).
            output.split(c, cb, cc, 64, TailStrategy::ShiftInwards)
                .split(cc, ct, cv, 2, TailStrategy::ShiftInwards)
                .split(x, xb, xt, 8, TailStrategy::ShiftInwards)
                .split(y, yb, yr, 4, TailStrategy::ShiftInwards)
                .reorder(cv, yr, ct, xt, cb, xb, yb, n)
                .fuse(yb, n, ybn)
                .gpu_blocks(cb, xb, ybn)
                .gpu_threads(ct, xt)
                .vectorize(cv)
                .unroll(yr);
            pw.compute_at(output, ct).vectorize(c).unroll(y);
            pw.update().reorder(c, y, r).vectorize(c).unroll(y);
            // The depthwise result for the block's 8x4 pixels and all input channels is staged in
            // shared memory (computed once, read by all 32 channel-threads as broadcasts); its
            // channels go 32 at a time across the same 32x8 threads.
            dw.compute_at(output, cb)
                .split(c, cdo, cdi, 32, TailStrategy::GuardWithIf)
                .reorder(y, cdi, x, cdo, n)
                .gpu_threads(cdi, x)
                .unroll(y);
        }
    }

    void schedule() {
        // MobileNet v1's second block: 32 -> 64 channels at 112x112, batch 4.
        const int CI = 32, CO = 64, W = 112, H = 112, N = 4;
        input.set_estimates({{0, CI}, {0, W}, {0, H}, {0, N}});
        dw_filter.set_estimates({{0, CI}, {0, 3}, {0, 3}});
        dw_bias.set_estimates({{0, CI}});
        pw_filter.set_estimates({{0, CO}, {0, CI}});
        pw_bias.set_estimates({{0, CO}});
        output.set_estimates({{0, CO}, {0, W}, {0, H}, {0, N}});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(DepthwiseSeparableConv, depthwise_separable_conv)
