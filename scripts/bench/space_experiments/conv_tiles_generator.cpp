// Experiment (issue 12): which parts of conv_layer's manual schedule matter: tile shape, rows per
// thread, tails, vectorize. The algorithm is examples/conv_layer's.
#include "Halide.h"
namespace {
using namespace Halide;
class ConvTiles : public Generator<ConvTiles> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "ours"};
    GeneratorParam<int> tc{"tc", 64};     // threads along c
    GeneratorParam<int> tx{"tx", 2};      // threads along x
    GeneratorParam<int> sc{"sc", 4};      // channels per thread
    GeneratorParam<int> sx{"sx", 4};      // columns per thread
    GeneratorParam<int> sy{"sy", 1};      // rows per thread
    GeneratorParam<bool> shift{"shift", false};
    GeneratorParam<bool> vec{"vec", false};
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
        const TailStrategy tail = shift ? TailStrategy::ShiftInwards : TailStrategy::GuardWithIf;
        Var co, ci, cii, xo, xi, xii, yo, yi, yn;
        output.compute_root()
            .gpu_tile(c, x, co, xo, ci, xi, int(tc) * int(sc), int(tx) * int(sx), tail)
            .split(ci, ci, cii, sc, tail)
            .split(xi, xi, xii, sx, tail)
            .split(y, yo, yi, sy, tail)
            .reorder(cii, xii, yi, ci, xi, co, xo, yo, n);
        if (vec) output.vectorize(cii); else output.unroll(cii);
        output.unroll(xii).unroll(yi).fuse(yo, n, yn).gpu_blocks(yn);
        conv.compute_at(output, ci).store_in(MemoryType::Register).bound_extent(y, sy).bound_extent(n, 1).unroll(x).unroll(y);
        if (vec) conv.vectorize(c); else conv.unroll(c);
        auto u = conv.update(0);
        u.reorder(c, x, y, n, r.x, r.y, r.z).unroll(x).unroll(y);
        if (vec) u.vectorize(c); else u.unroll(c);
        if (taps) u.unroll(r.x).unroll(r.y);
    }
private:
    Var c{"c"}, x{"x"}, y{"y"}, n{"n"};
    RDom r;
    Func conv{"conv"};
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ConvTiles, conv_layer_tiles)
