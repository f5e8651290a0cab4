// Test pipeline for the schedule space's fusions of update definitions: a reduction (a 5-tap box
// sum along x, as an update definition) read by a 3-tap stencil along y, which can compute it per
// GPU block in shared memory; and an output whose update definition reads a stencil that can be
// fused into that update's kernel.
#include "Halide.h"

namespace {

using namespace Halide;

class FusedReductionsSmall : public Generator<FusedReductionsSmall> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> blurred{"blurred"};
    Output<Buffer<float, 2>> weighted{"weighted"};

    void generate() {
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(input);

        RDom r(-2, 5, "r");
        Func box_x("box_x");
        box_x(x, y) = 0.0f;
        box_x(x, y) += clamped(x + r, y);  // in place: each point sums its own taps
        blurred(x, y) = (box_x(x, y - 1) + box_x(x, y) + box_x(x, y + 1)) * (1.0f / 15);

        Func gradient("gradient");
        gradient(x, y) = clamped(x + 1, y) - clamped(x - 1, y);
        RDom k(-1, 3, "k");
        weighted(x, y) = clamped(x, y);
        weighted(x, y) += gradient(x, y + k) * 0.25f;  // only the update reads the gradient
    }

    void schedule() {
        input.set_estimates({{0, 1024}, {0, 768}});
        blurred.set_estimates({{0, 1024}, {0, 768}});
        weighted.set_estimates({{0, 1024}, {0, 768}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(FusedReductionsSmall, fused_reductions_small)
