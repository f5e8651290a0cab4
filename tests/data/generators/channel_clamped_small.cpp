// Test pipeline for what a loop of channels inside each thread shares when the stage reads
// through a boundary condition: the channels then run as a loop, not unrolled
// (unrolls_in_thread_loops), yet Halide hoists what does not depend on the channel out of it
// (checked in the PTX: the per-pixel weight's square roots and its load once, before the loop).
// As local_laplacian's output reads its input through repeat_edge and a per-pixel value.
#include "Halide.h"

namespace {

using namespace Halide;

class ChannelClampedSmall : public Generator<ChannelClampedSmall> {
public:
    Input<Buffer<float, 3>> input{"input"};  // (x, y, c)
    Output<Buffer<float, 3>> out{"out"};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func luma("luma"), weight("weight");
        luma(x, y) = input(x, y, 0) * 0.25f + input(x, y, 1) * 0.5f + input(x, y, 2) * 0.25f;
        Expr w = luma(x, y);
        for (int i = 0; i < 16; i++) w = w * 0.9f + sqrt(w * w + float(i + 1)) * 0.5f;
        weight(x, y) = w;
        out(x, y, c) = clamped(x, y, c) * weight(x, y);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        out.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ChannelClampedSmall, channel_clamped_small)
