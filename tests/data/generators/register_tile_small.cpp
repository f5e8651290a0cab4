// Test pipeline for a reduction fused per thread over a register tile: a matrix product whose
// accumulator is its own Func, read by the output only at the point it computes (a ReLU), so
// each GPU thread can hold its tile of accumulators in registers through the whole reduction.
#include "Halide.h"

namespace {

using namespace Halide;

class RegisterTileSmall : public Generator<RegisterTileSmall> {
public:
    // The output's estimated width and height (a size that is no multiple of a tile leaves tails).
    GeneratorParam<int> size{"size", 2048};
    Input<Buffer<float, 2>> a{"a"};  // (k, y)
    Input<Buffer<float, 2>> b{"b"};  // (x, k)
    Output<Buffer<float, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        RDom k(0, a.dim(0).extent(), "k");
        Func prod("prod");
        prod(x, y) = 0.0f;
        prod(x, y) += a(k, y) * b(x, k);
        out(x, y) = max(prod(x, y), 0.0f);
    }

    void schedule() {
        a.set_estimates({{0, 256}, {0, size}});
        b.set_estimates({{0, size}, {0, 256}});
        out.set_estimates({{0, size}, {0, size}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RegisterTileSmall, register_tile_small)
