// Test pipeline for Funcs computed with a sibling (compute_with): `horizontal` and `vertical` are
// stencils of the same input over the same region, neither computed from the other, which one GPU
// kernel can compute together; `scaled` is computed from `horizontal`, so it can share a kernel
// with `vertical` but not with `horizontal`.
#include "Halide.h"

namespace {

using namespace Halide;

class SiblingsSmall : public Generator<SiblingsSmall> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func horizontal("horizontal"), vertical("vertical"), scaled("scaled");
        horizontal(x, y) = clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y);
        vertical(x, y) = clamped(x, y - 1) * clamped(x, y + 1) - clamped(x, y);
        scaled(x, y) = sqrt(horizontal(x, y) * horizontal(x, y) + 1.0f);
        out(x, y) = horizontal(x, y) * vertical(x, y) + scaled(x, y);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 1024}});
        out.set_estimates({{0, 1536}, {0, 1024}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(SiblingsSmall, siblings_small)
