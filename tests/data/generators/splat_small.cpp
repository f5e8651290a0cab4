// Test pipeline for a reduction held whole along a pinned loop ("reduction over a pinned loop in
// registers", docs/ARCHITECTURE.md): a small bilateral-guided-upsampling splat. Each cell of a
// coarse grid gathers the 4x4 pixels it covers, and each channel of the cell sums its own
// product of their colours, weighted by one weight per pixel. `grid` copies the sums; its
// consumer reads it at constant channels, so its channel region is known when the pipeline
// compiles. One thread per cell holding all of its channels' sums in registers computes each
// pixel's colours and weight once for all of them.
#include "Halide.h"

namespace {

using namespace Halide;

class SplatSmall : public Generator<SplatSmall> {
public:
    Input<Buffer<float, 3>> input{"input"};  // (x, y, rgb)
    Output<Buffer<float, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), c("c");
        RDom r(0, 4, 0, 4, "r");
        Expr xi = clamp(x * 4 + r.x, 0, input.dim(0).max()), yi = clamp(y * 4 + r.y, 0, input.dim(1).max());
        Expr red = input(xi, yi, 0), green = input(xi, yi, 1), blue = input(xi, yi, 2);
        Expr weight = max(0.0f, 1.0f - abs(0.3f * red + 0.6f * green + 0.1f * blue - 0.5f));
        Func splat("splat"), grid("grid"), out_grid("blurred");
        splat(x, y, c) = 0.0f;
        splat(x, y, c) += weight * mux(c, {red * red, red * green, green * green, red * blue, green * blue,
                                           blue * blue, red, green, blue, 1.0f});
        grid(x, y, c) = splat(x, y, c);
        out_grid(x, y, c) = grid(x - 1, y, c) * 0.25f + grid(x, y, c) * 0.5f + grid(x + 1, y, c) * 0.25f;
        Expr det = out_grid(x, y, 0) * out_grid(x, y, 2) - out_grid(x, y, 1) * out_grid(x, y, 1);
        Expr mean = (out_grid(x, y, 6) + out_grid(x, y, 7) + out_grid(x, y, 8)) / max(out_grid(x, y, 9), 1e-3f);
        out(x, y) = det + mean + out_grid(x, y, 3) * out_grid(x, y, 4) - out_grid(x, y, 5);
    }

    void schedule() {
        input.set_estimates({{0, 512}, {0, 384}, {0, 3}});
        out.set_estimates({{0, 128}, {0, 96}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(SplatSmall, splat_small)
