// Experiment (issue 12 item 6): conv_layer's algorithm with per-warp schedules (gpu_lanes, slabs in shared).
#include "Halide.h"
namespace {
using namespace Halide;
class ConvWarp : public Generator<ConvWarp> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "warp"};
    GeneratorParam<int> slab{"slab", 16};
    GeneratorParam<int> xs{"xs", 4};
    GeneratorParam<int> ys{"ys", 4};
    GeneratorParam<bool> taps{"taps", false};
    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<float, 4>> filter{"filter"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};
    void generate() {
        r = RDom(0, 3, 0, 3, 0, input.dim(0).extent(), "r");
        conv(c, x, y, n) = bias(c);
        conv(c, x, y, n) += filter(c, r.z, r.x, r.y) * input(r.z, x + r.x, y + r.y, n);
        output(c, x, y, n) = max(conv(c, x, y, n), 0.0f);
    }
    void schedule() {
        const int CI = 256, CO = 256, W = 56, H = 56, N = 4;
        input.set_estimates({{0, CI}, {0, W + 2}, {0, H + 2}, {0, N}});
        filter.set_estimates({{0, CO}, {0, CI}, {0, 3}, {0, 3}});
        bias.set_estimates({{0, CO}});
        output.set_estimates({{0, CO}, {0, W}, {0, H}, {0, N}});
        Var co, ci, xo, xi, yo, yi, f, fo, fi;
        RVar rzo, rzi;
        output.split(c, co, ci, 32).split(x, xo, xi, xs).split(y, yo, yi, ys)
            .reorder(ci, xi, yi, co, xo, yo, n).gpu_lanes(ci).unroll(xi).unroll(yi).gpu_blocks(co, xo, yo);
        conv.compute_at(output, co).store_in(MemoryType::Register).gpu_lanes(c).unroll(x).unroll(y);
        auto &u = conv.update().split(r.z, rzo, rzi, slab).reorder(c, x, y, r.x, r.y, rzi, rzo)
            .gpu_lanes(c).unroll(x).unroll(y);
        if (taps) u.unroll(r.x).unroll(r.y);
        for (Func w : {input.in(), filter.in()}) {
            w.compute_at(conv, rzo).gpu_lanes(w.args()[0]);
        }
    }
private:
    Var c{"c"}, x{"x"}, y{"y"}, n{"n"};
    RDom r;
    Func conv{"conv"};
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ConvWarp, conv_layer_warp)
