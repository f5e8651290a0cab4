// Dense single-precision matrix multiply C = A * B (row-major, 2048^3 by default estimate).
#include "Halide.h"

namespace {

using namespace Halide;

class MatMul : public Generator<MatMul> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    // A is M x K (A(k, m), k innermost), B is K x N (B(n, k), n innermost), C is M x N (C(n, m)).
    Input<Buffer<float, 2>> A{"A"};
    Input<Buffer<float, 2>> B{"B"};
    Output<Buffer<float, 2>> C{"C"};

    void generate() {
        k = RDom(0, A.dim(0).extent(), "k");
        // The accumulator is its own Func so that a schedule can keep it in registers.
        prod(x, y) = 0.0f;
        prod(x, y) += A(k, y) * B(x, k);
        C(x, y) = prod(x, y);
    }

    void schedule() {
        const int size = 2048;
        A.set_estimates({{0, size}, {0, size}});
        B.set_estimates({{0, size}, {0, size}});
        C.set_estimates({{0, size}, {0, size}});
        if (schedule_kind.value() == "manual") {
            // Block tile 128 (x) x 32 (y) outputs, 32x8 threads, each thread a 4x4 register block:
            // the 4 x-adjacent outputs are one float4 store, and a warp stores 512 contiguous bytes.
            C.tile(x, y, xb, yb, xi, yi, 128, 32)
                .tile(xi, yi, xt, yt, xr, yr, 4, 4)
                .gpu_blocks(xb, yb)
                .gpu_threads(xt, yt)
                .vectorize(xr)
                .unroll(yr);
            // 16 accumulators per thread live in registers for the whole K loop.
            prod.compute_at(C, xt).vectorize(x).unroll(y);
            prod.update()
                .reorder(x, y, k)
                .split(k, ko, ki, 8)
                .vectorize(x)
                .unroll(y)
                .unroll(ki);
            // Per 8-deep slice of K, each thread loads a 4x8 slab of A (float4 loads along k) and
            // an 8x4 slab of B (float4 loads along x, coalesced across the warp) into registers:
            // 64 FMAs per 16 loads; the block's threads share the slabs through L1.
            // bound_extent keeps the slabs a constant 8 deep so they can be vectorized/unrolled;
            // the schedule therefore needs K % 8 == 0 (checked at run time by the bounds
            // assertions on A and B).
            A.in().compute_at(prod, ko).bound_extent(_0, 8).vectorize(_0).unroll(_1);
            B.in().compute_at(prod, ko).bound_extent(_1, 8).vectorize(_0).unroll(_1);
        }
    }

private:
    Var x{"x"}, y{"y"}, xb{"xb"}, yb{"yb"}, xi{"xi"}, yi{"yi"}, xt{"xt"}, yt{"yt"}, xr{"xr"}, yr{"yr"};
    RVar ko{"ko"}, ki{"ki"};
    RDom k;
    Func prod{"prod"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MatMul, mat_mul)
